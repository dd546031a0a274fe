#include "core/cas/estimator.hpp"

#include "tests/unit/cas/cas_fixtures.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::cas;

namespace {

// binpacking_estimator_test.go makeNode: cpu in millicores, memory in MiB, pods; allocatable
// = capacity; hostname and zone labels.
cluster::NodeState make_node(std::int64_t cpu, std::int64_t mem_mib, std::int64_t pods, const std::string& name,
                             const std::string& zone)
{
  cluster::NodeState n;
  n.name = name;
  n.labels = {{std::string(model::labels::k_hostname), name}, {std::string(model::labels::k_zone), zone}};
  n.allocatable[model::k_cpu] = cpu;
  n.allocatable[model::k_memory] = mem_mib * k_mib;
  n.allocatable[model::k_pods] = pods;
  n.lifecycle = cluster::NodeLifecycle::ready;
  return n;
}

// BuildTestPod("estimatee", cpu, memBytes, namespace universe, labels app=estimatee, ...).
std::shared_ptr<model::PodSpec> estimatee(std::int64_t cpu, std::int64_t mem_bytes)
{
  auto spec = std::make_shared<model::PodSpec>();
  spec->template_name = "estimatee";
  spec->namespace_ = "universe";
  spec->labels = {{"app", "estimatee"}};
  spec->requests[model::k_cpu] = cpu;
  spec->requests[model::k_memory] = mem_bytes;
  spec->owner = model::OwnerKind::replica_set;
  return spec;
}

// WithMaxSkew(maxSkew, key, minDomains): DoNotSchedule on app=estimatee.
void with_max_skew(model::PodSpec& spec, std::int32_t max_skew, const std::string& key, std::int32_t min_domains)
{
  model::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = key;
  c.when_unsatisfiable = model::UnsatisfiableAction::do_not_schedule;
  model::LabelSelector s;
  s.match_labels = {{"app", "estimatee"}};
  c.selector = s;
  c.min_domains = min_domains;
  spec.topology_spread.push_back(c);
}

struct Case
{
  std::int64_t millicores = 0;
  std::int64_t memory_mib = 0;
  std::int32_t max_nodes = 0;
  std::vector<std::pair<model::PodSpecPtr, int>> groups; // spec, pod count
  std::int32_t expect_nodes = 0;
  std::size_t expect_pods = 0;
};

struct Outcome
{
  Estimate estimate;
  std::vector<std::vector<model::Pod>> pods; // owns the pods
};

Outcome run_case(const Case& c)
{
  Outcome out;
  out.pods.resize(c.groups.size());
  std::vector<PodGroup> groups;
  for (std::size_t i = 0; i < c.groups.size(); ++i) {
    for (int k = 0; k < c.groups[i].second; ++k) {
      out.pods[i].push_back(testing::make_pod("estimatee-" + std::to_string(i) + "-" + std::to_string(k),
                                              c.groups[i].first));
    }
    PodGroup g;
    for (const auto& p : out.pods[i]) {
      g.pods.push_back(&p);
    }
    groups.push_back(std::move(g));
  }
  // One node in a different zone, to make topology spread constraints count it.
  static const cluster::NodeState oldnode = make_node(100, 100, 10, "oldnode", "zone-jupiter");
  Snapshot snapshot;
  SnapNode sn;
  sn.state = &oldnode;
  sn.real = true;
  snapshot.add_node(sn);
  NodeTemplate tmpl;
  tmpl.node = make_node(c.millicores, c.memory_mib, 10, "template", "zone-mars");
  tmpl.capacity = tmpl.node.allocatable;
  NodeOrdering ordering;
  out.estimate = estimate(snapshot, groups, tmpl, 0, c.max_nodes, ordering);
  CHECK(snapshot.size() == 1); // the estimation is reverted
  CHECK(snapshot.node(0).pods.empty());
  return out;
}

} // namespace

// binpacking_estimator_test.go TestBinpackingEstimate, case by case.
TEST_CASE("binpacking estimator: simple resource-based binpacking", "[cas][estimator]")
{
  const auto o = run_case({350 * 3 - 50, 2 * 1000, 0, {{estimatee(350, 1000), 10}}, 5, 10});
  CHECK(o.estimate.node_count == 5);
  CHECK(o.estimate.pods.size() == 10);
}

TEST_CASE("binpacking estimator: pods-per-node bound binpacking", "[cas][estimator]")
{
  const auto o = run_case({10000, 20000, 0, {{estimatee(10, 100), 20}}, 2, 20});
  CHECK(o.estimate.node_count == 2);
  CHECK(o.estimate.pods.size() == 20);
}

TEST_CASE("binpacking estimator: hostport conflict forces pod-per-node", "[cas][estimator]")
{
  auto spec = estimatee(200, 1000);
  spec->host_ports = {5555};
  const auto o = run_case({1000, 5000, 0, {{spec, 8}}, 8, 8});
  CHECK(o.estimate.node_count == 8);
  CHECK(o.estimate.pods.size() == 8);
}

TEST_CASE("binpacking estimator: limiter cuts binpacking", "[cas][estimator]")
{
  const auto o = run_case({1000, 5000, 5, {{estimatee(500, 1000), 20}}, 5, 10});
  CHECK(o.estimate.node_count == 5);
  CHECK(o.estimate.pods.size() == 10);
}

TEST_CASE("binpacking estimator: decreasing ordered pods are processed first", "[cas][estimator]")
{
  const auto small = estimatee(50, 1000);
  const auto high = estimatee(500, 1000);
  const auto o = run_case({1000, 5000, 5, {{small, 10}, {high, 10}}, 5, 10});
  CHECK(o.estimate.node_count == 5);
  REQUIRE(o.estimate.pods.size() == 10);
  for (const auto* p : o.estimate.pods) {
    CHECK(p->spec == high); // expectProcessedPods: the high-resource group only
  }
}

TEST_CASE("binpacking estimator: hostname topology spreading with maxSkew=2 forces 2 pods/node", "[cas][estimator]")
{
  auto spec = estimatee(200, 200);
  with_max_skew(*spec, 2, "kubernetes.io/hostname", 1);
  const auto o = run_case({1000, 5000, 0, {{spec, 8}}, 4, 8});
  CHECK(o.estimate.node_count == 4);
  CHECK(o.estimate.pods.size() == 8);
}

TEST_CASE("binpacking estimator: zonal topology spreading with maxSkew=2 only allows 2 pods to schedule",
          "[cas][estimator]")
{
  auto spec = estimatee(20, 100);
  with_max_skew(*spec, 2, "topology.kubernetes.io/zone", 1);
  const auto o = run_case({1000, 5000, 0, {{spec, 8}}, 1, 2});
  CHECK(o.estimate.node_count == 1);
  CHECK(o.estimate.pods.size() == 2);
}

TEST_CASE("binpacking estimator: hostname spreading with maxSkew=1 schedules pods retroactively", "[cas][estimator]")
{
  auto spec = estimatee(20, 100);
  with_max_skew(*spec, 1, "kubernetes.io/hostname", 3);
  const auto o = run_case({1000, 5000, 0, {{spec, 12}}, 3, 12});
  CHECK(o.estimate.node_count == 3);
  CHECK(o.estimate.pods.size() == 12);
}

TEST_CASE("binpacking estimator: a pod that cannot fit an empty template stops the group", "[cas][estimator]")
{
  // Larger than the template: one empty node is tried, then the group gives up.
  const auto o = run_case({1000, 5000, 0, {{estimatee(2000, 1000), 3}, {estimatee(300, 1000), 3}}, 1, 3});
  CHECK(o.estimate.node_count == 1);
  CHECK(o.estimate.pods.size() == 3);
}

TEST_CASE("binpacking estimator: a negative limit allows no node", "[cas][estimator]")
{
  const auto o = run_case({1000, 5000, -1, {{estimatee(500, 1000), 4}}, 0, 0});
  CHECK(o.estimate.node_count == 0);
  CHECK(o.estimate.pods.empty());
}

// threshold_based_limiter getMinLimit.
TEST_CASE("estimator limits combine like thresholdBasedEstimationLimiter", "[cas][estimator]")
{
  CHECK(min_node_limit(0, 0) == 0);
  CHECK(min_node_limit(0, 5) == 5);
  CHECK(min_node_limit(1000, 5) == 5);
  CHECK(min_node_limit(5, 1000) == 5);
  CHECK(min_node_limit(5, 0) == 5);
  CHECK(min_node_limit(5, -1) == -1);
  CHECK(min_node_limit(-1, 5) == -1);
}

// decreasing_pod_orderer: cpu/alloc + mem/alloc of the exemplar, descending, stable.
TEST_CASE("pod groups are ordered by decreasing size on the template", "[cas][estimator]")
{
  NodeTemplate tmpl;
  tmpl.node = make_node(1000, 1000, 10, "template", "zone-mars");
  const auto a = testing::make_pod("a", estimatee(100, 100 * k_mib));  // 0.2
  const auto b = testing::make_pod("b", estimatee(500, 0));            // 0.5
  const auto c = testing::make_pod("c", estimatee(0, 500 * k_mib));    // 0.5
  const auto d = testing::make_pod("d", estimatee(900, 900 * k_mib));  // 1.8
  const auto sorted = order_pod_groups({{{&a}}, {{&b}}, {{&c}}, {{&d}}}, tmpl);
  REQUIRE(sorted.size() == 4);
  CHECK(sorted[0].pods[0] == &d);
  CHECK(sorted[1].pods[0] == &b);
  CHECK(sorted[2].pods[0] == &c);
  CHECK(sorted[3].pods[0] == &a);
}
