// Volume topology cases ported from Karpenter's provisioning suite, kubernetes-sigs/karpenter
// pkg/controllers/provisioning/suite_test.go (Context "Volume Topology Requirements") and
// scheduling/topology_test.go: the fake default catalog, test.NodePool() and the upstream
// expectations. Upstream resolves a pod's claims in volumetopology.go; capsim's scenario reader
// does that (tests/unit/io/volumes_test.cpp) and hands the schedulers the result in PodSpec's
// volume fields, which these cases set directly: the StorageClass of the context allows
// test-zone-2 and test-zone-3 (WaitForFirstConsumer), so an unbound claim of it gives the
// alternative `zone In [test-zone-2, test-zone-3]`, and a claim bound to a volume in
// test-zone-3 gives `zone In [test-zone-3]`.

#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

const std::vector<Requirement> k_class_zones{req(k_zone, Operator::in, {"test-zone-2", "test-zone-3"})};
const std::vector<Requirement> k_volume_zone{req(k_zone, Operator::in, {"test-zone-3"})};

PodOptions with_volume(std::vector<Requirement> term, std::vector<Requirement> node_requirements = {})
{
  PodOptions o;
  o.volume_terms.push_back(std::move(term));
  o.node_requirements = std::move(node_requirements);
  return o;
}

} // namespace

TEST_CASE("suite_test.go Volume Topology Requirements: should schedule to storage class zones if volume does not exist",
          "[karpenter][upstream][volumes]")
{
  Env env;
  env.node_pool();
  const auto pod = env.pod(with_volume(k_class_zones, {req(k_zone, Operator::in, {"test-zone-1", "test-zone-3"})}));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
}

TEST_CASE("suite_test.go Volume Topology Requirements: should not schedule if storage class zones are incompatible",
          "[karpenter][upstream][volumes]")
{
  Env env;
  env.node_pool();
  const auto pod = env.pod(with_volume(k_class_zones, {req(k_zone, Operator::in, {"test-zone-1"})}));
  const auto round = env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
  CHECK(round.result.claims.empty());
}

TEST_CASE("suite_test.go Volume Topology Requirements: should schedule to volume zones if volume already bound",
          "[karpenter][upstream][volumes]")
{
  Env env;
  env.node_pool();
  const auto pod = env.pod(with_volume(k_volume_zone));
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
}

TEST_CASE("suite_test.go Volume Topology Requirements: should not schedule if volume zones are incompatible",
          "[karpenter][upstream][volumes]")
{
  Env env;
  env.node_pool();
  const auto pod = env.pod(with_volume(k_volume_zone, {req(k_zone, Operator::in, {"test-zone-1"})}));
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("suite_test.go Volume Topology Requirements: should not ignore hostname affinity when using non-local path "
          "volumes",
          "[karpenter][upstream][volumes]")
{
  // A CSI volume's hostname affinity stays (only local and hostPath volumes drop it): no node
  // Karpenter can create has that hostname.
  Env env;
  env.node_pool();
  const auto pod = env.pod(with_volume({req(k_host, Operator::in, {"random-node-name"})}));
  env.provision(pod);
  CHECK_FALSE(env.scheduled(pod));
}

TEST_CASE("suite_test.go Volume Topology Requirements: should not relax an added volume topology zone node-selector "
          "away",
          "[karpenter][upstream][volumes]")
{
  Env env;
  env.node_pool();
  PodOptions o = with_volume(k_volume_zone);
  o.node_requirement_terms = {{req("example.com/label", Operator::in, {"unsupported"})},
                              {req(k_ct, Operator::in, {"on-demand"})}};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-3");
}

TEST_CASE("suite_test.go Volume Topology Requirements: should schedule valid pods when a pod with an invalid pvc is "
          "encountered (pvc)",
          "[karpenter][upstream][volumes]")
{
  // ValidatePersistentVolumeClaims: the pod is ignored (IgnoredPodCount), the others schedule.
  Env env;
  env.node_pool();
  PodOptions invalid;
  invalid.volume_error = R"(persistentvolumeclaim "invalid" not found)";
  const auto invalid_pod = env.pod(invalid);
  const auto first = env.provision(invalid_pod);
  CHECK(first.result.claims.empty());
  const auto pod = env.pod();
  env.provision(pod);
  CHECK_FALSE(env.scheduled(invalid_pod));
  CHECK(env.scheduled(pod));
}

TEST_CASE("suite_test.go Volume Topology Requirements: a pod's volume zones narrow its NodeClaim only",
          "[karpenter][volumes]")
{
  // The claim the pod gets is limited to the volume's zone; the requirement is the volume's,
  // not the pod's (it is not validated as a pod requirement, e.g. the restricted hostname).
  Env env;
  env.node_pool();
  const auto pod = env.pod(with_volume({req(k_zone, Operator::in, {"test-zone-2"})}));
  const auto round = env.provision(pod);
  REQUIRE(round.result.claims.size() == 1);
  const auto* zone = round.result.claims[0].requirements.find(k_zone);
  REQUIRE(zone != nullptr);
  CHECK(zone->values == std::vector<std::string>{"test-zone-2"});
}

TEST_CASE("suite_test.go Volume Topology Requirements: volume zone alternatives in separate terms act as their union",
          "[karpenter][volumes]")
{
  // A PersistentVolume whose node affinity lists each zone in a term of its own: Karpenter tries
  // the alternatives in order, which for one key is the same as their union.
  Env env;
  env.node_pool();
  PodOptions o;
  o.volume_terms = {{req(k_zone, Operator::in, {"test-zone-3"})}, {req(k_zone, Operator::in, {"test-zone-2"})}};
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-1", "test-zone-2"})};
  const auto pod = env.pod(o);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-2");
}

TEST_CASE("topology_test.go Topology: should schedule pod with PVC and TSC minDomains=3 when pods are spread across 3 "
          "zones",
          "[karpenter][upstream][volumes][topology]")
{
  // The volume's zone narrows the NodeClaim, not the domains topology spread counts: with the
  // pod's own (empty) node affinity all three zones are eligible, so minDomains=3 is met.
  Env env;
  env.node_pool();
  const model::Labels labels{{"test", "test"}};
  auto tsc = spread(k_zone, labels);
  tsc.min_domains = 3;
  PodOptions spread_pod;
  spread_pod.labels = labels;
  spread_pod.spread = {tsc};
  const auto initial = env.pods(spread_pod, 3);
  env.provision(initial);
  for (const auto p : initial) {
    REQUIRE(env.scheduled(p));
  }
  CHECK(env.skew(k_zone, match_labels(labels)) == std::vector<int>{1, 1, 1});

  PodOptions with_pvc = spread_pod;
  with_pvc.volume_terms = {{req(k_zone, Operator::in, {"test-zone-1"})}};
  const auto pod = env.pod(with_pvc);
  env.provision(pod);
  REQUIRE(env.scheduled(pod));
  CHECK(env.label(pod, k_zone) == "test-zone-1");
  CHECK(env.skew(k_zone, match_labels(labels)) == std::vector<int>{1, 1, 2});
}
