// A terminated node keeps what reports and logs read of it (name, zone, instance type, times) and
// gives back its labels: a week launches tens of thousands of nodes.

#include "core/cluster/cluster.hpp"
#include "core/scheduling/filters.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace capsim;
using cluster::Cluster;
using cluster::NodeLifecycle;

TEST_CASE("A terminated node gives back its labels and still answers to its name and zone", "[cluster]")
{
  Cluster c;
  cluster::NodeState n;
  n.name = "default-abc12";
  n.zone = "us-east-1a";
  n.capacity_type = "spot";
  n.lifecycle = NodeLifecycle::ready;
  n.labels = {{std::string(model::labels::k_hostname), n.name},
              {std::string(model::labels::k_zone), n.zone},
              {"team", "checkout"}};
  const auto kept = c.add_node(n);
  const auto other = c.add_node(n);

  c.mark_terminated(kept, 60'000);

  const auto& dead = c.node(kept);
  CHECK_FALSE(dead.alive());
  CHECK(dead.terminated_at == 60'000);
  CHECK(dead.labels.empty());
  // What the report reads stays.
  CHECK(dead.name == "default-abc12");
  CHECK(dead.zone == "us-east-1a");
  CHECK(dead.capacity_type == "spot");
  // Hostname and zone are still answered, from the name and the zone.
  const auto* host = scheduling::node_label(dead, std::string(model::labels::k_hostname));
  const auto* zone = scheduling::node_label(dead, std::string(model::labels::k_zone));
  REQUIRE(host != nullptr);
  REQUIRE(zone != nullptr);
  CHECK(*host == "default-abc12");
  CHECK(*zone == "us-east-1a");
  CHECK(scheduling::node_label(dead, "team") == nullptr);
  // The live node keeps all of its own.
  CHECK(c.node(other).labels.size() == 3);
  REQUIRE(scheduling::node_label(c.node(other), "team") != nullptr);
  CHECK(*scheduling::node_label(c.node(other), "team") == "checkout");
}
