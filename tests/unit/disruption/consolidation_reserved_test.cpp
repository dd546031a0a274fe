// Ports of Context("Reserved Capacity") of core:pkg/controllers/disruption/consolidation_test.go
// (kubernetes-sigs/karpenter HEAD 2266468): the most expensive on-demand type of
// fake.InstanceTypesAssorted() gets a reserved offering in its zone (reservation
// r-<type>, 10 instances, priced at its on-demand price / 1,000,000). Consolidation reaches
// reserved capacity through the price rule alone: a NodeClaim holding a reservation is pinned to
// it, and its worst launch price is the reserved one.

#include "tests/unit/disruption/disruption_harness.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace capsim::karpenter::dtest {

namespace {

const std::string k_reservation{model::labels::k_capacity_reservation_id};
const std::string k_capacity_type{model::labels::k_capacity_type};
const std::string k_instance_type{model::labels::k_instance_type};

// onDemandInstances sorted by price (ties keep catalog order): index 0 and the last.
std::pair<std::size_t, std::size_t> cheapest_and_dearest_on_demand(const std::vector<catalog::InstanceType>& types)
{
  std::size_t lo = types.size();
  std::size_t hi = types.size();
  for (std::size_t i = 0; i < types.size(); ++i) {
    const auto& o = types[i].offerings.front();
    if (o.capacity_type != "on-demand") {
      continue;
    }
    if (lo == types.size() || o.price_per_hour < types[lo].offerings.front().price_per_hour) {
      lo = i;
    }
    if (hi == types.size() || o.price_per_hour >= types[hi].offerings.front().price_per_hour) {
      hi = i;
    }
  }
  REQUIRE(lo < types.size());
  REQUIRE(hi < types.size());
  return {lo, hi};
}

// Appends the reserved offering of the Context's BeforeEach to `t` (its first offering's zone).
std::string reserve(catalog::InstanceType& t)
{
  const auto first = t.offerings.front();
  catalog::Offering r = first;
  r.capacity_type = "reserved";
  r.price_per_hour = first.price_per_hour / 1'000'000.0;
  r.reservation_id = "r-" + t.name;
  r.reservation_capacity = 10;
  t.offerings.push_back(r);
  auto ct = t.requirements.get(k_capacity_type);
  ct.values.push_back("reserved");
  std::sort(ct.values.begin(), ct.values.end());
  t.requirements.erase(k_capacity_type);
  t.requirements.add(ct);
  return r.reservation_id;
}

std::string label(const cluster::NodeState& n, const std::string& key)
{
  const auto it = n.labels.find(key);
  return it == n.labels.end() ? std::string() : it->second;
}

} // namespace

TEST_CASE("Consolidation Reserved Capacity: can consolidate from one reserved offering to another",
          "[disruption][consolidation][reserved]")
{
  auto types = testing::fake_instance_types_assorted();
  const auto [least, most] = cheapest_and_dearest_on_demand(types);
  const std::string most_id = reserve(types[most]);
  const std::string least_id = reserve(types[least]);
  const std::string most_name = types[most].name;
  const std::string least_name = types[least].name;
  const std::string zone = types[most].offerings.front().zone;
  ConsolidationSuite s(std::move(types));
  s.sim.node("reserved-node", "default", most_name, std::nullopt, zone, "reserved");
  s.sim.label_node("reserved-node", {{k_reservation, most_id}});
  s.sim.pods_on("reserved-node", 1, rs_pod());
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.consolidation_replace == 1);
  CHECK_FALSE(s.sim.alive("reserved-node"));
  const auto& n = only_alive(s.sim);
  CHECK(n.instance_type->name == least_name);
  CHECK(label(n, k_capacity_type) == "reserved");
  CHECK(label(n, k_reservation) == least_id);
  CHECK(bound_pods(s.sim) == 1);
}

TEST_CASE("Consolidation Reserved Capacity: can consolidate into reserved capacity for the same instance pool",
          "[disruption][consolidation][reserved]")
{
  for (const bool spot : {false, true}) {
    DYNAMIC_SECTION("from " << (spot ? "spot" : "on-demand"))
    {
      auto types = testing::fake_instance_types_assorted();
      const auto [least, most] = cheapest_and_dearest_on_demand(types);
      (void)least;
      const std::string most_id = reserve(types[most]);
      const std::string most_name = types[most].name;
      ConsolidationSuite s(std::move(types));
      // nodeClaim / spotNodeClaim: the most expensive on-demand (spot) type, allocatable cpu 32.
      const std::string candidate = s.sim.most_expensive(spot ? "spot" : "on-demand").name;
      s.sim.node("node-0", "default", candidate, resources(32000));
      s.sim.pods_on("node-0", 1, rs_pod());
      const auto result = s.sim.run(10 * k_minute);
      INFO(dump(result));
      CHECK(result.disruptions.consolidation_replace == 1);
      CHECK_FALSE(s.sim.alive("node-0"));
      const auto& n = only_alive(s.sim);
      CHECK(n.instance_type->name == most_name);
      CHECK(label(n, k_capacity_type) == "reserved");
      CHECK(label(n, k_reservation) == most_id);
    }
  }
}

TEST_CASE("Consolidation Reserved Capacity: a full reservation is no replacement",
          "[disruption][consolidation][reserved]")
{
  // The same on-demand candidate, but every instance of the reservation is in use by a node of
  // another NodePool: no reserved replacement, and nothing cheaper fits, so the node stays.
  auto types = testing::fake_instance_types_assorted();
  const auto [least, most] = cheapest_and_dearest_on_demand(types);
  (void)least;
  const std::string most_id = reserve(types[most]);
  types[most].offerings.back().reservation_capacity = 1;
  const std::string most_name = types[most].name;
  const std::string zone = types[most].offerings.front().zone;
  ConsolidationSuite s(std::move(types));
  auto& other = s.sim.pool("other");
  other.consolidation_policy = model::ConsolidationPolicy::when_empty;
  // The pods keep apart (hostname anti-affinity), and node-0's may only run on its own type.
  PodOpts apart = rs_pod();
  model::PodAffinityTerm term;
  term.selector = model::LabelSelector{};
  term.selector->match_labels = {{"app", "test"}};
  term.topology_key = std::string(model::labels::k_hostname);
  apart.anti_affinity = {term};
  s.sim.node("holder", "other", most_name, std::nullopt, zone, "reserved");
  s.sim.label_node("holder", {{k_reservation, most_id}});
  s.sim.pods_on("holder", 1, apart);
  s.sim.node("node-0", "default", most_name, resources(32000));
  PodOpts pinned = apart;
  pinned.node_selector = {{k_instance_type, most_name}};
  s.sim.pods_on("node-0", 1, pinned);
  const auto result = s.sim.run(10 * k_minute);
  INFO(dump(result));
  CHECK(result.disruptions.consolidation_replace == 0);
  CHECK(s.sim.alive("node-0"));
  CHECK(s.sim.alive("holder"));
}

} // namespace capsim::karpenter::dtest
