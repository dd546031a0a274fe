#include "core/preview/preview.hpp"

#include "core/base/quantity.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace capsim::preview {

namespace {

using Json = nlohmann::ordered_json;

double money(double usd)
{
  return std::round(usd * 1e6) / 1e6;
}

double monthly(double per_hour)
{
  return std::round(per_hour * k_hours_per_month * 1e4) / 1e4;
}

Json replacement_json(const std::optional<Replacement>& r)
{
  if (!r) {
    return nullptr;
  }
  Json j;
  j["instance_type"] = r->instance_type;
  j["zone"] = r->zone;
  j["capacity_type"] = r->capacity_type;
  j["price_per_hour"] = money(r->price_per_hour);
  j["instance_type_options"] = r->instance_types;
  return j;
}

Json node_json(const NodeVerdict& v, bool karpenter)
{
  Json j;
  j["name"] = v.name;
  j["instance_type"] = v.instance_type;
  j["zone"] = v.zone;
  j["capacity_type"] = v.capacity_type;
  j["pool"] = v.pool;
  j["price_per_hour"] = money(v.price_per_hour);
  j["pods"] = v.pods;
  j["decision"] = v.decision;
  if (karpenter) {
    j["method"] = v.method;
    j["in_next_command"] = v.in_next_command;
    j["replacement"] = replacement_json(v.replacement);
  } else {
    j["utilization"] = {{"cpu", v.cpu_utilization}, {"memory", v.memory_utilization}, {"value", v.utilization}};
  }
  j["saving_per_hour"] = money(v.saving_per_hour);
  j["saving_per_month"] = monthly(v.saving_per_hour);
  j["reason_code"] = v.reason_code;
  j["reason"] = v.reason;
  return j;
}

Json totals_json(const std::vector<NodeVerdict>& nodes)
{
  Json counts = Json::object();
  double saving = 0;
  for (const auto& v : nodes) {
    counts[v.decision] = counts.value(v.decision, 0) + 1;
    saving += v.saving_per_hour;
  }
  Json j;
  j["nodes"] = nodes.size();
  j["decisions"] = counts;
  j["saving_per_hour"] = money(saving);
  j["saving_per_month"] = monthly(saving);
  return j;
}

// A plain left-aligned table; the last column is not padded.
std::string table(const std::vector<std::vector<std::string>>& rows)
{
  std::vector<std::size_t> width;
  for (const auto& r : rows) {
    width.resize(std::max(width.size(), r.size()), 0);
    for (std::size_t i = 0; i < r.size(); ++i) {
      width[i] = std::max(width[i], r[i].size());
    }
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += i + 1 < r.size() ? fmt::format("{:<{}}  ", r[i], width[i]) : r[i];
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  return out;
}

std::string usd(double v)
{
  return fmt::format("{:.4f}", v);
}

std::string usd_month(double per_hour)
{
  return fmt::format("{:.2f}", per_hour * k_hours_per_month);
}

} // namespace

std::string render_json(const PreviewResult& r)
{
  Json j;
  j["capsim"] = {{"version", CAPSIM_VERSION}};
  j["preview"] = {{"now", format_utc(r.now)}, {"region", r.region}, {"catalog", r.catalog},
                  {"hours_per_month", k_hours_per_month}, {"pods", r.pods}, {"pending_pods", r.pending_pods}};
  Json k;
  if (r.next_command) {
    const auto& c = *r.next_command;
    Json cmd;
    cmd["method"] = c.method;
    cmd["action"] = c.action;
    cmd["nodes"] = c.nodes;
    cmd["replacement"] = replacement_json(c.replacement);
    cmd["saving_per_hour"] = money(c.saving_per_hour);
    cmd["saving_per_month"] = monthly(c.saving_per_hour);
    cmd["detail"] = c.detail;
    k["next_command"] = cmd;
  } else {
    k["next_command"] = nullptr;
  }
  k["nodes"] = Json::array();
  for (const auto& v : r.karpenter) {
    k["nodes"].push_back(node_json(v, true));
  }
  k["totals"] = totals_json(r.karpenter);
  j["karpenter"] = k;
  Json ca;
  ca["utilization_threshold"] = r.ca_threshold;
  ca["unneeded_time_s"] = r.ca_unneeded_time / k_second;
  ca["nodes"] = Json::array();
  for (const auto& v : r.cluster_autoscaler) {
    ca["nodes"].push_back(node_json(v, false));
  }
  ca["totals"] = totals_json(r.cluster_autoscaler);
  j["cluster_autoscaler"] = ca;
  j["warnings"] = r.warnings;
  return j.dump(2) + "\n";
}

std::string render_text(const PreviewResult& r)
{
  std::string out = fmt::format("capsim preview at {} ({}, catalog {}): {} nodes, {} pods ({} pending)\n\n",
                                format_utc(r.now), r.region, r.catalog, r.karpenter.size(), r.pods, r.pending_pods);
  out += "Karpenter, next command: ";
  if (r.next_command) {
    const auto& c = *r.next_command;
    out += fmt::format("{} {} {}", c.method, c.action, fmt::join(c.nodes, ", "));
    if (c.replacement) {
      out += fmt::format(" -> {} {} {} ${}/h", c.replacement->instance_type, c.replacement->zone,
                         c.replacement->capacity_type, usd(c.replacement->price_per_hour));
    }
    out += fmt::format("; saves ${}/h (${}/month)\n", usd(c.saving_per_hour), usd_month(c.saving_per_hour));
  } else {
    out += "none (nothing to disrupt now)\n";
  }
  out += "\nKarpenter, per node (* = in the next command; other verdicts are what Karpenter would do to that node "
         "alone, drift or single-node consolidation: not additive):\n";
  std::vector<std::vector<std::string>> rows{
      {"NODE", "TYPE", "POOL", "$/H", "DECISION", "REPLACEMENT", "SAVING-$/H", "SAVING-$/MONTH", "REASON"}};
  double karpenter_saving = 0;
  for (const auto& v : r.karpenter) {
    rows.push_back({v.name + (v.in_next_command ? " *" : ""), v.instance_type.empty() ? "-" : v.instance_type,
                    v.pool.empty() ? "-" : v.pool, usd(v.price_per_hour),
                    v.decision + (v.method.empty() ? "" : " (" + v.method + ")"),
                    v.replacement ? v.replacement->instance_type + " $" + usd(v.replacement->price_per_hour) : "-",
                    usd(v.saving_per_hour), usd_month(v.saving_per_hour), v.reason});
    karpenter_saving += v.saving_per_hour;
  }
  out += table(rows);
  out += fmt::format("sum of per-node savings: ${}/h (${}/month)\n", usd(karpenter_saving), usd_month(karpenter_saving));

  out += fmt::format("\nCluster Autoscaler baseline (scale-down threshold {:.0f}%, after {} unneeded):\n",
                     100 * r.ca_threshold, format_duration(r.ca_unneeded_time));
  rows = {{"NODE", "GROUP", "TYPE", "$/H", "UTIL", "DECISION", "SAVING-$/H", "SAVING-$/MONTH", "REASON"}};
  double ca_saving = 0;
  for (const auto& v : r.cluster_autoscaler) {
    rows.push_back({v.name, v.pool.empty() ? "-" : v.pool, v.instance_type.empty() ? "-" : v.instance_type,
                    usd(v.price_per_hour), fmt::format("{:.0f}%", 100 * v.utilization), v.decision,
                    usd(v.saving_per_hour), usd_month(v.saving_per_hour), v.reason});
    ca_saving += v.saving_per_hour;
  }
  out += table(rows);
  out += fmt::format("total: ${}/h (${}/month)\n", usd(ca_saving), usd_month(ca_saving));
  for (const auto& w : r.warnings) {
    out += "warning: " + w + "\n";
  }
  return out;
}

} // namespace capsim::preview
