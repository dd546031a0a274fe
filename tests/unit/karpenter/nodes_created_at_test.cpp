// NodesCreatedAt: the nodes created at a clock value, which provisioning nominates after each
// solve, kept from the nodes added since the last update instead of a walk over the cluster.

#include "core/cluster/cluster.hpp"
#include "core/karpenter/controller.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace capsim;
using capsim::cluster::NodeIndex;

namespace {

NodeIndex add(cluster::Cluster& c, SimTime created_at)
{
  cluster::NodeState n;
  n.name = "node-" + std::to_string(c.nodes().size());
  n.lifecycle = cluster::NodeLifecycle::ready;
  n.created_at = created_at;
  return c.add_node(std::move(n));
}

// What the walk over every node gives.
std::vector<NodeIndex> walked(const cluster::Cluster& c, SimTime at)
{
  std::vector<NodeIndex> out;
  for (NodeIndex n = 0; n < c.nodes().size(); ++n) {
    if (c.node(n).created_at == at) {
      out.push_back(n);
    }
  }
  return out;
}

} // namespace

TEST_CASE("NodesCreatedAt: nodes launched as the clock runs", "[karpenter][provisioning]")
{
  cluster::Cluster c;
  karpenter::NodesCreatedAt created;
  add(c, 0);
  add(c, 0);
  created.update(c, 0);
  CHECK(created.nodes == std::vector<NodeIndex>{0, 1});
  // The same clock value again: a node launched meanwhile joins.
  add(c, 0);
  created.update(c, 0);
  CHECK(created.nodes == std::vector<NodeIndex>{0, 1, 2});
  // A later one: only the nodes launched at it.
  add(c, 10);
  add(c, 10);
  created.update(c, 10);
  CHECK(created.nodes == std::vector<NodeIndex>{3, 4});
  created.update(c, 20);
  CHECK(created.nodes.empty());
  add(c, 20);
  created.update(c, 20);
  CHECK(created.nodes == std::vector<NodeIndex>{5});
  CHECK(created.nodes == walked(c, 20));
}

TEST_CASE("NodesCreatedAt: a node created after the clock value it was added at", "[karpenter][provisioning]")
{
  // (A cluster read from a dump: its nodes' creation times come from the dump, in any order.)
  cluster::Cluster c;
  karpenter::NodesCreatedAt created;
  add(c, 50);
  add(c, 5);
  created.update(c, 5);
  CHECK(created.nodes == std::vector<NodeIndex>{1});
  add(c, 30);
  created.update(c, 30);
  CHECK(created.nodes == std::vector<NodeIndex>{2});
  // Node 0, looked at before, was created at 50: the nodes looked at are walked again.
  created.update(c, 50);
  CHECK(created.nodes == std::vector<NodeIndex>{0});
  created.update(c, 5);
  CHECK(created.nodes == std::vector<NodeIndex>{1});
  for (const SimTime at : {0, 5, 30, 50, 60}) {
    created.update(c, at);
    CHECK(created.nodes == walked(c, at));
  }
}

TEST_CASE("NodesCreatedAt: another cluster starts over", "[karpenter][provisioning]")
{
  cluster::Cluster c;
  karpenter::NodesCreatedAt created;
  add(c, 7);
  created.update(c, 7);
  CHECK(created.nodes == std::vector<NodeIndex>{0});
  cluster::Cluster other; // (a new instance id, though it may reuse the address)
  add(other, 3);
  add(other, 7);
  created.update(other, 7);
  CHECK(created.nodes == std::vector<NodeIndex>{1});
}
