#include "core/cas/expander.hpp"

#include "tests/unit/cas/cas_fixtures.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace capsim;
using namespace capsim::cas;

namespace {

// Names of the options, for comparisons.
std::vector<std::string> ids(const std::vector<Option>& options)
{
  std::vector<std::string> out;
  for (const auto& o : options) {
    out.push_back(o.group_id);
  }
  return out;
}

Option option(const std::string& id, std::int32_t nodes = 1, std::vector<const model::Pod*> pods = {})
{
  Option o;
  o.group_id = id;
  o.node_count = nodes;
  o.pods = std::move(pods);
  return o;
}

model::Pod pod_with(std::int64_t cpu_milli, std::int64_t memory_bytes, const std::string& name = "p")
{
  auto spec = std::make_shared<model::PodSpec>();
  spec->requests[model::k_cpu] = cpu_milli;
  spec->requests[model::k_memory] = memory_bytes;
  model::Pod p;
  p.name = name;
  p.spec = spec;
  p.requests = spec->requests;
  return p;
}

} // namespace

// waste_test.go TestLeastWaste
TEST_CASE("least-waste picks the option wasting the least capacity", "[cas][expander]")
{
  const std::int64_t cpu_per_pod = 500;
  const std::int64_t memory_per_pod = 1000LL * 1024 * 1024;
  const auto make = [&](const std::string& id, std::int64_t cpu, std::int64_t mem, std::vector<const model::Pod*> pods) {
    Option o = option(id, 1, std::move(pods));
    o.capacity_cpu_milli = cpu;
    o.capacity_memory = mem;
    return o;
  };
  // Without any pods, one node group.
  const Option balanced_empty = make("balanced", 16 * cpu_per_pod, 16 * memory_per_pod, {});
  CHECK(ids(least_waste({balanced_empty})) == std::vector<std::string>{"balanced"});

  const model::Pod pod = pod_with(cpu_per_pod, memory_per_pod);
  const Option balanced = make("balanced", 16 * cpu_per_pod, 16 * memory_per_pod, {&pod});
  CHECK(ids(least_waste({balanced})) == std::vector<std::string>{"balanced"});

  // One pod, two groups: one with lots of RAM, one with less.
  const Option highmem = make("highmem", 16 * cpu_per_pod, 32 * memory_per_pod, {&pod});
  CHECK(ids(least_waste({balanced, highmem})) == std::vector<std::string>{"balanced"});

  // And one with less CPU.
  const Option lowcpu = make("lowcpu", 8 * cpu_per_pod, 16 * memory_per_pod, {&pod});
  CHECK(ids(least_waste({balanced, highmem, lowcpu})) == std::vector<std::string>{"lowcpu"});
}

TEST_CASE("least-waste scores capacity times node count and keeps ties", "[cas][expander]")
{
  const model::Pod pod = pod_with(1000, 2 * k_gib);
  Option a = option("a", 2, {&pod, &pod});
  a.capacity_cpu_milli = 2000;
  a.capacity_memory = 4 * k_gib;
  Option b = option("b", 1, {&pod, &pod});
  b.capacity_cpu_milli = 4000;
  b.capacity_memory = 8 * k_gib;
  // Both waste exactly half of CPU and half of memory.
  CHECK(ids(least_waste({a, b})) == std::vector<std::string>{"a", "b"});
}

// mostpods_test.go TestMostPods
TEST_CASE("most-pods keeps the options scheduling the most pods", "[cas][expander]")
{
  const model::Pod p = pod_with(100, k_gib);
  const Option eo0 = option("EO0");
  CHECK(ids(most_pods({eo0})) == std::vector<std::string>{"EO0"});
  const Option eo1 = option("EO1", 1, {&p});
  CHECK(ids(most_pods({eo0, eo1})) == std::vector<std::string>{"EO1"});
  const Option eo1b = option("EO1b", 1, {&p});
  CHECK(ids(most_pods({eo0, eo1, eo1b})) == std::vector<std::string>{"EO1", "EO1b"});
}

// leastnodes_test.go TestLeastNodes
TEST_CASE("least-nodes keeps the options adding the fewest nodes", "[cas][expander]")
{
  CHECK(least_nodes({}).empty());
  CHECK(least_nodes({option("EO0", 0)}).empty());
  CHECK(ids(least_nodes({option("EO0", 2)})) == std::vector<std::string>{"EO0"});
  CHECK(ids(least_nodes({option("EO0", 2), option("EO1", 1)})) == std::vector<std::string>{"EO1"});
  CHECK(ids(least_nodes({option("EO0", 6), option("EO1", 2), option("EO2", 2)}))
        == std::vector<std::string>{"EO1", "EO2"});
  CHECK(ids(least_nodes({option("EO0", 8), option("EO1", 8), option("EO2", 8)}))
        == std::vector<std::string>{"EO0", "EO1", "EO2"});
  CHECK(ids(least_nodes({option("EO0", 23), option("EO1", 0), option("EO2", 5), option("EO3", 8), option("EO4", 5),
                         option("EO5", 5), option("EO6", 22)}))
        == std::vector<std::string>{"EO2", "EO4", "EO5"});
}

// priority_test.go, with each node group's priority taken from NodeGroup.priority (the
// upstream config map `5: [t2.micro], 10: [t2.large, t3.large], 50: [m4.4xlarge]`).
TEST_CASE("priority keeps the highest-priority groups", "[cas][expander]")
{
  const auto prio = [](const std::string& id, std::int32_t p) {
    Option o = option(id);
    o.priority = p;
    return o;
  };
  const Option t2micro = prio("my-asg.t2.micro", 5);
  const Option t2large = prio("my-asg.t2.large", 10);
  const Option t3large = prio("my-asg.t3.large", 10);
  const Option m44xlarge = prio("my-asg.m4.4xlarge", 50);
  CHECK(ids(priority({t2large})) == std::vector<std::string>{"my-asg.t2.large"});
  CHECK(ids(priority({t2large, m44xlarge})) == std::vector<std::string>{"my-asg.m4.4xlarge"});
  CHECK(ids(priority({t2large, t3large, t2micro})) == std::vector<std::string>{"my-asg.t2.large", "my-asg.t3.large"});
  CHECK(priority({}).empty());
  // CA starts from -1: groups whose priority is below -1 are never preferred, and when no
  // option qualifies every option passes through.
  const Option low = prio("low", -5);
  const Option lower = prio("lower", -7);
  CHECK(ids(priority({low, lower})) == std::vector<std::string>{"low", "lower"});
  CHECK(ids(priority({low, prio("minus-one", -1)})) == std::vector<std::string>{"minus-one"});
}

namespace {

// price_test.go's testPricingModel: p1 (1000m) = 20, p2 (500m) = 10, stabilize (500m, 500Mi) = 10.
double test_pod_price(const model::Resources& r)
{
  if (r.cpu() == 1000) {
    return 20.0;
  }
  if (r.cpu() == 500 && r.memory() == 0) {
    return 10.0;
  }
  if (r.cpu() == 500 && r.memory() == 500 * k_mib) {
    return 10.0;
  }
  return 0.0;
}

} // namespace

// price_test.go TestPriceExpander (ng1 on n1: 1000m; ng2 on n2: 4000m; MT1 not existing).
TEST_CASE("price expander combines price ratio and node unfitness", "[cas][expander]")
{
  const model::Pod p1 = pod_with(1000, 0, "p1");
  const model::Pod p2 = pod_with(500, 0, "p2");
  const auto make = [&](const std::string& id, std::int32_t nodes, std::vector<const model::Pod*> pods,
                        std::int64_t cpu, double node_price) {
    Option o = option(id, nodes, std::move(pods));
    o.capacity_cpu_milli = cpu;
    o.capacity_memory = 1000;
    o.node_price_per_hour = node_price;
    return o;
  };
  // The test's preferred node: 2000m (a cluster of 3..6 nodes), or 4000m (7..20 nodes).
  const PriceContext pref2{4};
  const PriceContext pref4{10};
  REQUIRE(preferred_node_cpu_milli(4) == 2000);
  REQUIRE(preferred_node_cpu_milli(10) == 4000);

  // First node group is cheaper.
  CHECK(ids(price({make("ng1", 2, {&p1, &p2}, 1000, 20), make("ng2", 1, {&p1, &p2}, 4000, 200)}, pref2,
                  test_pod_price))
        == std::vector<std::string>{"ng1"});
  // First node group is cheaper, however, the second one is preferred.
  CHECK(ids(price({make("ng1", 2, {&p1, &p2}, 1000, 50), make("ng2", 1, {&p1, &p2}, 4000, 200)}, pref4,
                  test_pod_price))
        == std::vector<std::string>{"ng2"});
  // First is cheaper, the second preferred, but lots of nodes are needed.
  CHECK(ids(price({make("ng1", 80, {&p1, &p2}, 1000, 20), make("ng2", 40, {&p1, &p2}, 4000, 200)}, pref4,
                  test_pod_price))
        == std::vector<std::string>{"ng1"});
  // Second node group is cheaper.
  CHECK(ids(price({make("ng1", 2, {&p1, &p2}, 1000, 200), make("ng2", 1, {&p1, &p2}, 4000, 100)}, pref2,
                  test_pod_price))
        == std::vector<std::string>{"ng2"});
  // Equally expensive, but the second accepts two pods.
  CHECK(ids(price({make("ng1", 2, {&p1}, 1000, 200), make("ng2", 1, {&p1, &p2}, 4000, 200)}, pref2, test_pod_price))
        == std::vector<std::string>{"ng2"});
  // Choose the existing group when the non-existing one has the same price (n3 = 4000m).
  Option mt1 = make("ng3", 1, {&p1, &p2}, 4000, 200);
  mt1.exists = false;
  CHECK(ids(price({make("ng1", 2, {&p1}, 1000, 200), make("ng2", 1, {&p1, &p2}, 4000, 200), mt1}, pref2,
                  test_pod_price))
        == std::vector<std::string>{"ng2"});
  // Choose the non-existing group when it is cheaper.
  mt1.node_price_per_hour = 90;
  CHECK(ids(price({make("ng1", 2, {&p1}, 1000, 200), make("ng2", 1, {&p1, &p2}, 4000, 200), mt1}, pref2,
                  test_pod_price))
        == std::vector<std::string>{"ng3"});
}

TEST_CASE("price expander's GCE pod prices and GPU override", "[cas][expander]")
{
  model::Resources r;
  r[model::k_cpu] = 2000;
  r[model::k_memory] = 4 * k_gib;
  CHECK(pod_price_per_hour(r) == Approx(2 * 0.033174 + 4 * 0.004446));
  r[model::k_nvidia_gpu] = 1;
  CHECK(pod_price_per_hour(r) == Approx(2 * 0.033174 + 4 * 0.004446 + 0.7));

  const model::Pod p = pod_with(1000, k_gib);
  Option cpu = option("cpu", 1, {&p});
  cpu.capacity_cpu_milli = 1000;
  cpu.node_price_per_hour = 10;
  Option gpu = cpu;
  gpu.group_id = "gpu";
  gpu.node_price_per_hour = 1;
  gpu.has_gpu = true;
  // The GPU node is ten times cheaper but its unfitness is overridden to 1000.
  CHECK(ids(price({cpu, gpu}, PriceContext{1}, pod_price_per_hour)) == std::vector<std::string>{"cpu"});
  CHECK(preferred_node_cpu_milli(0) == 1000);
  CHECK(preferred_node_cpu_milli(60) == 8000);
  CHECK(preferred_node_cpu_milli(200) == 16000);
  CHECK(preferred_node_cpu_milli(201) == 32000);
}

TEST_CASE("random expander is seeded and uniform over the options", "[cas][expander]")
{
  std::vector<Option> options = {option("a"), option("b"), option("c")};
  ExpanderChain one("random", 42);
  ExpanderChain same("random", 42);
  ExpanderChain other("random", 43);
  std::vector<std::size_t> seq1;
  std::vector<std::size_t> seq2;
  std::vector<std::size_t> seq3;
  std::set<std::size_t> seen;
  for (int i = 0; i < 200; ++i) {
    seq1.push_back(one.best_option(options, {}));
    seq2.push_back(same.best_option(options, {}));
    seq3.push_back(other.best_option(options, {}));
    seen.insert(seq1.back());
  }
  CHECK(seq1 == seq2);
  CHECK(seq1 != seq3);
  CHECK(seen == std::set<std::size_t>{0, 1, 2});
  CHECK(one.best_option({}, {}) == SIZE_MAX);
}

TEST_CASE("expander chains filter in order and stop at one option", "[cas][expander]")
{
  const model::Pod p = pod_with(1000, k_gib);
  Option a = option("a", 2, {&p, &p});
  a.capacity_cpu_milli = 4000;
  a.capacity_memory = 4 * k_gib;
  Option b = option("b", 1, {&p, &p});
  b.capacity_cpu_milli = 2000;
  b.capacity_memory = 2 * k_gib;
  Option c = option("c", 1, {&p});
  c.capacity_cpu_milli = 1000;
  c.capacity_memory = k_gib;
  // most-pods keeps a and b; least-waste then picks b (no waste).
  ExpanderChain chain("most-pods,least-waste", 1);
  CHECK(chain.best_option({a, b, c}, {}) == 1);
  // least-waste alone prefers b and c (both waste nothing): tie broken by the seeded random.
  ExpanderChain waste("least-waste", 7);
  const auto pick = waste.best_option({a, b, c}, {});
  CHECK((pick == 1 || pick == 2));
  // priority first: a has the highest priority and wins alone.
  a.priority = 10;
  ExpanderChain prio("priority,least-waste", 1);
  CHECK(prio.best_option({a, b, c}, {}) == 0);
  // A filter that leaves nothing.
  ExpanderChain nodes("least-nodes", 1);
  CHECK(nodes.best_option({option("zero", 0)}, {}) == SIZE_MAX);
}

TEST_CASE("expander lists are validated like CA's factory", "[cas][expander]")
{
  CHECK_THROWS_AS(ExpanderChain("least-wastes", 1), InputError);
  CHECK_THROWS_WITH(ExpanderChain("least-wastes", 1), Catch::Contains("did you mean 'least-waste'"));
  CHECK_THROWS_WITH(ExpanderChain("most-pods,most-pods", 1), Catch::Contains("more than once"));
  CHECK_THROWS_WITH(ExpanderChain("random,least-waste", 1), Catch::Contains("follows 'random'"));
  CHECK_THROWS_AS(ExpanderChain("", 1), InputError);
  CHECK(ExpanderChain(" priority , least-waste ", 1).names() == std::vector<std::string>{"priority", "least-waste"});
}
