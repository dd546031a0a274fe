// VolumeBinding as kube-scheduler applies it to the volume fields the scenario reader fills in
// (PodSpec::volume_affinity, volume_error, volume_binds_on_schedule), and the zone pin a
// WaitForFirstConsumer claim gets when its pod first binds (Cluster::bind).

#include "helpers.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::test;
using scheduling::FilterPlugin;
using scheduling::KubeScheduler;

namespace {

const std::string k_zone{model::labels::k_zone};

model::NodeSelectorTerm zone_term(std::vector<std::string> zones, const std::string& key = k_zone)
{
  return {{model::Requirement::make(key, model::Operator::in, std::move(zones))}};
}

void three_zones(Cluster& c)
{
  add_node(c, "a", 4000, 16 * k_gi, {{k_zone, "zone-a"}});
  add_node(c, "b", 4000, 16 * k_gi, {{k_zone, "zone-b"}});
  add_node(c, "c", 4000, 16 * k_gi, {{k_zone, "zone-c"}});
}

} // namespace

TEST_CASE("VolumeBinding: a node outside the volume's node affinity is filtered", "[scheduling][filters][volumes]")
{
  KubeScheduler s;
  Cluster c;
  three_zones(c);
  const auto pod = make_pod("p", make_spec([](auto& sp) { sp.volume_affinity = {zone_term({"zone-b"})}; }), 100, 0);
  CHECK(s.check(c, pod, 0).plugin == FilterPlugin::volume_binding);
  CHECK(s.check(c, pod, 0).reason == "node(s) had volume node affinity conflict");
  CHECK(s.feasible(c, pod, 1));
  CHECK_FALSE(s.feasible(c, pod, 2));
  CHECK(s.explain(c, pod) == "1/3 nodes are available");
}

TEST_CASE("VolumeBinding: ORed volume terms, and the EBS CSI zone key", "[scheduling][filters][volumes]")
{
  KubeScheduler s;
  Cluster c;
  three_zones(c);
  // A PersistentVolume of the EBS CSI driver names its zone with the driver's own key, which the
  // driver's node plugin puts on every node.
  const auto pod = make_pod("p", make_spec([](auto& sp) {
                              sp.volume_affinity = {zone_term({"zone-a"}, std::string(model::labels::k_ebs_csi_zone)),
                                                    zone_term({"zone-c"})};
                            }),
                            100, 0);
  CHECK(s.feasible(c, pod, 0));
  CHECK_FALSE(s.feasible(c, pod, 1));
  CHECK(s.feasible(c, pod, 2));
}

TEST_CASE("VolumeBinding: a claim no node can satisfy fails on every node with its message",
          "[scheduling][filters][volumes]")
{
  KubeScheduler s;
  Cluster c;
  three_zones(c);
  const auto spec = make_spec([](auto& sp) { sp.volume_error = R"(persistentvolumeclaim "data" not found)"; });
  const auto p = pending_pod(c, "p", spec, 100, 0);
  const auto q = pending_pod(c, "q", make_spec(), 100, 0);
  const auto bound = s.bind_pending(c, 0);
  REQUIRE(bound.size() == 1);
  CHECK(bound[0].pod == q);
  CHECK(c.pod(p).phase == cluster::PodPhase::pending);
  CHECK(s.check(c, c.pod(p).pod(), 0).reason == R"(persistentvolumeclaim "data" not found)");
  CHECK(s.explain(c, c.pod(p).pod()) == R"(0/3 nodes are available: 3 persistentvolumeclaim "data" not found.)");
}

TEST_CASE("VolumeBinding: topology spread counts domains by node affinity, not by the volume",
          "[scheduling][volumes][topology]")
{
  // Upstream keeps a volume's zone out of the pod's node affinity, so a zonal spread with
  // minDomains 3 still sees three eligible domains: the pod goes to its volume's zone.
  KubeScheduler s;
  Cluster c;
  three_zones(c);
  const model::Labels labels{{"app", "db"}};
  const auto plain = labelled(labels, [&](auto& sp) { sp.topology_spread = {spread(1, k_zone, true, match_labels(labels), 3)}; });
  bind_pod(c, "a1", plain, 0);
  bind_pod(c, "b1", plain, 1);
  bind_pod(c, "c1", plain, 2);
  const auto with_volume = labelled(labels, [&](auto& sp) {
    sp.topology_spread = {spread(1, k_zone, true, match_labels(labels), 3)};
    sp.volume_affinity = {zone_term({"zone-a"})};
  });
  const auto p = pending_pod(c, "p", with_volume, 100, 0);
  const auto bound = s.bind_pending(c, 0);
  REQUIRE(bound.size() == 1);
  CHECK(c.pod(p).node == 0);
}

TEST_CASE("Cluster::bind provisions a WaitForFirstConsumer claim in the node's zone", "[cluster][volumes]")
{
  Cluster c;
  three_zones(c);
  const auto spec = make_spec([](auto& sp) {
    sp.volume_binds_on_schedule = true;
    sp.volume_affinity = {zone_term({"zone-b", "zone-c"})}; // the class's allowedTopologies
  });
  const auto p = pending_pod(c, "db-0", spec, 100, 0);
  const auto q = pending_pod(c, "db-1", spec, 100, 0);
  c.bind(p, 1, 0);
  c.bind(q, 2, 0);
  const auto& pinned = *c.pod(p).pod().spec;
  CHECK_FALSE(pinned.volume_binds_on_schedule);
  REQUIRE(pinned.volume_affinity.size() == 1);
  CHECK(pinned.volume_affinity[0].requirements.size() == 2); // the class's zones and the node's
  CHECK(c.pod(q).pod().spec != c.pod(p).pod().spec);             // each claim where its own pod went
  // Pods pinned to one zone share one spec.
  const auto r = pending_pod(c, "db-2", spec, 100, 0);
  c.bind(r, 1, 0);
  CHECK(c.pod(r).pod().spec == c.pod(p).pod().spec);
  // The pin outlives the binding: evicted, the pod can only come back to its volume's zone.
  c.unbind(p, 10);
  c.set_pending(p, 10);
  KubeScheduler s;
  CHECK_FALSE(s.feasible(c, c.pod(p).pod(), 0));
  CHECK(s.feasible(c, c.pod(p).pod(), 1));
  CHECK_FALSE(s.feasible(c, c.pod(p).pod(), 2));
}

TEST_CASE("kube-scheduler: a pod pinned by its first binding is scheduled into its zone afterwards",
          "[scheduling][volumes]")
{
  // The scheduler's per-pod state follows the spec the binding gave the pod.
  KubeScheduler s;
  Cluster c;
  const auto a = add_node(c, "a", 4000, 16 * k_gi, {{k_zone, "zone-a"}});
  const auto spec = make_spec([](auto& sp) { sp.volume_binds_on_schedule = true; });
  const auto p = pending_pod(c, "db-0", spec, 3000, 0);
  REQUIRE(s.bind_pending(c, 0).size() == 1);
  REQUIRE(c.pod(p).node == a);
  c.unbind(p, 10);
  c.set_pending(p, 10);
  // Another pod takes the room in zone-a and a node with room appears in zone-b: the pod stays
  // pending, its volume is in zone-a.
  bind_pod(c, "other", make_spec(), a, 2000, 0);
  const auto b = add_node(c, "b", 4000, 16 * k_gi, {{k_zone, "zone-b"}});
  CHECK(s.bind_pending(c, 20).empty());
  CHECK(c.pod(p).phase == cluster::PodPhase::pending);
  CHECK(s.check(c, c.pod(p).pod(), b).plugin == FilterPlugin::volume_binding);
}

TEST_CASE("kube-scheduler: pods pinned by their claims still count as their workload for default spreading",
          "[scheduling][volumes][topology]")
{
  // System default spreading (ScheduleAnyway by hostname and zone) counts a StatefulSet's pods
  // together, whichever zone their claims pinned them to: the second replica goes to the other
  // zone, though zone-a's second node has a little more room.
  KubeScheduler s;
  Cluster c;
  const auto a1 = add_node(c, "a1", 4000, 16 * k_gi, {{k_zone, "zone-a"}});
  add_node(c, "a2", 4100, 16 * k_gi, {{k_zone, "zone-a"}});
  const auto b1 = add_node(c, "b1", 4000, 16 * k_gi, {{k_zone, "zone-b"}});
  const auto spec = labelled({{"app", "db"}}, [](auto& sp) {
    sp.owner = model::OwnerKind::stateful_set;
    sp.volume_binds_on_schedule = true;
  });
  const auto first = bind_pod(c, "db-0", spec, a1, 100, 0);
  REQUIRE(c.pod(first).pod().spec->counted_with == spec);
  const auto second = pending_pod(c, "db-1", spec, 100, 0);
  REQUIRE(s.bind_pending(c, 0).size() == 1);
  CHECK(c.pod(second).node == b1);
}

TEST_CASE("kube-scheduler: a pinned pod that finds no node does not fail its unpinned siblings",
          "[scheduling][volumes]")
{
  // kube-scheduler skips a pod identical to one that found no node in the same pass. A pod pinned
  // by its binding is no longer identical to the StatefulSet's unpinned pods: when it cannot
  // return to its zone, a new replica of the same spec still schedules elsewhere.
  KubeScheduler s;
  Cluster c;
  const auto a = add_node(c, "a", 4000, 16 * k_gi, {{k_zone, "zone-a"}});
  const auto spec = make_spec([](auto& sp) { sp.volume_binds_on_schedule = true; });
  const auto p = pending_pod(c, "db-0", spec, 3000, 0);
  REQUIRE(s.bind_pending(c, 0).size() == 1);
  REQUIRE(c.pod(p).node == a);
  c.unbind(p, 10);
  c.set_pending(p, 10);
  bind_pod(c, "other", make_spec(), a, 2000, 0);
  const auto b = add_node(c, "b", 4000, 16 * k_gi, {{k_zone, "zone-b"}});
  const auto q = pending_pod(c, "db-1", spec, 3000, 0, 10);
  const auto bound = s.bind_pending(c, 20);
  REQUIRE(bound.size() == 1);
  CHECK(bound[0].pod == q);
  CHECK(c.pod(q).node == b);
  CHECK(c.pod(p).phase == cluster::PodPhase::pending);
}
