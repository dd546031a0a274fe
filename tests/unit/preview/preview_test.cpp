// capsim preview: the kubectl dumps of tests/fixtures/preview (written by make_fixtures.py as
// kubectl prints them) read back, and the verdicts checked against hand-computed prices from
// the embedded us-east-1 catalog: m5.large $0.096/h, m5.xlarge $0.192, m5.2xlarge $0.384,
// c5.xlarge $0.17, c5.2xlarge $0.34; a month is 730 h.
#include "core/base/diagnostics.hpp"
#include "core/io/cluster_dump.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/io/trace.hpp"
#include "core/preview/preview.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace {

using namespace capsim;

const std::string k_dir = std::string(CAPSIM_SOURCE_DIR) + "/tests/fixtures/preview/";

io::ClusterDumpFiles fixture_files()
{
  io::ClusterDumpFiles f;
  f.nodes = k_dir + "nodes.json";
  f.pods = k_dir + "pods.json";
  f.node_pools = k_dir + "nodepools.yaml";
  f.pdbs = k_dir + "pdbs.json";
  return f;
}

const io::ClusterDump& fixture()
{
  static const io::ClusterDump dump = io::load_cluster_dump(fixture_files());
  return dump;
}

SimTime at(const char* rfc3339)
{
  return *io::parse_rfc3339_ms(rfc3339);
}

const preview::NodeVerdict& find(const std::vector<preview::NodeVerdict>& nodes, const std::string& short_name)
{
  const std::string name = short_name + ".ec2.internal";
  const auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& v) { return v.name == name; });
  REQUIRE(it != nodes.end());
  return *it;
}

std::filesystem::path temp_dir()
{
  const auto dir = std::filesystem::temp_directory_path()
                   / ("capsim_preview_test-" + std::to_string(::getpid())); // ctest runs cases in parallel
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write(const std::string& name, const std::string& text)
{
  const auto p = temp_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

// The diagnostics of loading `files`, formatted; empty when it loads.
std::vector<std::string> errors_of(const io::ClusterDumpFiles& files)
{
  try {
    (void)io::load_cluster_dump(files);
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.diagnostics()) {
      out.push_back(format_diagnostic(d));
    }
    return out;
  }
  return {};
}

} // namespace

TEST_CASE("preview reads full kubectl dumps leniently", "[preview][io]")
{
  const auto& dump = fixture();
  const auto& sc = dump.scenario;
  CHECK(sc.nodes.size() == 11);
  // 35 pods in the dump; the Succeeded Job pod holds nothing and is dropped.
  CHECK(sc.pods.size() == 34);
  CHECK(sc.node_pools.size() == 3);
  CHECK(sc.pdbs.size() == 1);
  CHECK(sc.settings.region == "us-east-1");
  // The newest timestamp is the nodes' last heartbeat.
  CHECK(dump.newest == at("2026-11-29T12:00:00Z"));
  // The EKS node group is synthesised from the node labels.
  REQUIRE(sc.node_groups.size() == 1);
  CHECK(sc.node_groups[0].name == "ng-general");
  CHECK(sc.node_groups[0].instance_types == std::vector<std::string>{"m5.large"});
  CHECK(sc.node_groups[0].min_size == 0);
  // DaemonSets rebuilt from their pods, without the per-node matchFields pin.
  REQUIRE(sc.daemon_sets.size() == 2);
  CHECK(sc.daemon_sets[0].name == "aws-node");
  CHECK(sc.daemon_sets[1].name == "kube-proxy");
  CHECK(sc.daemon_sets[0].spec->required_node_affinity.empty());
  CHECK(sc.daemon_sets[0].spec->requests.cpu() == 25);
  // The mirror pod follows its node; the controller-owned pods do not.
  const auto pod = [&](const std::string& name) {
    const auto it = std::find_if(sc.pods.begin(), sc.pods.end(), [&](const auto& p) { return p.name == name; });
    REQUIRE(it != sc.pods.end());
    return *it;
  };
  CHECK(pod("etcd-backup-ip-10-0-0-5.ec2.internal").is_daemon);
  CHECK_FALSE(pod("karpenter-5d4c3b2a1-jjjjj").is_daemon);
  CHECK(pod("aws-node-110x").is_daemon);
  CHECK(pod("web-7c9d8f6b5-eeeee").node_name == "ip-10-0-1-70.ec2.internal");
  const auto& facts = dump.pods.at("web/web-7c9d8f6b5-eeeee");
  CHECK(facts.started == at("2026-11-29T11:59:30Z"));
  CHECK(facts.scheduled == at("2026-11-29T11:59:30Z"));
  CHECK(dump.pods.at("kube-system/aws-node-110x").daemon_set == "aws-node");
  CHECK(dump.nodes.at("ip-10-0-1-10.ec2.internal").ready);
  CHECK(dump.nodes.at("ip-10-0-1-10.ec2.internal").created == at("2026-11-20T08:00:00Z"));
}

TEST_CASE("preview: Karpenter's next command and per-node verdicts", "[preview][karpenter]")
{
  const auto r = preview::run_preview(fixture(), {});
  CHECK(r.now == at("2026-11-29T12:00:00Z"));
  CHECK(r.pods == 11);
  CHECK(r.pending_pods == 0);
  CHECK(r.warnings.empty());

  // Emptiness acts first: the m5.large holding only DaemonSet pods.
  REQUIRE(r.next_command);
  CHECK(r.next_command->method == "emptiness");
  CHECK(r.next_command->action == "delete");
  CHECK(r.next_command->nodes == std::vector<std::string>{"ip-10-0-1-60.ec2.internal"});
  CHECK(r.next_command->saving_per_hour == Approx(0.096));
  const auto& empty = find(r.karpenter, "ip-10-0-1-60");
  CHECK(empty.decision == "delete");
  CHECK(empty.method == "emptiness");
  CHECK(empty.in_next_command);
  CHECK(empty.saving_per_hour == Approx(0.096));

  // Underutilized m5.xlarge: its web pod fits on the m5.2xlarge, so delete saves its price.
  const auto& under = find(r.karpenter, "ip-10-0-1-10");
  CHECK(under.decision == "delete");
  CHECK(under.method == "single-node");
  CHECK_FALSE(under.in_next_command);
  CHECK(under.pods == 1);
  CHECK(under.saving_per_hour == Approx(0.192));

  // The m5.2xlarge's 3500m pod fits on no other node (m5.xlarge nodes have < 3500m free), so
  // a new node: the cheapest c5/m5 type under $0.384 that fits 3500m + 125m DaemonSets is
  // c5.xlarge ($0.17); the options left by the price rule are c5.xlarge, m5.xlarge, c5.2xlarge.
  const auto& big = find(r.karpenter, "ip-10-0-1-20");
  CHECK(big.decision == "replace");
  REQUIRE(big.replacement);
  CHECK(big.replacement->instance_type == "c5.xlarge");
  CHECK(big.replacement->capacity_type == "on-demand");
  CHECK(big.replacement->price_per_hour == Approx(0.17));
  CHECK(big.replacement->instance_types == std::vector<std::string>{"c5.xlarge", "m5.xlarge", "c5.2xlarge"});
  CHECK(big.saving_per_hour == Approx(0.384 - 0.17));

  const auto& dnd = find(r.karpenter, "ip-10-0-1-30");
  CHECK(dnd.decision == "keep");
  CHECK(dnd.reason_code == "do-not-disrupt");
  CHECK(dnd.reason.find("report-runner-5f4b8d9c7-bbbbb") != std::string::npos);

  const auto& pdb = find(r.karpenter, "ip-10-0-1-40");
  CHECK(pdb.decision == "keep");
  CHECK(pdb.reason_code == "pdb");
  CHECK(pdb.reason.find("payments-0") != std::string::npos);

  const auto& nowhere = find(r.karpenter, "ip-10-0-1-50");
  CHECK(nowhere.decision == "keep");
  CHECK(nowhere.reason_code == "pod-fits-nowhere");
  CHECK(nowhere.reason.find("licensed-app-6d5c4b3a2-ddddd fits nowhere") != std::string::npos);

  const auto& recent = find(r.karpenter, "ip-10-0-1-70");
  CHECK(recent.decision == "keep");
  CHECK(recent.reason_code == "consolidate-after");
  CHECK(recent.reason.find("consolidatable in 30s") != std::string::npos);

  CHECK(find(r.karpenter, "ip-10-0-3-10").reason_code == "when-empty");
  CHECK(find(r.karpenter, "ip-10-0-4-10").reason_code == "budget");
  CHECK(find(r.karpenter, "ip-10-0-2-10").reason_code == "not-karpenter");
  CHECK(find(r.karpenter, "ip-10-0-2-10").pool == "ng-general");
  CHECK(find(r.karpenter, "ip-10-0-0-5").reason_code == "not-karpenter");
  for (const auto& v : r.karpenter) {
    if (v.decision == "keep") {
      CHECK(v.saving_per_hour == 0);
    }
  }
  // Sorted by name, every node once.
  CHECK(r.karpenter.size() == 11);
  CHECK(std::is_sorted(r.karpenter.begin(), r.karpenter.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; }));
}

TEST_CASE("preview: --now decides consolidateAfter", "[preview][karpenter]")
{
  preview::PreviewOptions o;
  o.now = at("2026-11-29T12:00:29Z");
  CHECK(find(preview::run_preview(fixture(), o).karpenter, "ip-10-0-1-70").reason.find("consolidatable in 1s")
        != std::string::npos);
  o.now = at("2026-11-29T12:00:30Z");
  const auto later = preview::run_preview(fixture(), o);
  const auto& v = find(later.karpenter, "ip-10-0-1-70");
  CHECK(v.decision == "delete");
  CHECK(v.saving_per_hour == Approx(0.192));
}

TEST_CASE("preview: the Cluster Autoscaler baseline", "[preview][cas]")
{
  const auto r = preview::run_preview(fixture(), {});
  CHECK(r.ca_threshold == Approx(0.5));
  // ng-general's m5.large: (125m DaemonSets + 250m) / 1930m = 19% cpu; the worker pod moves.
  const auto& ng = find(r.cluster_autoscaler, "ip-10-0-2-10");
  CHECK(ng.pool == "ng-general");
  CHECK(ng.decision == "scale-down");
  CHECK(ng.cpu_utilization == Approx(375.0 / 1930).epsilon(1e-5));
  CHECK(ng.saving_per_hour == Approx(0.096));
  // m5.xlarge with 625m of 3920m and 1 GiB + 128 MiB of 14722040Ki.
  const auto& under = find(r.cluster_autoscaler, "ip-10-0-1-10");
  CHECK(under.decision == "scale-down");
  CHECK(under.cpu_utilization == Approx(625.0 / 3920).epsilon(1e-5));
  CHECK(under.memory_utilization == Approx((1048576.0 + 131072) / 14722040).epsilon(1e-5));
  CHECK(under.reason.find("web/web-7c9d8f6b5-aaaaa -> ip-10-0-1-20.ec2.internal") != std::string::npos);
  // 46% but analytics-0 (3500m) has nowhere to go.
  const auto& big = find(r.cluster_autoscaler, "ip-10-0-1-20");
  CHECK(big.decision == "keep");
  CHECK(big.reason_code == "no-place-to-move");
  CHECK(big.reason == "pod data/analytics-0 fits on no other node");
  CHECK(find(r.cluster_autoscaler, "ip-10-0-1-40").reason_code == "pdb");
  CHECK(find(r.cluster_autoscaler, "ip-10-0-1-50").reason_code == "no-place-to-move");
  CHECK(find(r.cluster_autoscaler, "ip-10-0-0-5").reason_code == "not-autoscaled");
  // CA does not read Karpenter's do-not-disrupt annotation.
  CHECK(find(r.cluster_autoscaler, "ip-10-0-1-30").decision == "scale-down");
  const auto& empty = find(r.cluster_autoscaler, "ip-10-0-1-60");
  CHECK(empty.decision == "scale-down");
  CHECK(empty.reason_code == "empty");
}

TEST_CASE("preview: bad dumps are refused with FILE:LINE:COL", "[preview][io]")
{
  auto files = fixture_files();
  SECTION("malformed JSON")
  {
    // The Node object's closing brace is missing.
    files.nodes = write("nodes-bad.json", "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n"
                                          "    {\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}\n  ]\n}\n");
    const auto errors = errors_of(files);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] == files.nodes + ":6:3: error: invalid JSON/YAML: illegal flow end");
  }
  SECTION("the wrong kind of object")
  {
    files.nodes = k_dir + "pods.json"; // pods given as nodes
    const auto errors = errors_of(files);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].rfind(files.nodes + ":", 0) == 0);
    CHECK(errors[0].find("error: --nodes expects Node objects (kubectl get nodes -o json), got kind 'Pod'")
          != std::string::npos);
  }
  SECTION("a schema error is reported in the file and line it comes from")
  {
    files.pdbs = write("pdbs-bad.json", "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n"
                                        "    {\"apiVersion\": \"policy/v1\", \"kind\": \"PodDisruptionBudget\",\n"
                                        "     \"metadata\": {\"name\": \"x\", \"namespace\": \"a\"},\n"
                                        "     \"spec\": {\"maxUnavailable\": \"ten\", \"selector\": {}}}\n  ]\n}\n");
    const auto errors = errors_of(files);
    CAPTURE(errors);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].rfind(files.pdbs + ":7:", 0) == 0);
  }
  SECTION("an empty file")
  {
    files.node_pools = write("empty.yaml", "");
    const auto errors = errors_of(files);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] == files.node_pools + ":1:1: error: --nodepools: the file is empty");
  }
  SECTION("an unknown region label: its line, not an option's name")
  {
    std::ifstream in(k_dir + "nodes.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string label = "\"topology.kubernetes.io/region\": ";
    const auto at = text.find(label + "\"us-east-1\"");
    REQUIRE(at != std::string::npos);
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    const auto column = at + label.size() - text.rfind('\n', at);
    for (auto p = text.find(label + "\"us-east-1\""); p != std::string::npos; p = text.find(label + "\"us-east-1\"", p)) {
      text.replace(p + label.size(), 11, "\"us-esat-1\"");
    }
    files.nodes = write("nodes-region.json", text);
    std::string message;
    try {
      (void)preview::run_preview(io::load_cluster_dump(files), {});
    } catch (const InputError& e) {
      message = format_diagnostic(e.diagnostics().front());
    }
    CHECK(message.rfind(fmt::format("{}:{}:{}: error: unknown region 'us-esat-1' (did you mean 'us-east-1'?)",
                                    files.nodes, line, column),
                        0)
          == 0);
  }
  SECTION("nodes without a region label: the default region")
  {
    std::ifstream in(k_dir + "nodes.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string label = "\"topology.kubernetes.io/region\": \"us-east-1\",";
    for (auto p = text.find(label); p != std::string::npos; p = text.find(label)) {
      text.erase(p, label.size());
    }
    REQUIRE(text.find("topology.kubernetes.io/region") == std::string::npos);
    files.nodes = write("nodes-no-region.json", text);
    CHECK(errors_of(files).empty());
    CHECK(preview::run_preview(io::load_cluster_dump(files), {}).region == "us-east-1");
  }
  SECTION("a missing file")
  {
    files.pods = (temp_dir() / "missing.json").string();
    const auto errors = errors_of(files);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("missing.json") != std::string::npos);
  }
}

TEST_CASE("preview: without an empty node, multi-node consolidation goes first", "[preview][karpenter]")
{
  auto dump = fixture();
  auto& sc = dump.scenario;
  const std::string gone = "ip-10-0-1-60.ec2.internal";
  std::erase_if(sc.nodes, [&](const auto& n) { return n.name == gone; });
  std::erase_if(sc.pods, [&](const auto& p) { return p.node_name == gone; });
  const auto r = preview::run_preview(dump, {});
  // The two consolidatable nodes (m5.2xlarge $0.384 + m5.xlarge $0.192) become one c5.xlarge
  // ($0.17) for analytics-0, the web pod moving to an existing node: $0.406/h saved.
  REQUIRE(r.next_command);
  CHECK(r.next_command->method == "multi-node");
  CHECK(r.next_command->action == "replace");
  CHECK(r.next_command->nodes == std::vector<std::string>{"ip-10-0-1-20.ec2.internal", "ip-10-0-1-10.ec2.internal"});
  REQUIRE(r.next_command->replacement);
  CHECK(r.next_command->replacement->instance_type == "c5.xlarge");
  CHECK(r.next_command->saving_per_hour == Approx(0.406));
  // Each node carries its price's share of the saving.
  const auto& a = find(r.karpenter, "ip-10-0-1-10");
  const auto& b = find(r.karpenter, "ip-10-0-1-20");
  CHECK(a.in_next_command);
  CHECK(b.in_next_command);
  CHECK(a.method == "multi-node");
  CHECK(a.saving_per_hour == Approx(0.406 * 0.192 / 0.576));
  CHECK(b.saving_per_hour == Approx(0.406 * 0.384 / 0.576));
}

TEST_CASE("preview: drift from the NodePool hash and from requirements", "[preview][karpenter]")
{
  auto dump = fixture();
  // The node registered under an older NodePool template (same hash version).
  dump.nodes.at("ip-10-0-1-10.ec2.internal").node_pool_hash = "111";
  // A hash of another version is not compared (Karpenter re-hashes NodeClaims on upgrade).
  dump.nodes.at("ip-10-0-1-20.ec2.internal").node_pool_hash = "222";
  dump.nodes.at("ip-10-0-1-20.ec2.internal").node_pool_hash_version = "v2";
  // NodePool frozen now allows only c5: its m5.large no longer satisfies the requirements, but
  // its budget (nodes: 0) blocks every disruption.
  for (auto& p : dump.scenario.node_pools) {
    if (p.name == "frozen") {
      p.requirements.add(model::Requirement::make("karpenter.k8s.aws/instance-family", model::Operator::in, {"c5"}));
    }
  }
  SECTION("emptiness still goes first; the drifted node's own verdict")
  {
    const auto r = preview::run_preview(dump, {});
    REQUIRE(r.next_command);
    CHECK(r.next_command->method == "emptiness");
    const auto& d = find(r.karpenter, "ip-10-0-1-10");
    CHECK(d.decision == "delete"); // its web pod fits on an existing node
    CHECK(d.method == "drift");
    CHECK(d.saving_per_hour == Approx(0.192));
    CHECK(d.reason.find("NodePool default changed since the node was created (karpenter.sh/nodepool-hash 111 on the "
                        "node, 6821555240594823858 on the NodePool)")
          != std::string::npos);
    CHECK(find(r.karpenter, "ip-10-0-1-20").method == "single-node");
    const auto& frozen = find(r.karpenter, "ip-10-0-4-10");
    CHECK(frozen.decision == "keep");
    CHECK(frozen.reason_code == "budget");
    CHECK(frozen.reason
          == "drifted (its labels no longer satisfy the requirements of NodePool frozen), but the disruption budget of "
             "NodePool frozen allows no more Drifted disruptions now");
  }
  SECTION("without an empty node, drift is the next command")
  {
    const std::string gone = "ip-10-0-1-60.ec2.internal";
    std::erase_if(dump.scenario.nodes, [&](const auto& n) { return n.name == gone; });
    std::erase_if(dump.scenario.pods, [&](const auto& p) { return p.node_name == gone; });
    const auto r = preview::run_preview(dump, {});
    REQUIRE(r.next_command);
    CHECK(r.next_command->method == "drift");
    CHECK(r.next_command->action == "delete");
    CHECK(r.next_command->nodes == std::vector<std::string>{"ip-10-0-1-10.ec2.internal"});
    CHECK(r.next_command->saving_per_hour == Approx(0.192));
    CHECK(find(r.karpenter, "ip-10-0-1-10").in_next_command);
  }
}

TEST_CASE("preview: what real dumps carry is accepted, with warnings", "[preview][io]")
{
  using Json = nlohmann::json;
  const auto load = [](const std::string& name) {
    std::ifstream in(k_dir + name);
    return Json::parse(in);
  };
  Json nodes = load("nodes.json");
  Json pods = load("pods.json");
  // Older kubelets report attachable-volumes-*; capsim has no use for them.
  nodes["items"][0]["status"]["capacity"]["attachable-volumes-aws-ebs"] = "25";
  nodes["items"][0]["status"]["allocatable"]["attachable-volumes-aws-ebs"] = "25";
  // Device plugins' resources are read (the VPC CNI's branch interfaces).
  nodes["items"][0]["status"]["allocatable"]["vpc.amazonaws.com/pod-eni"] = "9";
  // A Fargate-like node without an instance-type label.
  Json fargate = nodes["items"][10];
  fargate["metadata"]["name"] = "fargate-ip-10-0-9-9.ec2.internal";
  fargate["metadata"]["labels"].erase("node.kubernetes.io/instance-type");
  fargate["metadata"]["labels"].erase("beta.kubernetes.io/instance-type");
  nodes["items"].push_back(fargate);
  // A node of a NodePool that is not in the dump (deleted, or not dumped).
  nodes["items"][3]["metadata"]["labels"]["karpenter.sh/nodepool"] = "gone";
  // A pod bound to a node that disappeared between the two kubectl calls.
  for (auto& p : pods["items"]) {
    if (p["metadata"]["name"] == "cache-5b6c7d8e9-hhhhh") {
      p["spec"]["nodeName"] = "ip-10-0-99-99.ec2.internal";
    }
  }
  // A sandboxed pod: admission set its overhead from a RuntimeClass that a pod dump does not hold.
  std::int64_t sandbox_cpu = 0;
  for (auto& p : pods["items"]) {
    if (p["metadata"]["name"] == "web-7c9d8f6b5-eeeee") {
      p["spec"]["runtimeClassName"] = "kata";
      p["spec"]["overhead"] = Json{{"cpu", "250m"}};
    }
  }
  auto files = fixture_files();
  files.nodes = write("nodes-real.json", nodes.dump(2));
  files.pods = write("pods-real.json", pods.dump(2));
  const auto dump = io::load_cluster_dump(files);
  CHECK(dump.scenario.nodes.size() == 12);
  CHECK(dump.scenario.pods.size() == 33);
  const auto pod_eni = model::find_resource_id("vpc.amazonaws.com/pod-eni");
  REQUIRE(pod_eni);
  const auto& listed = dump.scenario.nodes;
  const auto first = std::find_if(listed.begin(), listed.end(), [&](const auto& n) {
    return n.name == nodes["items"][0]["metadata"]["name"].get<std::string>();
  });
  REQUIRE(first != listed.end());
  REQUIRE(first->allocatable);
  CHECK((*first->allocatable)[*pod_eni] == 9);
  CHECK(first->allocatable->cpu() == 3920);
  for (const auto& p : dump.scenario.pods) {
    if (p.name == "web-7c9d8f6b5-eeeee") {
      sandbox_cpu = p.spec->requests.cpu();
    }
  }
  CHECK(sandbox_cpu == 500 + 250); // the container's 500m and the overhead
  REQUIRE(dump.warnings.size() == 3);
  CHECK(dump.warnings[0] == "node ip-10-0-1-40.ec2.internal is labelled karpenter.sh/nodepool=gone, which is not in "
                                + files.node_pools + ": not taken as a Karpenter node");
  CHECK(dump.warnings[1] == "node fargate-ip-10-0-9-9.ec2.internal has no node.kubernetes.io/instance-type label: "
                            "capacity from its status, price unknown");
  CHECK(dump.warnings[2] == "1 pod(s) bound to nodes that are not in " + files.nodes
                                + " were left out (default/cache-5b6c7d8e9-hhhhh)");
  const auto r = preview::run_preview(dump, {});
  CHECK(r.warnings == dump.warnings);
  const auto& gone = find(r.karpenter, "ip-10-0-1-40");
  CHECK(gone.decision == "keep");
  CHECK(gone.reason_code == "nodepool-not-found");
  CHECK(find(r.karpenter, "fargate-ip-10-0-9-9").reason_code == "not-karpenter");
  CHECK(find(r.cluster_autoscaler, "fargate-ip-10-0-9-9").reason_code == "not-autoscaled");
  // The node whose status listed attachable volumes keeps its verdict.
  CHECK(find(r.karpenter, "ip-10-0-1-10").decision == "delete");
  // The same stream as a scenario file stays strict.
  std::string text = "apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h}\n---\n" + nodes.dump(2);
  CHECK_THROWS_AS(io::parse_scenario(text, "s.yaml"), InputError);
}

TEST_CASE("preview: the price rule and do-not-disrupt durations", "[preview][karpenter]")
{
  using Json = nlohmann::json;
  const auto load = [](const std::string& name) {
    std::ifstream in(k_dir + name);
    return Json::parse(in);
  };
  Json nodes = load("nodes.json");
  Json pods = load("pods.json");
  // A c5.large ($0.085, the cheapest c5/m5 type) in us-east-1c, where no other node is, running
  // a pod pinned to that zone: it needs a new node there, and no option is below $0.085.
  Json node = nodes["items"][5];
  const std::string name = "ip-10-0-1-80.ec2.internal";
  node["metadata"]["name"] = name;
  for (const char* key : {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"}) {
    node["metadata"]["labels"][key] = "c5.large";
  }
  for (const char* key : {"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone",
                          "topology.ebs.csi.aws.com/zone"}) {
    node["metadata"]["labels"][key] = "us-east-1c";
  }
  node["metadata"]["labels"]["karpenter.k8s.aws/instance-family"] = "c5";
  node["metadata"]["labels"]["kubernetes.io/hostname"] = name;
  nodes["items"].push_back(node);
  for (const auto& p : Json(pods["items"])) {
    if (p["metadata"]["name"] == "web-7c9d8f6b5-aaaaa") {
      Json pinned = p;
      pinned["metadata"]["name"] = "zonal-0";
      pinned["spec"]["nodeName"] = name;
      pinned["spec"]["nodeSelector"] = {{"topology.kubernetes.io/zone", "us-east-1c"}};
      pods["items"].push_back(pinned);
    }
    // A 2-hour do-not-disrupt on the web pod of ip-10-0-1-70 (started 11:59:30).
    if (p["metadata"]["name"] == "web-7c9d8f6b5-eeeee") {
      for (auto& q : pods["items"]) {
        if (q["metadata"]["name"] == "web-7c9d8f6b5-eeeee") {
          q["metadata"]["annotations"] = {{"karpenter.sh/do-not-disrupt", "2h"}};
        }
      }
    }
  }
  auto files = fixture_files();
  files.nodes = write("nodes-price.json", nodes.dump(2));
  files.pods = write("pods-price.json", pods.dump(2));
  const auto r = preview::run_preview(io::load_cluster_dump(files), {});
  const auto& v = find(r.karpenter, "ip-10-0-1-80");
  CHECK(v.price_per_hour == Approx(0.085));
  CHECK(v.decision == "keep");
  CHECK(v.reason_code == "price");
  CHECK(v.reason == "can't replace with a cheaper node: the best option c5.large launches at up to $0.0850/h, not "
                    "below the current $0.0850/h");
  const auto& dnd = find(r.karpenter, "ip-10-0-1-70");
  CHECK(dnd.reason_code == "do-not-disrupt");
  CHECK(dnd.reason == "pod web/web-7c9d8f6b5-eeeee has the \"karpenter.sh/do-not-disrupt\" annotation (until "
                      "2026-11-29T13:59:30Z)");
}

TEST_CASE("preview: EC2NodeClass dumps and their drift", "[preview][karpenter]")
{
  auto files = fixture_files();
  files.node_classes = k_dir + "nodeclasses.yaml";
  auto dump = io::load_cluster_dump(files);
  REQUIRE(dump.scenario.node_classes.size() == 1);
  CHECK(dump.scenario.node_classes[0].ami_family == "AL2023");
  CHECK(dump.node_class_hashes.at("default").hash == "15535182697325354914");
  // Unchanged hashes: the same verdicts as without the file.
  CHECK(find(preview::run_preview(dump, {}).karpenter, "ip-10-0-1-20").method == "single-node");
  // The node was launched from an older EC2NodeClass: drift replaces it whatever the price.
  dump.nodes.at("ip-10-0-1-20.ec2.internal").node_class_hash = "42";
  const auto r = preview::run_preview(dump, {});
  const auto& v = find(r.karpenter, "ip-10-0-1-20");
  CHECK(v.decision == "replace");
  CHECK(v.method == "drift");
  CHECK(v.reason.find("EC2NodeClass default changed since the node was created (karpenter.k8s.aws/ec2nodeclass-hash 42 "
                      "on the node, 15535182697325354914 on the EC2NodeClass)")
        != std::string::npos);
  REQUIRE(v.replacement);
  CHECK(v.replacement->instance_type == "c5.xlarge");
  CHECK(v.saving_per_hour == Approx(0.384 - 0.17));
}

TEST_CASE("preview: --volumes keeps pods where their volumes are", "[preview][karpenter][volumes]")
{
  // The underutilized m5.xlarge's web pod gets a claim bound to an EBS volume in us-east-1c, where
  // the cluster has no node: instead of moving the pod to the m5.2xlarge in us-east-1a (deleting
  // its node), consolidation replaces the node with a cheaper one in the volume's zone. (The
  // volume is put in another zone than the pod's node so that the verdict shows it.)
  auto pods = nlohmann::json::parse(std::ifstream(k_dir + "pods.json"));
  bool found = false;
  for (auto& p : pods["items"]) {
    if (p["metadata"]["name"] == "web-7c9d8f6b5-aaaaa") {
      p["spec"]["volumes"].push_back({{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "data-web"}}}});
      found = true;
    }
  }
  REQUIRE(found);
  const auto volumes = nlohmann::json{
      {"apiVersion", "v1"},
      {"kind", "List"},
      {"items",
       {{{"apiVersion", "v1"},
         {"kind", "PersistentVolumeClaim"},
         {"metadata", {{"name", "data-web"}, {"namespace", "web"}}},
         {"spec", {{"storageClassName", "gp3"}, {"volumeName", "pvc-1234"}}},
         {"status", {{"phase", "Bound"}}}},
        {{"apiVersion", "v1"},
         {"kind", "PersistentVolume"},
         {"metadata", {{"name", "pvc-1234"}}},
         {"spec",
          {{"storageClassName", "gp3"},
           {"nodeAffinity",
            {{"required",
              {{"nodeSelectorTerms",
                {{{"matchExpressions",
                   {{{"key", "topology.ebs.csi.aws.com/zone"}, {"operator", "In"}, {"values", {"us-east-1c"}}}}}}}}}}}}}}},
        {{"apiVersion", "storage.k8s.io/v1"},
         {"kind", "StorageClass"},
         {"metadata", {{"name", "gp3"}}},
         {"provisioner", "ebs.csi.aws.com"},
         {"volumeBindingMode", "WaitForFirstConsumer"}}}}};
  auto files = fixture_files();
  files.pods = write("pods-with-volume.json", pods.dump(2));
  files.volumes = write("volumes.json", volumes.dump(2));
  const auto dump = io::load_cluster_dump(files);
  const auto pod = std::find_if(dump.scenario.pods.begin(), dump.scenario.pods.end(),
                                [](const model::Pod& p) { return p.name == "web-7c9d8f6b5-aaaaa"; });
  REQUIRE(pod != dump.scenario.pods.end());
  REQUIRE(pod->spec->volume_affinity.size() == 1);
  const auto r = preview::run_preview(dump, {});
  const auto& under = find(r.karpenter, "ip-10-0-1-10");
  CHECK(under.decision == "replace");
  REQUIRE(under.replacement);
  CHECK(under.replacement->zone == "us-east-1c");
  CHECK(under.saving_per_hour > 0);
  // Without --volumes the claim is ignored and the node is deleted as before.
  files.volumes.clear();
  const auto without = preview::run_preview(io::load_cluster_dump(files), {});
  CHECK(find(without.karpenter, "ip-10-0-1-10").decision == "delete");
  // A file of another kind is refused with the option's hint.
  files.volumes = k_dir + "pdbs.json";
  const auto errors = errors_of(files);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("--volumes expects PersistentVolumeClaim or PersistentVolume or StorageClass objects (kubectl "
                       "get pvc,pv,storageclass -A -o json)")
        != std::string::npos);
}

TEST_CASE("preview: a static NodePool's nodes are never consolidated, drifted, they are replaced from the template",
          "[preview][karpenter][static]")
{
  auto dump = fixture();
  const auto empty_node = find(preview::run_preview(dump, {}).karpenter, "ip-10-0-1-60"); // (a copy: the result goes)
  REQUIRE(empty_node.method == "emptiness"); // the fixture's empty node, as a dynamic NodePool's
  const std::string pool = empty_node.pool;
  for (auto& p : dump.scenario.node_pools) {
    if (p.name == pool) {
      p.replicas = 5;
    }
  }
  SECTION("kept")
  {
    const auto r = preview::run_preview(dump, {});
    const auto& v = find(r.karpenter, "ip-10-0-1-60");
    CHECK(v.decision == "keep");
    CHECK(v.reason_code == "static");
    CHECK(v.reason == "NodePool " + pool + " is static (spec.replicas): Karpenter never consolidates its nodes");
  }
  SECTION("drifted")
  {
    dump.nodes.at("ip-10-0-1-60.ec2.internal").node_pool_hash = "111";
    const auto r = preview::run_preview(dump, {});
    const auto& v = find(r.karpenter, "ip-10-0-1-60");
    CHECK(v.decision == "replace");
    CHECK(v.method == "drift");
    REQUIRE(v.replacement);
    CHECK(v.reason.find("static NodePool " + pool + ": replaced by a node from its template first") != std::string::npos);
  }
}

// Pods with a deletionTimestamp still on their node (a rollout caught mid-way). Karpenter's
// cluster state keeps their requests on the node until they are gone; pod.IsReschedulable
// moves only a StatefulSet's (its replacement waits for the name), and none is evicted, so
// none blocks (IsDisruptable, pdb.isEvictable). Cluster Autoscaler treats them as any other pod
// until they have been terminating for longer than their grace period plus 30 s
// (drain.IsPodLongTerminating), then leaves them out of utilization and drains.
TEST_CASE("preview: pods being deleted hold their room, only a StatefulSet's move", "[preview][karpenter][cas]")
{
  using Json = nlohmann::json;
  std::ifstream in(k_dir + "pods.json");
  const Json pods = Json::parse(in);
  const auto pod_named = [&](const std::string& name) {
    for (const auto& p : pods["items"]) {
      if (p["metadata"]["name"] == name) {
        return p;
      }
    }
    FAIL("no pod " << name);
    return Json();
  };
  // A copy of `like` named `name` on `node` (short name), deleted at `deleted`.
  const auto deleted_copy = [&](const std::string& like, const std::string& name, const std::string& node,
                                const std::string& deleted) {
    Json p = pod_named(like);
    p["metadata"]["name"] = name;
    p["metadata"]["deletionTimestamp"] = deleted;
    p["metadata"]["deletionGracePeriodSeconds"] = 30;
    p["spec"]["nodeName"] = node + ".ec2.internal";
    return p;
  };
  const auto run = [&](const std::vector<Json>& extra, const std::string& tag) {
    Json all = pods;
    for (const auto& p : extra) {
      all["items"].push_back(p);
    }
    auto files = fixture_files();
    files.pods = write("pods-deleted-" + tag + ".json", all.dump(2));
    return preview::run_preview(io::load_cluster_dump(files), {});
  };

  SECTION("a Deployment's pod leaves an empty node empty; CA moves it while it is terminating")
  {
    const auto r = run({deleted_copy("web-7c9d8f6b5-aaaaa", "web-7c9d8f6b5-zzzzz", "ip-10-0-1-60",
                                     "2026-11-29T11:59:50Z")},
                       "rs");
    CHECK(r.pods == 11);
    REQUIRE(r.next_command);
    CHECK(r.next_command->method == "emptiness");
    CHECK(r.next_command->nodes == std::vector<std::string>{"ip-10-0-1-60.ec2.internal"});
    const auto& ca = find(r.cluster_autoscaler, "ip-10-0-1-60");
    CHECK(ca.decision == "scale-down");
    CHECK(ca.reason_code == "underutilized");
    CHECK(ca.cpu_utilization == Approx((125.0 + 500) / 1930).epsilon(1e-5));
    CHECK(ca.reason.find("web/web-7c9d8f6b5-zzzzz -> ") != std::string::npos);
  }

  SECTION("terminating longer than its grace period plus 30 s, CA leaves it out")
  {
    const auto r = run({deleted_copy("web-7c9d8f6b5-aaaaa", "web-7c9d8f6b5-zzzzz", "ip-10-0-1-60",
                                     "2026-11-29T11:58:59Z")},
                       "long");
    const auto& ca = find(r.cluster_autoscaler, "ip-10-0-1-60");
    CHECK(ca.decision == "scale-down");
    CHECK(ca.reason_code == "empty");
    CHECK(find(r.karpenter, "ip-10-0-1-60").method == "emptiness");
  }

  SECTION("a StatefulSet's pod is rescheduled, so its node is not empty, and its PDB does not block")
  {
    // A second payments pod (payments-0's PDB allows no disruption) on the empty m5.large.
    const auto r = run({deleted_copy("payments-0", "payments-1", "ip-10-0-1-60", "2026-11-29T11:59:50Z")}, "sts");
    const auto& v = find(r.karpenter, "ip-10-0-1-60");
    CHECK(v.method != "emptiness");
    CHECK(v.decision == "delete");
    CHECK(v.pods == 1);
    CHECK(v.saving_per_hour == Approx(0.096));
    REQUIRE(r.next_command);
    CHECK(r.next_command->method != "emptiness");
    CHECK(find(r.karpenter, "ip-10-0-1-40").reason_code == "pdb"); // (its maxUnavailable 0 still blocks payments-0)
  }

  SECTION("their room stays taken: with every other node full of them, the web pod needs a new node")
  {
    std::vector<Json> extra;
    for (const char* node : {"ip-10-0-1-20", "ip-10-0-1-30", "ip-10-0-1-40", "ip-10-0-1-50", "ip-10-0-1-60",
                             "ip-10-0-1-70", "ip-10-0-3-10", "ip-10-0-4-10", "ip-10-0-2-10", "ip-10-0-0-5"}) {
      Json p = deleted_copy("web-7c9d8f6b5-aaaaa", std::string("filler-") + node, node, "2026-11-29T11:59:50Z");
      p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "8";
      extra.push_back(p);
    }
    const auto r = run(extra, "full");
    CHECK(r.pods == 11);
    // The m5.xlarge's web pod fit on the m5.2xlarge; now it fits nowhere: an m5.large ($0.096).
    const auto& under = find(r.karpenter, "ip-10-0-1-10");
    CHECK(under.decision == "replace");
    REQUIRE(under.replacement);
    CHECK(under.replacement->price_per_hour < 0.192);
    // The m5.large holding DaemonSet pods and a filler is still empty.
    CHECK(find(r.karpenter, "ip-10-0-1-60").method == "emptiness");
  }
}

// pdb.isEvictable: under a PDB whose unhealthyPodEvictionPolicy is AlwaysAllow, a pod whose Ready
// condition is False may be evicted whatever the budget (consolidation_test.go "can replace
// nodes, considers PDB policy"); and the disruption controller counts only Ready pods healthy.
TEST_CASE("preview: unready pods under an AlwaysAllow PDB do not block", "[preview][karpenter]")
{
  using Json = nlohmann::json;
  const auto load = [](const std::string& name) {
    std::ifstream in(k_dir + name);
    return Json::parse(in);
  };
  const auto verdict = [&](bool always_allow, bool unready) {
    Json pdbs = load("pdbs.json");
    Json pods = load("pods.json");
    if (always_allow) {
      pdbs["items"][0]["spec"]["unhealthyPodEvictionPolicy"] = "AlwaysAllow";
    }
    for (auto& p : pods["items"]) {
      if (unready && p["metadata"]["name"] == "payments-0") {
        p["status"]["conditions"].push_back(
            {{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", "2026-11-29T11:00:00Z"}});
      }
    }
    const std::string tag = fmt::format("{}{}", always_allow, unready);
    auto files = fixture_files();
    files.pdbs = write("pdbs-policy-" + tag + ".json", pdbs.dump(2));
    files.pods = write("pods-policy-" + tag + ".json", pods.dump(2));
    return find(preview::run_preview(io::load_cluster_dump(files), {}).karpenter, "ip-10-0-1-40");
  };
  // payments-0's PDB (maxUnavailable 0) allows no disruption: its node is kept...
  CHECK(verdict(false, false).reason_code == "pdb");
  CHECK(verdict(true, false).reason_code == "pdb"); // ...a Ready pod under AlwaysAllow too
  CHECK(verdict(false, true).reason_code == "pdb"); // ...an unready one under IfHealthyBudget too
  // Unready under AlwaysAllow: nothing blocks; its 500m fits elsewhere, so the node goes.
  const auto v = verdict(true, true);
  CHECK(v.reason_code != "pdb");
  CHECK(v.decision == "delete");
}

// The disruption controller's DisruptionsAllowed counts neither pods being deleted nor unready
// pods as healthy: under minAvailable 1, payments-0 alone (healthy) leaves no disruption, and
// neither a deleted second payments pod nor, once payments-0 is unready, anything adds one.
TEST_CASE("preview: PDB counts leave out deleted and unready pods", "[preview][karpenter][cas]")
{
  using Json = nlohmann::json;
  const auto load = [](const std::string& name) {
    std::ifstream in(k_dir + name);
    return Json::parse(in);
  };
  const auto verdict = [&](const std::string& min_available, bool deleted_copy, bool unready) {
    Json pdbs = load("pdbs.json");
    Json pods = load("pods.json");
    pdbs["items"][0]["spec"].erase("maxUnavailable");
    pdbs["items"][0]["spec"]["minAvailable"] = std::stoi(min_available);
    Json copy;
    for (auto& p : pods["items"]) {
      if (p["metadata"]["name"] == "payments-0") {
        copy = p;
        if (unready) {
          p["status"]["conditions"].push_back(
              {{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", "2026-11-29T11:00:00Z"}});
        }
      }
    }
    if (deleted_copy) {
      copy["metadata"]["name"] = "payments-1";
      copy["metadata"]["deletionTimestamp"] = "2026-11-29T11:59:50Z";
      copy["spec"]["nodeName"] = "ip-10-0-1-60.ec2.internal";
      pods["items"].push_back(copy);
    }
    const std::string tag = fmt::format("{}{}{}", min_available, deleted_copy, unready);
    auto files = fixture_files();
    files.pdbs = write("pdbs-count-" + tag + ".json", pdbs.dump(2));
    files.pods = write("pods-count-" + tag + ".json", pods.dump(2));
    const auto result = preview::run_preview(io::load_cluster_dump(files), {});
    // Karpenter's and Cluster Autoscaler's reasons (both read the PDB's DisruptionsAllowed as the
    // disruption controller counts it; the CA view moves a recently deleted pod as any other).
    return std::pair{find(result.karpenter, "ip-10-0-1-40").reason_code,
                     find(result.cluster_autoscaler, "ip-10-0-1-40").reason_code};
  };
  const auto pdb = std::pair<std::string, std::string>{"pdb", "pdb"};
  // minAvailable 0 allows payments-0 to go, minAvailable 1 does not.
  CHECK(verdict("0", false, false).first != "pdb");
  CHECK(verdict("0", false, false).second != "pdb");
  CHECK(verdict("1", false, false) == pdb);
  // A deleted copy would make two healthy pods of one wanted.
  CHECK(verdict("1", true, false) == pdb);
  // Unready, payments-0 leaves none healthy: even minAvailable 0 allows no disruption.
  CHECK(verdict("0", false, true) == pdb);
}

TEST_CASE("preview: a JSON List is read an item at a time and keeps every place", "[preview][io]")
{
  using Json = nlohmann::json;
  const auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  // FILE:LINE:COL of the first `needle` in `text` (written to `path`).
  const auto place = [](const std::string& path, const std::string& text, const std::string& needle) {
    const auto at = text.find(needle);
    REQUIRE(at != std::string::npos);
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
    const auto newline = text.rfind('\n', at);
    const auto column = newline == std::string::npos ? at + 1 : at - newline;
    return fmt::format("{}:{}:{}: ", path, line, column);
  };
  SECTION("the same dump as read whole")
  {
    // A comment first: not JSON, so each file is parsed as one YAML document.
    auto whole = fixture_files();
    whole.nodes = write("nodes-whole.json", "# whole\n" + read(whole.nodes));
    whole.pods = write("pods-whole.json", "# whole\n" + read(whole.pods));
    whole.pdbs = write("pdbs-whole.json", "# whole\n" + read(whole.pdbs));
    const auto by_item = io::load_cluster_dump(fixture_files());
    const auto at_once = io::load_cluster_dump(whole);
    REQUIRE(by_item.scenario.pods.size() == at_once.scenario.pods.size());
    for (std::size_t i = 0; i < by_item.scenario.pods.size(); ++i) {
      const auto& a = by_item.scenario.pods[i];
      const auto& b = at_once.scenario.pods[i];
      CHECK(a.name == b.name);
      CHECK(a.node_name == b.node_name);
      CHECK(a.requests == b.requests);
      CHECK(a.spec->labels == b.spec->labels);
      CHECK(a.spec->priority == b.spec->priority);
    }
    CHECK(by_item.pods.size() == at_once.pods.size());
    CHECK(by_item.newest == at_once.newest);
    CHECK(preview::render_json(preview::run_preview(by_item, {}))
          == preview::render_json(preview::run_preview(at_once, {})));
  }
  const Json pods = Json::parse(read(k_dir + "pods.json"));
  Json pod = pods["items"][20];
  pod["metadata"]["name"] = "odd-one";
  pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots";
  SECTION("an error in an item, on its own lines and on one line with the others")
  {
    for (const int indent : {4, -1}) {
      Json list = pods;
      list["items"].push_back(pod);
      const std::string text = list.dump(indent);
      auto files = fixture_files();
      files.pods = write(fmt::format("pods-bad-{}.json", indent + 1), text);
      const auto errors = errors_of(files);
      CAPTURE(indent, errors);
      REQUIRE(errors.size() == 1);
      CHECK(errors[0].rfind(place(files.pods, text, "\"lots\"") + "error: ", 0) == 0);
    }
  }
  SECTION("a bad timestamp on one line, a duplicate name on many and on one")
  {
    Json list = pods;
    Json copy = pods["items"][20];
    copy["metadata"]["creationTimestamp"] = "yesterday";
    list["items"].push_back(copy);
    const std::string text = list.dump();
    auto files = fixture_files();
    files.pods = write("pods-stamp.json", text);
    const auto stamp = errors_of(files);
    CAPTURE(stamp);
    REQUIRE(stamp.size() == 1);
    CHECK(stamp[0] == place(files.pods, text, "\"yesterday\"") + "error: 'yesterday' is not an RFC 3339 timestamp");
    list["items"].back()["metadata"]["creationTimestamp"] = pods["items"][20]["metadata"]["creationTimestamp"];
    const auto name = pods["items"][20]["metadata"]["name"].get<std::string>();
    for (const int indent : {2, -1}) {
      const std::string twice = list.dump(indent);
      files.pods = write(fmt::format("pods-twice-{}.json", indent + 1), twice);
      const std::string key = indent < 0 ? "\"name\":" : "\"name\": ";
      const auto first = twice.find(key + "\"" + name + "\"");
      const auto second = twice.find(key + "\"" + name + "\"", first + 1);
      REQUIRE(second != std::string::npos);
      const auto line_of = [&](std::size_t at) {
        return 1 + std::count(twice.begin(), twice.begin() + static_cast<std::ptrdiff_t>(at), '\n');
      };
      const auto newline = twice.rfind('\n', second);
      const auto line_start = newline == std::string::npos ? 0 : newline + 1;
      const auto column = second + key.size() - line_start + 1;
      const auto duplicate = errors_of(files);
      REQUIRE(duplicate.size() == 1);
      CHECK(duplicate[0] == fmt::format("{}:{}:{}: error: duplicate Pod '{}' (first defined on line {})", files.pods,
                                        line_of(second), column, name, line_of(first)));
    }
  }
}
