// `capsim preview --nodes nodes.json --pods pods.json --nodepools nodepools.yaml ...`: what
// Karpenter and the Cluster Autoscaler baseline would disrupt now in a live cluster, rebuilt
// offline from kubectl dumps (docs/preview.md).
#include "cli/commands/commands.hpp"
#include "cli/output/emit.hpp"
#include "core/base/diagnostics.hpp"
#include "core/io/cluster_dump.hpp"
#include "core/io/trace.hpp"
#include "core/preview/preview.hpp"

#include <memory>

namespace capsim::cli {

namespace {

struct PreviewCliOptions
{
  io::ClusterDumpFiles files;
  std::string catalog;
  std::string now;
  bool json = false;
  std::string out;
};

int preview_command(const PreviewCliOptions& o)
{
  preview::PreviewOptions options;
  options.catalog_dir = o.catalog;
  if (!o.now.empty()) {
    const auto t = io::parse_rfc3339_ms(o.now);
    if (!t) {
      throw InputError(SourceLocation{"--now"}, "'" + o.now + "' is not an RFC 3339 time (e.g. 2026-11-29T12:00:00Z)");
    }
    options.now = *t;
  }
  refuse_input_as_output(o.out, {o.files.nodes, o.files.pods, o.files.node_pools, o.files.pdbs, o.files.node_classes,
                                 o.files.volumes});
  const io::ClusterDump dump = io::load_cluster_dump(o.files);
  const preview::PreviewResult result = preview::run_preview(dump, options);
  emit(o.json ? preview::render_json(result) : preview::render_text(result), o.out);
  return 0;
}

} // namespace

void add_preview_command(CLI::App& app, CommandResult& result)
{
  auto o = std::make_shared<PreviewCliOptions>();
  auto* cmd = app.add_subcommand("preview", "What Karpenter (and the Cluster Autoscaler baseline) would disrupt now in a "
                                            "live cluster, from kubectl dumps: per node delete, replace or keep, the "
                                            "saving, and why kept nodes are kept");
  cmd->add_option("--nodes", o->files.nodes, "kubectl get nodes -o json")->required();
  cmd->add_option("--pods", o->files.pods, "kubectl get pods -A -o json")->required();
  cmd->add_option("--nodepools", o->files.node_pools, "kubectl get nodepools -o yaml")->required();
  cmd->add_option("--pdbs", o->files.pdbs, "kubectl get pdb -A -o json");
  cmd->add_option("--nodeclasses", o->files.node_classes, "kubectl get ec2nodeclasses -o yaml");
  cmd->add_option("--volumes", o->files.volumes,
                  "kubectl get pvc,pv,storageclass -A -o json (pods stay in their volumes' zones)");
  cmd->add_option("--catalog", o->catalog, "Catalog folder (capsim catalog import); default: the embedded catalog");
  cmd->add_option("--now", o->now, "Evaluate at this RFC 3339 time (default: the newest timestamp in the dumps)");
  cmd->add_flag("--json", o->json, "Print the JSON report (docs/preview.md) instead of the text tables");
  cmd->add_option("-o,--out", o->out, "Write to this file (atomically) instead of stdout");
  cmd->callback([&result, o] { result.action = [o] { return preview_command(*o); }; });
}

} // namespace capsim::cli
