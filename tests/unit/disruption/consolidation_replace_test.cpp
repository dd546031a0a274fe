// Ports of the Context("Replace") cases of core:pkg/controllers/disruption/consolidation_test.go
// (kubernetes-sigs/karpenter HEAD 2266468) not already in consolidation_test.cpp. Each case names
// its upstream `It(...)` / `DescribeTable(...)` entry. The suite's BeforeEach: a
// WhenEmptyOrUnderutilized NodePool, consolidateAfter 0s, budgets 100%, the SpotToSpotConsolidation
// gate on, the fake.InstanceTypesAssorted() catalog; the candidate ("node-0") is of the most
// expensive on-demand (or spot) type with allocatable {cpu: 32}. Upstream drives one reconcile
// with no-op validators; here the engine runs, so a command is validated 15 s after it is
// computed and its replacement initializes 75 s after launch before the candidate is drained.
// Upstream reads the replacement NodeClaim's instance-type requirement; capsim's decision log
// gives the replacement's options (count, first five names in order) and the cluster the type
// launched.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace capsim::karpenter::dtest {

namespace {

const model::Labels k_app = {{"app", "test"}};

struct ReplaceSuite : ConsolidationSuite
{
  using ConsolidationSuite::ConsolidationSuite;

  // nodeClaim / spotNodeClaim of the suite: the most expensive on-demand (spot) type.
  std::string candidate(bool spot, const std::string& name = "node-0",
                        const model::Resources& allocatable = resources(32000))
  {
    return sim.node(name, "default", sim.most_expensive(spot ? "spot" : "on-demand").name, allocatable);
  }

};

const char* entry_name(bool spot)
{
  return spot ? "if the candidate is spot node" : "if the candidate is on-demand node";
}

double offering_price(const catalog::InstanceType& t)
{
  double p = std::numeric_limits<double>::infinity();
  for (const auto& o : t.offerings) {
    p = std::min(p, o.price_per_hour);
  }
  return p;
}

bool is_spot(const catalog::InstanceType& t)
{
  return std::any_of(t.offerings.begin(), t.offerings.end(),
                     [](const catalog::Offering& o) { return o.capacity_type == "spot"; });
}

// The suite's spotInstances, stably sorted by price (upstream's sort.Slice breaks ties at random;
// every tie here is between types of the same size and price).
std::vector<catalog::InstanceType> spot_by_price(std::vector<catalog::InstanceType> types)
{
  std::vector<catalog::InstanceType> out;
  for (auto& t : types) {
    if (is_spot(t)) {
      out.push_back(std::move(t));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const catalog::InstanceType& a, const catalog::InstanceType& b) {
    return offering_price(a) < offering_price(b);
  });
  return out;
}

// The truncation cases' catalog: the first 18 spot types of fake.InstanceTypesAssorted() (in
// its order), priced 1.00 + 0.1 * i, except the 17th, forced to $0.001.
std::vector<catalog::InstanceType> eighteen_priced_spot_types()
{
  std::vector<catalog::InstanceType> out;
  for (auto& t : testing::fake_instance_types_assorted()) {
    if (out.size() < 18 && is_spot(t)) {
      out.push_back(std::move(t));
    }
  }
  REQUIRE(out.size() == 18);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].offerings[0].price_per_hour = 1.00 + static_cast<double>(i) * 0.1;
  }
  out[16].offerings[0].price_per_hour = 0.001;
  return out;
}

// The decision detail of a single-claim replacement whose options are `names` (price order).
std::string options_detail(const std::vector<std::string>& names, std::size_t count)
{
  REQUIRE(names.size() >= 5);
  return fmt::format("[{}, {}, {}, {}, {} and {} other(s) ({} option(s), spot)]", names[0], names[1], names[2],
                     names[3], names[4], count - 5, count);
}

// The shared body of the three spot-to-spot truncation cases: the candidate is of the most
// expensive of the 18 types (index 17); `keep` cheapest options are expected.
void expect_spot_to_spot_truncation(std::optional<int> min_values, std::size_t keep)
{
  const auto types = eighteen_priced_spot_types();
  const std::string cheapest = types[16].name;
  const std::string most_expensive = types[17].name;
  const auto expected = spot_by_price(types);
  std::vector<std::string> expected_names;
  for (std::size_t i = 0; i < keep; ++i) {
    expected_names.push_back(expected[i].name);
  }
  REQUIRE(expected_names.front() == cheapest);

  ReplaceSuite s(types);
  if (min_values) {
    s.pool().requirements.add(model::Requirement::make(std::string(model::labels::k_instance_type),
                                                       model::Operator::exists, {}, min_values));
  }
  s.sim.node("node-0", "default", most_expensive, resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  const auto& n = only_alive(s.sim);
  CHECK(n.name != "node-0");
  REQUIRE(n.instance_type != nullptr);
  CHECK(n.instance_type->name != most_expensive);
  CHECK(std::find(expected_names.begin(), expected_names.end(), n.instance_type->name) != expected_names.end());
  CHECK(n.pods.size() == 1);
  CHECK(result.disruptions.consolidation_replace == 1);
  // The launch list: the `keep` cheapest types in price order, the one priced outside the first
  // 15 of the catalog leading.
  const auto replaces = decisions(result, "single-node", "replace");
  REQUIRE(replaces.size() == 1);
  CHECK(replaces[0].candidate == "node-0");
  CHECK_THAT(replaces[0].detail, Catch::Contains(options_detail(expected_names, keep)));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Replace: spot-to-spot flexibility and truncation

TEST_CASE("Consolidation Replace: cannot replace spot with spot if it is part of the 15 cheapest instance types.",
          "[disruption][consolidation][replace][spot]")
{
  // The first 20 assorted types; the first gets a spot offering at $0.001. The candidate is the
  // second cheapest spot type: only one spot option is cheaper than it.
  auto types = testing::fake_instance_types_assorted();
  types.resize(20);
  types[0].offerings[0].price_per_hour = 0.001;
  types[0].offerings[0].capacity_type = "spot";
  catalog::finalize_requirements(types[0]);
  const auto spot = spot_by_price(types);
  REQUIRE(spot.size() >= 2);
  const std::string spot_instance = spot[1].name;
  ReplaceSuite s(types);
  s.sim.node("node-0", "default", spot_instance, resources(32000));
  s.sim.pods_on("node-0", 1, rs_pod());
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // No new NodeClaim, the old one kept.
  CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
  CHECK(result.nodes.launched == 0);
  CHECK(has_decision(result, "node-0", "keep",
                     "SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to "
                     "consolidate, got 1"));
}

TEST_CASE("Consolidation Replace: spot to spot consolidation should order the instance types by price before enforcing "
          "minimum flexibility.",
          "[disruption][consolidation][replace][spot]")
{
  expect_spot_to_spot_truncation(std::nullopt, 15);
}

TEST_CASE("Consolidation Replace: spot to spot consolidation should consider the default for truncation if minimum "
          "number of instanceTypeOptions from minValues in requirement is less than 15.",
          "[disruption][consolidation][replace][spot][minvalues]")
{
  expect_spot_to_spot_truncation(10, 15);
}

TEST_CASE("Consolidation Replace: spot to spot consolidation should consider the max of default and minimum number of "
          "instanceTypeOptions from minValues in requirement for truncation if minimum number of instanceTypeOptions "
          "from minValues in requirement is greater than 15.",
          "[disruption][consolidation][replace][spot][minvalues]")
{
  expect_spot_to_spot_truncation(16, 16);
}

// ---------------------------------------------------------------------------------------------
// Replace: minValues

TEST_CASE("Consolidation Replace: should handle failing filterOutSameInstanceType correctly (without a panic) when "
          "minValues isn't satisfied",
          "[disruption][consolidation][replace][minvalues]")
{
  // The replacement claim keeps the NodePool's minValues (nodeclaimtemplate.go ToNodeClaim), so
  // when filterOutSameInstanceType leaves one option, RemoveInstanceTypeOptionsByPriceAndMinValues
  // fails. (capsim rebuilt the claim's instance-type requirement without minValues until this
  // case was ported, and replaced the first two nodes with one.)
  // Two 5-CPU on-demand types in test-zone-1a ($0.5 current, $0.4 other); a NodePool requiring
  // on-demand and 2 instance types. Three nodes of the current type with {cpu: 4, pods: 100};
  // four 2-CPU pods (no owner): one on each of the first two nodes, two on the third.
  // Multi-node tries the first two nodes into one replacement: its options are both types, and
  // filterOutSameInstanceType keeps only the cheaper one, which breaks minValues. Single-node then
  // deletes one of the first two nodes (its pod fits beside the other's).
  testing::FakeTypeOptions current;
  current.cpu_milli = 5000;
  current.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", 0.5)};
  testing::FakeTypeOptions other;
  other.cpu_milli = 5000;
  other.offerings = std::vector<catalog::Offering>{testing::fake_offering("test-zone-1a", "on-demand", 0.4)};
  ReplaceSuite s({testing::fake_instance_type("current-on-demand", current),
                  testing::fake_instance_type("other-on-demand", other)},
                 {"test-zone-1a"});
  s.pool().requirements.add(model::Requirement::make(std::string(model::labels::k_instance_type),
                                                     model::Operator::exists, {}, 2));
  s.pool().requirements.add(model::Requirement::make(std::string(model::labels::k_capacity_type), model::Operator::in,
                                                     {"on-demand"}));
  for (int i = 0; i < 3; ++i) {
    s.sim.node(fmt::format("node-{}", i), "default", "current-on-demand", resources(4000, 0, 100), "test-zone-1a",
               "on-demand");
  }
  PodOpts pod;
  pod.owner = model::OwnerKind::none;
  pod.cpu_milli = 2000;
  s.sim.pods_on("node-0", 1, pod);
  s.sim.pods_on("node-1", 1, pod);
  s.sim.pods_on("node-2", 2, pod);
  const auto result = s.sim.run(5 * k_minute);
  INFO(dump(result));
  // One of the first two nodes is deleted; nothing is launched.
  CHECK(s.sim.alive().size() == 2);
  CHECK(s.sim.alive(std::string("node-2")));
  CHECK(s.sim.alive(std::string("node-0")) != s.sim.alive(std::string("node-1")));
  CHECK(result.nodes.launched == 0);
  CHECK(decisions(result, "multi-node", "replace").empty());
  CHECK(decisions(result, "single-node", "delete").size() == 1);
}

TEST_CASE("Consolidation Replace: Consolidation should fail if filterByPrice breaks the minimum requirement from the "
          "NodePools.",
          "[disruption][consolidation][replace][minvalues]")
{
  // minValues 16 on instance types. The candidate is of the 16th cheapest spot type (a 2-CPU
  // type): 12 spot types are cheaper, too few for minValues, so the price filter fails.
  // Upstream's two entries both apply and bind the pod to spotNode (the on-demand entry only
  // reassigns the nodeClaim/node variables and appends the 18 cheapest on-demand types, which
  // the catalog holds already), so both run the spot candidate here too.
  for (const bool spot_to_spot : {false, true}) {
    INFO(entry_name(spot_to_spot));
    ReplaceSuite s;
    s.pool().requirements.add(model::Requirement::make(std::string(model::labels::k_instance_type),
                                                       model::Operator::exists, {}, 16));
    const auto spot = spot_by_price(testing::fake_instance_types_assorted());
    const std::string most_expensive = spot[15].name;
    s.sim.node("node-0", "default", most_expensive, resources(32000));
    s.sim.pods_on("node-0", 1, rs_pod());
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
    CHECK(result.nodes.launched == 0);
    CHECK(has_decision(result, "node-0", "keep", "filtering by price breaks the NodePool's minValues"));
  }
}

// ---------------------------------------------------------------------------------------------
// Replace: other NodePools, PDBs, do-not-disrupt

TEST_CASE("Consolidation Replace: can replace nodes if another nodePool returns no instance types",
          "[disruption][consolidation][replace]")
{
  // Upstream sets cloudProvider.InstanceTypesForNodePool[nodePool2] = nil. capsim offers every
  // NodePool the whole catalog filtered by its requirements, so the second NodePool requires an
  // instance type the catalog does not have: it has no instance types either.
  for (const bool spot : {false, true}) {
    INFO(entry_name(spot));
    ReplaceSuite s;
    auto& second = s.sim.pool("no-instance-types");
    second.requirements.add(model::Requirement::make(std::string(model::labels::k_instance_type), model::Operator::in,
                                                     {"no-such-instance-type"}));
    const std::string expensive = s.sim.most_expensive(spot ? "spot" : "on-demand").name;
    s.candidate(spot);
    s.sim.pods_on("node-0", 1, rs_pod());
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    const auto& n = only_alive(s.sim);
    CHECK(n.name != "node-0");
    REQUIRE(n.instance_type != nullptr);
    CHECK(n.instance_type->name != expensive);
    CHECK(n.pool == 0);
    CHECK(n.pods.size() == 1);
    CHECK(result.disruptions.consolidation_replace == 1);
    CHECK(decisions(result, "single-node", "replace").size() == 1);
  }
}

TEST_CASE("Consolidation Replace: can replace nodes, considers PDB", "[disruption][consolidation][replace][pdb]")
{
  // Three pods on the candidate, all covered by a PDB with maxUnavailable 0.
  for (const bool spot : {false, true}) {
    INFO(entry_name(spot));
    ReplaceSuite s;
    s.candidate(spot);
    s.sim.pods_on("node-0", 3, rs_pod());
    model::PodDisruptionBudget pdb;
    pdb.name = "pdb";
    pdb.selector.match_labels = k_app;
    pdb.max_unavailable = std::string("0");
    s.sim.scenario.pdbs.push_back(pdb);
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    // No new NodeClaim, the old one kept.
    CHECK(s.sim.alive() == std::vector<std::string>{"node-0"});
    CHECK(result.nodes.launched == 0);
    CHECK(has_decision(result, "node-0", "keep", "PDB default/pdb allows no disruption"));
  }
}

TEST_CASE("Consolidation Replace: can replace nodes, PDB namespace must match",
          "[disruption][consolidation][replace][pdb]")
{
  // The blocking PDB selects the pod's labels but lives in another namespace.
  for (const bool spot : {false, true}) {
    INFO(entry_name(spot));
    ReplaceSuite s;
    const std::string expensive = s.sim.most_expensive(spot ? "spot" : "on-demand").name;
    s.candidate(spot);
    s.sim.pods_on("node-0", 1, rs_pod());
    model::PodDisruptionBudget pdb;
    pdb.name = "pdb";
    pdb.namespace_ = "other-namespace";
    pdb.selector.match_labels = k_app;
    pdb.max_unavailable = std::string("0");
    s.sim.scenario.pdbs.push_back(pdb);
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    const auto& n = only_alive(s.sim);
    CHECK(n.name != "node-0");
    REQUIRE(n.instance_type != nullptr);
    CHECK(n.instance_type->name != expensive);
    CHECK(result.disruptions.consolidation_replace == 1);
  }
}

TEST_CASE("Consolidation Replace: can replace nodes, considers karpenter.sh/do-not-disrupt set to true on nodes",
          "[disruption][consolidation][replace]")
{
  // Two 2-CPU pods on the candidate; a do-not-disrupt node (same type, {cpu: 5, pods: 100}) with
  // one. One of the candidate's pods fits beside it, the other needs a (cheaper) new node.
  for (const bool spot : {false, true}) {
    INFO(entry_name(spot));
    ReplaceSuite s;
    const std::string expensive = s.sim.most_expensive(spot ? "spot" : "on-demand").name;
    s.candidate(spot);
    s.sim.node("annotated", "default", expensive, resources(5000, 0, 100), {}, {}, true);
    auto pod = rs_pod();
    pod.cpu_milli = 2000;
    s.sim.pods_on("node-0", 2, pod);
    s.sim.pods_on("annotated", 1, pod);
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    // The non-annotated node is replaced by a cheaper node.
    const auto alive = s.sim.alive();
    CHECK(alive.size() == 2);
    CHECK(!s.sim.alive(std::string("node-0")));
    CHECK(s.sim.alive(std::string("annotated")));
    CHECK(result.disruptions.consolidation_replace == 1);
    const auto replaces = decisions(result, "single-node", "replace");
    REQUIRE(replaces.size() == 1);
    CHECK(replaces[0].candidate == "node-0");
    CHECK(result.pods.unschedulable == 0);
  }
}

TEST_CASE("Consolidation Replace: can replace nodes, considers karpenter.sh/do-not-disrupt set to true on pods",
          "[disruption][consolidation][replace]")
{
  // As above, but node-2's own pod carries the do-not-disrupt annotation.
  for (const bool spot : {false, true}) {
    INFO(entry_name(spot));
    ReplaceSuite s;
    const std::string expensive = s.sim.most_expensive(spot ? "spot" : "on-demand").name;
    s.candidate(spot);
    s.sim.node("node-2", "default", expensive, resources(5000, 0, 100));
    auto pod = rs_pod();
    pod.cpu_milli = 2000;
    auto blocked = pod;
    blocked.do_not_disrupt = k_never;
    s.sim.pods_on("node-0", 2, pod);
    s.sim.pods_on("node-2", 1, blocked);
    const auto result = s.sim.run(5 * k_minute);
    INFO(dump(result));
    CHECK(s.sim.alive().size() == 2);
    CHECK(!s.sim.alive(std::string("node-0")));
    CHECK(s.sim.alive(std::string("node-2")));
    CHECK(result.disruptions.consolidation_replace == 1);
    const auto replaces = decisions(result, "single-node", "replace");
    REQUIRE(replaces.size() == 1);
    CHECK(replaces[0].candidate == "node-0");
    CHECK(has_decision(result, "node-2", "keep", "has the \"karpenter.sh/do-not-disrupt\" annotation"));
  }
}

} // namespace capsim::karpenter::dtest
