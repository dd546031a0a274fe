// Behaviour cases ported from Karpenter's topology suite:
// kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/topology_test.go
// (Describe "Topology"), fake default catalog, NodePool with capacity-type Exists.

#include "tests/unit/karpenter/harness.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace capsim;
using namespace capsim::karpenter;
using namespace capsim::karpenter::test;

namespace {

const model::Labels k_labels{{"test", "test"}};

model::NodePool& topology_pool(Env& env, const std::string& name = "default")
{
  auto& np = env.node_pool(name);
  np.requirements.add(req(k_ct, Operator::exists));
  return np;
}

void set_zones(model::NodePool& np, std::vector<std::string> zones)
{
  np.requirements.erase(k_zone);
  np.requirements.add(req(k_zone, Operator::in, std::move(zones)));
}

PodOptions spread_pod(const model::TopologySpreadConstraint& tsc, std::int64_t cpu_milli = 0)
{
  PodOptions o;
  o.labels = k_labels;
  o.spread = {tsc};
  o.cpu_milli = cpu_milli;
  return o;
}

std::vector<int> v(std::initializer_list<int> xs)
{
  std::vector<int> out(xs);
  std::sort(out.begin(), out.end());
  return out;
}

model::LabelSelector everything()
{
  return {};
}

} // namespace

TEST_CASE("should ignore unknown topology keys", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  const auto p1 = env.pod(spread_pod(spread("unknown", k_labels)));
  const auto p2 = env.pod();
  env.provision({p1, p2});
  CHECK_FALSE(env.scheduled(p1));
  CHECK(env.scheduled(p2));
}

TEST_CASE("should not spread when a nil label selector is defined", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  auto tsc = spread(k_zone, {});
  tsc.selector.reset();
  env.provision(env.pods(spread_pod(tsc), 2));
  CHECK(env.skew(k_zone, everything()) == v({2}));
}

// --- Zonal --------------------------------------------------------------------------------------

TEST_CASE("should balance pods across zones (match labels)", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  env.provision(env.pods(spread_pod(spread(k_zone, k_labels)), 4));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1, 2}));
}

TEST_CASE("should balance pods across zones (match expressions)", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  auto tsc = spread(k_zone, {});
  tsc.selector->match_expressions = {{"test", Operator::in, {"test"}}};
  env.provision(env.pods(spread_pod(tsc), 4));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1, 2}));
}

TEST_CASE("should respect NodePool zonal constraints", "[karpenter][topology]")
{
  Env env;
  set_zones(topology_pool(env), {"test-zone-1", "test-zone-2", "test-zone-3"});
  env.provision(env.pods(spread_pod(spread(k_zone, k_labels)), 4));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1, 2}));
}

TEST_CASE("should respect NodePool zonal constraints (subset) with requirements", "[karpenter][topology]")
{
  Env env;
  set_zones(topology_pool(env), {"test-zone-1", "test-zone-2"});
  env.provision(env.pods(spread_pod(spread(k_zone, k_labels)), 4));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({2, 2}));
}

TEST_CASE("should respect NodePool zonal constraints (subset) with labels", "[karpenter][topology]")
{
  Env env;
  topology_pool(env).template_labels = {{k_zone, "test-zone-1"}};
  env.provision(env.pods(spread_pod(spread(k_zone, k_labels)), 4));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({4}));
}

TEST_CASE("should respect NodePool zonal constraints (subset) with labels across NodePools", "[karpenter][topology]")
{
  Env env;
  auto& np = topology_pool(env, "np-a");
  set_zones(np, {"test-zone-1", "test-zone-2"});
  np.template_labels = {{k_zone, "test-zone-1"}};
  env.node_pool("np-b").template_labels = {{k_zone, "test-zone-2"}};
  env.provision(env.pods(spread_pod(spread(k_zone, k_labels)), 4));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({2, 2}));
}

TEST_CASE("should respect NodePool zonal constraints (existing pod)", "[karpenter][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  PodOptions first;
  first.labels = k_labels;
  first.cpu_milli = 1100;
  first.node_selector = {{k_zone, "test-zone-3"}};
  const auto p = env.pod(first);
  env.provision(p);
  REQUIRE(env.scheduled(p));
  set_zones(np, {"test-zone-1", "test-zone-2"});
  env.provision(env.pods(spread_pod(spread(k_zone, k_labels), 1100), 6));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 2, 2}));
}

TEST_CASE("should schedule to the non-minimum domain if its all that's available", "[karpenter][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  const auto tsc = spread(k_zone, k_labels, 5);
  set_zones(np, {"test-zone-1"});
  env.provision(env.pod(spread_pod(tsc, 1100)));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1}));
  set_zones(np, {"test-zone-2"});
  env.provision(env.pod(spread_pod(tsc, 1100)));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1}));
  set_zones(np, {"test-zone-3"});
  env.provision(env.pods(spread_pod(tsc, 1100), 10));
  // max skew of 5: zone-1/2 have one pod each, zone-3 gets 6 and the rest fail
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1, 6}));
}

TEST_CASE("should only schedule to minimum domains if already violating max skew", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  const auto tsc = spread(k_zone, k_labels);
  const auto pods = env.pods(spread_pod(tsc, 1100), 9);
  env.provision(pods);
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({3, 3, 3}));
  for (const auto p : pods) {
    if (env.label(p, k_zone) != "test-zone-1") {
      env.remove(p);
    }
  }
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({3}));
  env.provision(env.pods(spread_pod(tsc, 1100), 3));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({3, 1, 2}));
}

TEST_CASE("should not violate max-skew when unsat = do not schedule", "[karpenter][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  const auto tsc = spread(k_zone, k_labels);
  set_zones(np, {"test-zone-1"});
  env.provision(env.pod(spread_pod(tsc, 1100)));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1}));
  set_zones(np, {"test-zone-2", "test-zone-3"});
  env.provision(env.pods(spread_pod(tsc, 1100), 10));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 2, 2}));
}

TEST_CASE("should not violate max-skew when unsat = do not schedule (discover domains)", "[karpenter][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  const auto tsc = spread(k_zone, k_labels);
  set_zones(np, {"test-zone-1"});
  PodOptions plain;
  plain.labels = k_labels;
  plain.cpu_milli = 1100;
  env.provision(env.pod(plain));
  set_zones(np, {"test-zone-2", "test-zone-3"});
  env.provision(env.pods(spread_pod(tsc, 1100), 10));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 2, 2}));
}

TEST_CASE("should only count running/scheduled pods with matching labels scheduled to nodes with a corresponding "
          "domain",
          "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  const auto first = env.node("first", {{k_zone, "test-zone-1"}}, {});
  const auto second = env.node("second", {{k_zone, "test-zone-2"}}, {});
  const auto third = env.node("third", {}, {}); // missing topology domain
  PodOptions plain;
  env.bind(env.pod(plain), first); // ignored, missing labels
  PodOptions labelled;
  labelled.labels = k_labels;
  env.bind(env.pod(labelled), third); // ignored, no domain on node
  PodOptions other_ns = labelled;
  other_ns.ns = "wrong-namespace";
  env.bind(env.pod(other_ns), first); // ignored, wrong namespace
  env.bind(env.pod(labelled), first);
  env.bind(env.pod(labelled), first);
  env.bind(env.pod(labelled), second);
  const auto tsc = spread(k_zone, k_labels);
  env.provision(env.pods(spread_pod(tsc), 2));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({2, 2, 1}));
}

TEST_CASE("should match all pods when labelSelector is not specified", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  env.provision(env.pod());
  CHECK(env.skew(k_zone, everything()) == v({1}));
}

TEST_CASE("should handle interdependent selectors", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  PodOptions o;
  o.spread = {spread(k_host, k_labels)};
  const auto pods = env.pods(o, 5);
  env.provision(pods);
  std::set<std::string> nodes;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    nodes.insert(env.node_of(p).name);
  }
  CHECK(nodes.size() == 1);
}

TEST_CASE("should respect minDomains constraints", "[karpenter][topology]")
{
  Env env;
  set_zones(topology_pool(env), {"test-zone-1", "test-zone-2"});
  auto tsc = spread(k_zone, k_labels);
  tsc.min_domains = 3;
  env.provision(env.pods(spread_pod(tsc), 3));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1}));
}

TEST_CASE("satisfied minDomains constraints (equal) should allow expected pod scheduling", "[karpenter][topology]")
{
  Env env;
  set_zones(topology_pool(env), {"test-zone-1", "test-zone-2", "test-zone-3"});
  auto tsc = spread(k_zone, k_labels);
  tsc.min_domains = 3;
  env.provision(env.pods(spread_pod(tsc), 11));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({4, 4, 3}));
}

TEST_CASE("satisfied minDomains constraints (greater than minimum) should allow expected pod scheduling",
          "[karpenter][topology]")
{
  Env env;
  set_zones(topology_pool(env), {"test-zone-1", "test-zone-2", "test-zone-3"});
  auto tsc = spread(k_zone, k_labels);
  tsc.min_domains = 2;
  env.provision(env.pods(spread_pod(tsc), 11));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({4, 4, 3}));
}

// --- Hostname -----------------------------------------------------------------------------------

TEST_CASE("should balance pods across nodes", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  env.provision(env.pods(spread_pod(spread(k_host, k_labels)), 4));
  CHECK(env.skew(k_host, match_labels(k_labels)) == v({1, 1, 1, 1}));
}

TEST_CASE("should balance pods on the same hostname up to maxskew", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  env.provision(env.pods(spread_pod(spread(k_host, k_labels, 4)), 4));
  CHECK(env.skew(k_host, match_labels(k_labels)) == v({4}));
}

TEST_CASE("balance multiple deployments with hostname topology spread", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  const auto app = [](const std::string& name) {
    PodOptions o;
    o.labels = {{"app", name}};
    o.spread = {spread(k_host, {{"app", name}})};
    return o;
  };
  auto pods = env.pods(app("app1"), 2);
  const auto more = env.pods(app("app2"), 2);
  pods.insert(pods.end(), more.begin(), more.end());
  env.provision(pods);
  for (const auto p : pods) {
    CHECK(env.scheduled(p));
  }
  CHECK(env.node_count() == 2);
}

TEST_CASE("balance multiple deployments with hostname topology spread & varying arch", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  const auto app = [](const std::string& name, const std::string& arch) {
    PodOptions o;
    o.labels = {{"app", name}};
    o.node_requirements = {req(k_arch, Operator::in, {arch})};
    o.spread = {spread(k_host, {{"app", name}})};
    return o;
  };
  auto pods = env.pods(app("app1", "amd64"), 2);
  const auto more = env.pods(app("app2", "arm64"), 2);
  pods.insert(pods.end(), more.begin(), more.end());
  env.provision(pods);
  for (const auto p : pods) {
    CHECK(env.scheduled(p));
  }
  CHECK(env.node_count() == 4);
}

// --- CapacityType -------------------------------------------------------------------------------

TEST_CASE("should balance pods across capacity types", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  env.provision(env.pods(spread_pod(spread(k_ct, k_labels)), 4));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({2, 2}));
}

TEST_CASE("should not violate max-skew when unsat = do not schedule (capacity type)", "[karpenter][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  const auto tsc = spread(k_ct, k_labels);
  np.requirements.erase(k_ct);
  np.requirements.add(req(k_ct, Operator::in, {"spot"}));
  env.provision(env.pod(spread_pod(tsc, 1100)));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({1}));
  np.requirements.erase(k_ct);
  np.requirements.add(req(k_ct, Operator::in, {"on-demand"}));
  env.provision(env.pods(spread_pod(tsc, 1100), 5));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({1, 2}));
}

TEST_CASE("should violate max-skew when unsat = schedule anyway (capacity type)", "[karpenter][topology]")
{
  Env env;
  auto& np = topology_pool(env);
  const auto tsc = spread(k_ct, k_labels, 1, false);
  np.requirements.erase(k_ct);
  np.requirements.add(req(k_ct, Operator::in, {"spot"}));
  env.provision(env.pod(spread_pod(tsc, 1100)));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({1}));
  np.requirements.erase(k_ct);
  np.requirements.add(req(k_ct, Operator::in, {"on-demand"}));
  env.provision(env.pods(spread_pod(tsc, 1100), 5));
  CHECK(env.skew(k_ct, match_labels(k_labels)) == v({1, 5}));
}

// --- Combined -----------------------------------------------------------------------------------

TEST_CASE("should spread pods while respecting both constraints (hostname and zonal)", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  PodOptions o;
  o.labels = k_labels;
  o.spread = {spread(k_zone, k_labels, 1), spread(k_host, k_labels, 3)};
  const auto max_per_host = [&] {
    const auto s = env.skew(k_host, match_labels(k_labels));
    return s.empty() ? 0 : s.back();
  };
  env.provision(env.pods(o, 2));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({1, 1}));
  CHECK(max_per_host() <= 3);
  env.provision(env.pods(o, 3));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({2, 2, 1}));
  CHECK(max_per_host() <= 3);
  env.provision(env.pods(o, 5));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({4, 3, 3}));
  CHECK(max_per_host() <= 3);
  env.provision(env.pods(o, 11));
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({7, 7, 7}));
  CHECK(max_per_host() <= 3);
}

TEST_CASE("should support matchLabelKeys", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  auto tsc = spread(k_host, k_labels);
  tsc.match_label_keys = {"test-label"};
  PodOptions a;
  a.labels = {{"test", "test"}, {"test-label", "value-a"}};
  a.spread = {tsc};
  PodOptions b = a;
  b.labels["test-label"] = "value-b";
  auto pods = env.pods(a, 2);
  const auto more = env.pods(b, 2);
  pods.insert(pods.end(), more.begin(), more.end());
  env.provision(pods);
  CHECK(env.skew(k_host, match_labels(k_labels)) == v({2, 2}));
}

TEST_CASE("should ignore unknown labels specified in matchLabelKeys", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  auto tsc = spread(k_host, k_labels);
  tsc.match_label_keys = {"test-label"};
  env.provision(env.pods(spread_pod(tsc), 4));
  CHECK(env.skew(k_host, match_labels(k_labels)) == v({1, 1, 1, 1}));
}

TEST_CASE("should limit spread options by nodeSelector", "[karpenter][topology]")
{
  Env env;
  topology_pool(env);
  PodOptions a = spread_pod(spread(k_zone, k_labels));
  a.node_selector = {{k_zone, "test-zone-1"}};
  PodOptions b = spread_pod(spread(k_zone, k_labels));
  b.node_selector = {{k_zone, "test-zone-2"}};
  auto pods = env.pods(a, 5);
  const auto more = env.pods(b, 10);
  pods.insert(pods.end(), more.begin(), more.end());
  env.provision(pods);
  CHECK(env.skew(k_zone, match_labels(k_labels)) == v({5, 10}));
}

// --- Pod Affinity / Anti-Affinity ---------------------------------------------------------------

TEST_CASE("should respect pod affinity (hostname)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  auto pods = env.pods(spread_pod(spread(k_host, k_labels)), 10);
  PodOptions target;
  target.labels = aff;
  PodOptions follower;
  follower.pod_requirements = {affinity_term(k_host, aff)};
  const auto p1 = env.pod(target);
  const auto p2 = env.pod(follower);
  pods.push_back(p1);
  pods.push_back(p2);
  env.provision(pods);
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.node_of(p1).name == env.node_of(p2).name);
}

TEST_CASE("should respect pod affinity (arch)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions a;
  a.labels = aff;
  a.spread = {spread(k_host, aff)};
  a.cpu_milli = 2000;
  a.node_selector = {{k_arch, "arm64"}};
  PodOptions b;
  b.labels = aff;
  b.spread = {spread(k_host, aff)};
  b.cpu_milli = 1000;
  b.pod_requirements = {affinity_term(k_arch, aff)};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.label(p1, k_arch) == env.label(p2, k_arch));
  CHECK(env.node_of(p1).name != env.node_of(p2).name);
}

TEST_CASE("should respect self pod affinity (hostname)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions o;
  o.labels = aff;
  o.pod_requirements = {affinity_term(k_host, aff)};
  const auto pods = env.pods(o, 3);
  env.provision(pods);
  std::set<std::string> nodes;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    nodes.insert(env.node_of(p).name);
  }
  CHECK(nodes.size() == 1);
}

TEST_CASE("should respect self pod affinity (zone w/ constraint)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions o;
  o.labels = aff;
  o.pod_requirements = {affinity_term(k_zone, aff)};
  o.node_requirements = {req(k_zone, Operator::in, {"test-zone-3"})};
  const auto pods = env.pods(o, 3);
  env.provision(pods);
  std::set<std::string> nodes;
  for (const auto p : pods) {
    REQUIRE(env.scheduled(p));
    nodes.insert(env.node_of(p).name);
    CHECK(env.label(p, k_zone) == "test-zone-3");
  }
  CHECK(nodes.size() == 1);
}

TEST_CASE("should allow violation of preferred pod affinity", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  auto pods = env.pods(spread_pod(spread(k_host, k_labels)), 10);
  PodOptions o;
  o.pod_preferences = {{50, affinity_term(k_host, {{"security", "s2"}})}};
  const auto aff = env.pod(o);
  pods.push_back(aff);
  env.provision(pods);
  CHECK(env.scheduled(aff));
}

TEST_CASE("should allow violation of preferred pod anti-affinity", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  PodOptions anti;
  anti.pod_anti_preferences = {{50, affinity_term(k_zone, k_labels)}};
  const auto aff_pods = env.pods(anti, 10);
  auto pods = env.pods(spread_pod(spread(k_zone, k_labels)), 3);
  pods.insert(pods.end(), aff_pods.begin(), aff_pods.end());
  env.provision(pods);
  for (const auto p : aff_pods) {
    CHECK(env.scheduled(p));
  }
}

TEST_CASE("should separate nodes using simple pod anti-affinity on hostname", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  for (int i = 0; i < 10; ++i) {
    PodOptions target;
    target.labels = aff;
    PodOptions avoider;
    avoider.pod_anti_requirements = {affinity_term(k_host, aff)};
    const auto p2 = env.pod(avoider);
    const auto p1 = env.pod(target);
    env.provision({p2, p1});
    REQUIRE(env.scheduled(p1));
    REQUIRE(env.scheduled(p2));
    CHECK(env.node_of(p1).name != env.node_of(p2).name);
  }
}

TEST_CASE("should not violate pod anti-affinity on zone", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  std::vector<cluster::PodIndex> zone_pods;
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    PodOptions o;
    o.labels = aff;
    o.cpu_milli = 2000;
    o.node_selector = {{k_zone, z}};
    zone_pods.push_back(env.pod(o));
  }
  PodOptions avoider;
  avoider.pod_anti_requirements = {affinity_term(k_zone, aff)};
  const auto p = env.pod(avoider);
  auto all = zone_pods;
  all.push_back(p);
  env.provision(all);
  for (const auto z : zone_pods) {
    CHECK(env.scheduled(z));
  }
  CHECK_FALSE(env.scheduled(p));
}

TEST_CASE("should not violate pod anti-affinity on zone (other schedules first)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions first;
  first.labels = aff;
  first.cpu_milli = 2000;
  PodOptions avoider;
  avoider.pod_anti_requirements = {affinity_term(k_zone, aff)};
  const auto p1 = env.pod(first);
  const auto p2 = env.pod(avoider);
  env.provision({p1, p2});
  CHECK(env.scheduled(p1));
  CHECK_FALSE(env.scheduled(p2));
}

TEST_CASE("should not violate pod anti-affinity (arch)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions a;
  a.labels = aff;
  a.spread = {spread(k_host, aff)};
  a.cpu_milli = 2000;
  a.node_selector = {{k_arch, "arm64"}};
  PodOptions b;
  b.labels = aff;
  b.spread = {spread(k_host, aff)};
  b.cpu_milli = 1000;
  b.pod_anti_requirements = {affinity_term(k_arch, aff)};
  const auto p1 = env.pod(a);
  const auto p2 = env.pod(b);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  REQUIRE(env.scheduled(p2));
  CHECK(env.label(p1, k_arch) != env.label(p2, k_arch));
}

TEST_CASE("should violate preferred pod anti-affinity on zone (inverse)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  std::vector<cluster::PodIndex> pods;
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    PodOptions o;
    o.cpu_milli = 2000;
    o.pod_anti_preferences = {{10, affinity_term(k_zone, aff)}};
    o.node_selector = {{k_zone, z}};
    pods.push_back(env.pod(o));
  }
  PodOptions target;
  target.labels = aff;
  const auto p = env.pod(target);
  pods.push_back(p);
  env.provision(pods);
  for (const auto x : pods) {
    CHECK(env.scheduled(x));
  }
}

TEST_CASE("should not violate pod anti-affinity on zone (inverse)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  std::vector<cluster::PodIndex> zone_pods;
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    PodOptions o;
    o.cpu_milli = 2000;
    o.pod_anti_requirements = {affinity_term(k_zone, aff)};
    o.node_selector = {{k_zone, z}};
    zone_pods.push_back(env.pod(o));
  }
  PodOptions target;
  target.labels = aff;
  const auto p = env.pod(target);
  auto all = zone_pods;
  all.push_back(p);
  env.provision(all);
  for (const auto z : zone_pods) {
    CHECK(env.scheduled(z));
  }
  CHECK_FALSE(env.scheduled(p));
}

TEST_CASE("should not violate pod anti-affinity on zone (Schrödinger)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions anywhere;
  anywhere.pod_anti_requirements = {affinity_term(k_zone, aff)};
  anywhere.cpu_milli = 2000;
  PodOptions target;
  target.labels = aff;
  const auto p1 = env.pod(anywhere);
  const auto p2 = env.pod(target);
  env.provision({p1, p2});
  REQUIRE(env.scheduled(p1));
  // the pod with anti-affinity could be in any zone, so the target cannot schedule yet
  CHECK_FALSE(env.scheduled(p2));
  // a second round sees the committed zone
  env.provision(p2);
  REQUIRE(env.scheduled(p2));
  CHECK(env.label(p1, k_zone) != env.label(p2, k_zone));
}

TEST_CASE("should not violate pod anti-affinity on zone (inverse w/existing nodes)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  std::vector<cluster::PodIndex> zone_pods;
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    PodOptions o;
    o.cpu_milli = 2000;
    o.pod_anti_requirements = {affinity_term(k_zone, aff)};
    o.node_selector = {{k_zone, z}};
    zone_pods.push_back(env.pod(o));
  }
  env.provision(zone_pods);
  for (const auto z : zone_pods) {
    REQUIRE(env.scheduled(z));
  }
  PodOptions target;
  target.labels = aff;
  const auto p = env.pod(target);
  env.provision(p);
  CHECK_FALSE(env.scheduled(p));
}

TEST_CASE("should violate preferred pod anti-affinity on zone (inverse w/existing nodes)",
          "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  std::vector<cluster::PodIndex> zone_pods;
  for (const char* z : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
    PodOptions o;
    o.cpu_milli = 2000;
    o.pod_anti_preferences = {{10, affinity_term(k_zone, aff)}};
    o.node_selector = {{k_zone, z}};
    zone_pods.push_back(env.pod(o));
  }
  env.provision(zone_pods);
  PodOptions target;
  target.labels = aff;
  const auto p = env.pod(target);
  env.provision(p);
  CHECK(env.scheduled(p));
}

TEST_CASE("should allow violation of a pod affinity preference with a conflicting required constraint",
          "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions target;
  target.labels = aff;
  PodOptions o;
  o.labels = k_labels;
  o.spread = {spread(k_host, k_labels)};
  o.pod_preferences = {{50, affinity_term(k_host, aff)}};
  auto pods = env.pods(o, 3);
  pods.push_back(env.pod(target));
  env.provision(pods);
  for (const auto p : pods) {
    CHECK(env.scheduled(p));
  }
  CHECK(env.skew(k_host, match_labels(k_labels)) == v({1, 1, 1}));
}

TEST_CASE("should support pod anti-affinity with a zone topology", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions o;
  o.labels = aff;
  o.pod_anti_requirements = {affinity_term(k_zone, aff)};
  env.provision(env.pods(o, 3));
  CHECK(env.skew(k_zone, everything()) == v({1}));
  env.delete_unscheduled();
  env.provision(env.pods(o, 3));
  CHECK(env.skew(k_zone, everything()) == v({1, 1}));
  env.delete_unscheduled();
  env.provision(env.pods(o, 3));
  CHECK(env.skew(k_zone, everything()) == v({1, 1, 1}));
  env.delete_unscheduled();
  env.provision(env.pods(o, 3));
  CHECK(env.skew(k_zone, everything()) == v({1, 1, 1}));
}

TEST_CASE("should not schedule pods with affinity to a non-existent pod", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  PodOptions o;
  o.pod_requirements = {affinity_term(k_zone, {{"security", "s2"}})};
  const auto pods = env.pods(o, 10);
  env.provision(pods);
  for (const auto p : pods) {
    CHECK_FALSE(env.scheduled(p));
  }
}

TEST_CASE("should support pod affinity with zone topology (unconstrained target)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions o;
  o.pod_requirements = {affinity_term(k_zone, aff)};
  const auto aff_pods = env.pods(o, 10);
  PodOptions target;
  target.labels = aff;
  const auto t = env.pod(target);
  auto all = aff_pods;
  all.push_back(t);
  env.provision(all);
  for (const auto p : aff_pods) {
    CHECK_FALSE(env.scheduled(p));
  }
  CHECK(env.skew(k_zone, everything()) == v({1}));
  env.provision(aff_pods);
  for (const auto p : aff_pods) {
    CHECK(env.scheduled(p));
  }
  CHECK(env.skew(k_zone, everything()) == v({11}));
}

TEST_CASE("should support pod affinity with zone topology (constrained target)", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels aff{{"security", "s2"}};
  PodOptions target;
  target.labels = aff;
  target.node_requirements = {req(k_zone, Operator::in, {"test-zone-1"})};
  PodOptions o;
  o.pod_requirements = {affinity_term(k_zone, aff)};
  auto pods = env.pods(o, 10);
  pods.push_back(env.pod(target));
  env.provision(pods);
  CHECK(env.skew(k_zone, everything()) == v({11}));
}

TEST_CASE("should handle multiple dependent affinities", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  const model::Labels db{{"type", "db"}, {"spread", "spread"}};
  const model::Labels web{{"type", "web"}, {"spread", "spread"}};
  const model::Labels cache{{"type", "cache"}, {"spread", "spread"}};
  const model::Labels ui{{"type", "ui"}, {"spread", "spread"}};
  PodOptions p_db;
  p_db.labels = db;
  PodOptions p_web;
  p_web.labels = web;
  p_web.pod_requirements = {affinity_term(k_host, db)};
  PodOptions p_cache;
  p_cache.labels = cache;
  p_cache.pod_requirements = {affinity_term(k_host, web)};
  PodOptions p_ui;
  p_ui.labels = ui;
  p_ui.pod_requirements = {affinity_term(k_host, cache)};
  // pods of equal size are ordered by name: ui, cache, web, db must still all schedule
  const auto a = env.pod(p_ui);
  const auto b = env.pod(p_cache);
  const auto c = env.pod(p_web);
  const auto d = env.pod(p_db);
  env.provision({a, b, c, d});
  for (const auto p : {a, b, c, d}) {
    CHECK(env.scheduled(p));
  }
}

TEST_CASE("should fail to schedule pods with unsatisfiable dependencies", "[karpenter][topology][affinity]")
{
  Env env;
  topology_pool(env);
  PodOptions o;
  o.labels = {{"type", "db"}, {"spread", "spread"}};
  o.pod_requirements = {affinity_term(k_host, {{"type", "web"}, {"spread", "spread"}})};
  const auto p = env.pod(o);
  env.provision(p);
  CHECK_FALSE(env.scheduled(p));
}

// --- Taints (Describe "Taints" in topology_test.go) ---------------------------------------------

TEST_CASE("should schedule pods that tolerate NodePool constraints", "[karpenter][topology][taints]")
{
  Env env;
  topology_pool(env).taints = {{"test-key", "test-value", model::TaintEffect::no_schedule}};
  std::vector<cluster::PodIndex> pods;
  {
    PodOptions o; // tolerates with OpExists
    o.tolerations = {{"test-key", true, "", model::TaintEffect::no_schedule}};
    pods.push_back(env.pod(o));
  }
  {
    PodOptions o; // tolerates with OpEqual
    o.tolerations = {{"test-key", false, "test-value", model::TaintEffect::no_schedule}};
    pods.push_back(env.pod(o));
  }
  env.provision(pods);
  for (const auto p : pods) {
    CHECK(env.scheduled(p));
  }
  std::vector<cluster::PodIndex> bad;
  bad.push_back(env.pod()); // missing toleration
  {
    PodOptions o; // key mismatch with OpExists
    o.tolerations = {{"invalid", true, "", std::nullopt}};
    bad.push_back(env.pod(o));
  }
  {
    PodOptions o; // value mismatch
    o.tolerations = {{"test-key", false, "", model::TaintEffect::no_schedule}};
    bad.push_back(env.pod(o));
  }
  env.provision(bad);
  for (const auto p : bad) {
    CHECK_FALSE(env.scheduled(p));
  }
}
