// The cluster's pod table: each state points at its pod, which stays where it is as pods join, is
// the workload's own when the cluster takes a workload whole, and is the copy's own in a copy.

#include "core/cluster/cluster.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

using namespace capsim;
using cluster::Cluster;
using cluster::PodIndex;

namespace {

model::Pod named(const std::string& name)
{
  model::Pod p;
  p.name = name;
  p.requests[model::k_cpu] = 100;
  return p;
}

std::vector<model::Pod> workload(std::size_t n, const std::string& prefix)
{
  std::vector<model::Pod> pods;
  for (std::size_t i = 0; i < n; ++i) {
    pods.push_back(named(prefix + std::to_string(i)));
  }
  return pods;
}

// The cluster's pods in index order have these names, and the first ones are where `where` says.
void check_pods(const Cluster& c, const std::vector<std::string>& names, const std::vector<const model::Pod*>& where)
{
  REQUIRE(c.pods().size() == names.size());
  for (PodIndex i = 0; i < names.size(); ++i) {
    INFO("pod " << i);
    CHECK(c.pod(i).pod().name == names[i]);
    if (i < where.size()) {
      CHECK(&c.pod(i).pod() == where[i]);
    }
  }
}

} // namespace

TEST_CASE("Pods stay where they are as more join the cluster", "[cluster]")
{
  Cluster c;
  std::vector<std::string> names;
  std::vector<const model::Pod*> where;
  for (int i = 0; i < 3; ++i) {
    names.push_back("seed-" + std::to_string(i));
    where.push_back(&c.pod(c.add_pod(named(names.back()))).pod());
  }
  auto trace = workload(5, "trace-");
  std::vector<const model::Pod*> trace_where;
  for (const auto& p : trace) {
    names.push_back(p.name);
    trace_where.push_back(&p);
  }
  c.adopt_pods(std::move(trace));
  where.insert(where.end(), trace_where.begin(), trace_where.end()); // taken whole: not moved
  check_pods(c, names, where);
  // Enough pods after it for several new blocks and for the state table to move.
  for (int i = 0; i < 5000; ++i) {
    names.push_back("late-" + std::to_string(i));
    where.push_back(&c.pod(c.add_pod(named(names.back()))).pod());
  }
  check_pods(c, names, where);
  // The pending list knows the taken pods as any other.
  c.set_pending(4, 10);
  c.set_pending(5007, 20);
  CHECK(c.pending() == std::vector<PodIndex>{4, 5007});
  c.clear_pending(4);
  CHECK(c.pending() == std::vector<PodIndex>{5007});

  // A moved cluster keeps the same pods in the same places.
  const Cluster moved = std::move(c);
  check_pods(moved, names, where);
}

TEST_CASE("A copied cluster has pods of its own", "[cluster]")
{
  Cluster c;
  c.add_pod(named("a"));
  c.adopt_pods(workload(3, "w-"));
  c.add_pod(named("b"));
  const std::vector<std::string> names{"a", "w-0", "w-1", "w-2", "b"};

  Cluster copy = c;
  check_pods(copy, names, {});
  for (PodIndex i = 0; i < names.size(); ++i) {
    CHECK(&copy.pod(i).pod() != &c.pod(i).pod());
  }
  copy.pod_mut(2).pod().started_before = 7;
  copy.add_pod(named("c"));
  CHECK(c.pod(2).pod().started_before == 0);
  CHECK(copy.pod(2).pod().started_before == 7);
  CHECK(c.pods().size() == 5);
  check_pods(copy, {"a", "w-0", "w-1", "w-2", "b", "c"}, {});

  // Assigned over a cluster with pods of its own: the other's pods, copied.
  Cluster other;
  other.adopt_pods(workload(9, "x-"));
  other = c;
  check_pods(other, names, {});
  other.pod_mut(0).pod().started_before = 3;
  CHECK(c.pod(0).pod().started_before == 0);
}
