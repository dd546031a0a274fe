// InterPodAffinity: required affinity / anti-affinity of the incoming pod, existing pods'
// anti-affinity enforced in reverse, and the preferred-term score. Cases ported from
// kubernetes/kubernetes pkg/scheduler/framework/plugins/interpodaffinity/{filtering_test.go
// (TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes), scoring_test.go
// (TestPreferredAffinity)} keep their upstream names.

#include "helpers.hpp"

#include <catch2/catch.hpp>

using namespace capsim;
using namespace capsim::test;
using scheduling::FilterPlugin;
using scheduling::KubeScheduler;
using scheduling::NodeScore;

namespace {

const model::Labels k_security_scan{{"service", "securityscan"}};

model::LabelSelector service_in(std::vector<std::string> values)
{
  model::LabelSelector s;
  s.match_expressions.push_back({"service", model::Operator::in, std::move(values)});
  return s;
}

model::LabelSelector service_not_in(std::vector<std::string> values)
{
  model::LabelSelector s;
  s.match_expressions.push_back({"service", model::Operator::not_in, std::move(values)});
  return s;
}

} // namespace

TEST_CASE("InterPodAffinity filter: upstream TestRequiredAffinitySingleNode", "[scheduling][affinity]")
{
  KubeScheduler s;
  Cluster c;
  const auto machine1 = add_node(c, "machine1", 64000, 64 * k_gi, {{"region", "r1"}, {"zone", "z11"}});
  const auto check = [&](const model::PodSpecPtr& spec) { return s.check(c, make_pod("p", spec), machine1); };

  SECTION("A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods")
  {
    CHECK(check(make_spec()).ok());
  }
  SECTION("with the existing securityscan pod")
  {
    bind_pod(c, "existing", labelled(k_security_scan), machine1);
    SECTION("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod")
    {
      CHECK(check(labelled({}, [](auto& sp) {
              sp.pod_affinity_required = {affinity_term(service_in({"securityscan", "value2"}), "region")};
            })).ok());
    }
    SECTION("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod")
    {
      CHECK(check(labelled({}, [](auto& sp) {
              sp.pod_affinity_required = {affinity_term(service_not_in({"securityscan3", "value3"}), "region")};
            })).ok());
    }
    SECTION("Does not satisfy the PodAffinity with labelSelector because of diff Namespace")
    {
      const auto r = check(labelled({}, [](auto& sp) {
        sp.pod_affinity_required = {affinity_term(service_in({"securityscan", "value2"}), "region", {"DiffNameSpace"})};
      }));
      CHECK(r.plugin == FilterPlugin::inter_pod_affinity);
      CHECK(r.reason == "node(s) didn't match pod affinity rules");
    }
    SECTION("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod")
    {
      CHECK(check(labelled({}, [](auto& sp) {
              sp.pod_affinity_required = {affinity_term(service_in({"antivirusscan", "value2"}), "region")};
            })).reason
            == "node(s) didn't match pod affinity rules");
    }
    SECTION("satisfies the PodAffinity and PodAntiAffinity with the existing pod")
    {
      CHECK(check(labelled({}, [](auto& sp) {
              sp.pod_affinity_required = {affinity_term(service_in({"securityscan", "value2"}), "region")};
              sp.pod_anti_affinity_required = {affinity_term(service_in({"antivirusscan", "value2"}), "node")};
            })).ok());
    }
    SECTION("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod")
    {
      const auto r = check(labelled({}, [](auto& sp) {
        sp.pod_affinity_required = {affinity_term(service_in({"securityscan", "value2"}), "region")};
        sp.pod_anti_affinity_required = {affinity_term(service_in({"securityscan", "value2"}), "zone")};
      }));
      CHECK(r.plugin == FilterPlugin::inter_pod_affinity);
      CHECK(r.reason == "node(s) didn't match pod anti-affinity rules");
    }
    SECTION("affinity to pods that do not exist fails when the pod does not match its own term")
    {
      CHECK_FALSE(check(labelled(k_security_scan, [](auto& sp) {
                    sp.pod_affinity_required = {affinity_term(service_in({"antivirusscan", "value2"}), "region")};
                  })).ok());
    }
  }
  SECTION("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod")
  {
    bind_pod(c, "existing", labelled({}, [](auto& sp) {
               sp.pod_anti_affinity_required = {affinity_term(service_in({"securityscan", "value2"}), "zone")};
             }),
             machine1);
    const auto r = check(labelled(k_security_scan));
    CHECK(r.plugin == FilterPlugin::inter_pod_affinity);
    CHECK(r.reason == "node(s) didn't satisfy existing pods anti-affinity rules");
    SECTION("a pod the term does not select is unaffected")
    {
      CHECK(check(labelled({{"service", "frontend"}})).ok());
    }
    SECTION("the existing pod's namespace scopes its term")
    {
      CHECK(check(labelled(k_security_scan, [](auto& sp) { sp.namespace_ = "other"; })).ok());
    }
  }
  SECTION("Verify that PodAntiAffinity from existing pod is respected when pod statisfy PodAntiAffinity symmetry with the existing pod")
  {
    bind_pod(c, "existing", labelled(k_security_scan, [](auto& sp) {
               sp.pod_anti_affinity_required = {affinity_term(service_not_in({"securityscan", "value2"}), "zone")};
             }),
             machine1);
    CHECK(check(labelled(k_security_scan, [](auto& sp) {
            sp.pod_anti_affinity_required = {affinity_term(service_in({"antivirusscan", "value2"}), "zone")};
          })).ok());
  }
}

TEST_CASE("InterPodAffinity filter: upstream TestRequiredAffinityMultipleNodes", "[scheduling][affinity]")
{
  KubeScheduler s;
  Cluster c;
  const auto m1 = add_node(c, "machine1", 64000, 64 * k_gi, {{"region", "r1"}, {"zone", "z11"}});
  const auto m2 = add_node(c, "machine2", 64000, 64 * k_gi, {{"region", "r1"}, {"zone", "z12"}});
  const auto m3 = add_node(c, "machine3", 64000, 64 * k_gi, {{"region", "r2"}, {"zone", "z21"}});
  using Want = std::map<std::string, FilterPlugin>;
  constexpr auto ok = FilterPlugin::none;
  constexpr auto ipa = FilterPlugin::inter_pod_affinity;
  SECTION("A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules")
  {
    bind_pod(c, "existing", labelled({{"foo", "bar"}}), m1);
    const auto pod = make_pod("p", labelled({}, [](auto& sp) {
                                model::LabelSelector sel;
                                sel.match_expressions.push_back({"foo", model::Operator::in, {"bar"}});
                                sp.pod_affinity_required = {affinity_term(sel, "region")};
                              }));
    CHECK(filter_all(s, c, pod) == Want{{"machine1", ok}, {"machine2", ok}, {"machine3", ipa}});
  }
  SECTION("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.")
  {
    bind_pod(c, "existing", labelled({{"foo", "abc"}}), m1);
    const auto pod = make_pod("p", labelled({{"foo", "123"}}, [](auto& sp) {
                                model::LabelSelector sel;
                                sel.match_expressions.push_back({"foo", model::Operator::in, {"abc"}});
                                sp.pod_anti_affinity_required = {affinity_term(sel, "region")};
                              }));
    CHECK(filter_all(s, c, pod) == Want{{"machine1", ipa}, {"machine2", ipa}, {"machine3", ok}});
  }
  SECTION("This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.")
  {
    bind_pod(c, "existing", labelled({{"foo", "bar"}}), m1);
    const auto pod = make_pod("p", labelled({}, [](auto& sp) {
                                sp.pod_anti_affinity_required = {
                                    affinity_term(match_labels({{"foo", "bar"}}), "zone"),
                                    affinity_term(match_labels({{"foo", "nope"}}), "region"),
                                };
                              }));
    CHECK(filter_all(s, c, pod) == Want{{"machine1", ipa}, {"machine2", ok}, {"machine3", ok}});
  }
  SECTION("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod")
  {
    bind_pod(c, "a", labelled({{"foo", ""}}), m1);
    bind_pod(c, "b", labelled({{"bar", ""}}), m3);
    const auto pod = make_pod("p", labelled({}, [](auto& sp) {
                                sp.pod_affinity_required = {affinity_term(key_exists("foo"), "region"),
                                                            affinity_term(key_exists("bar"), "zone")};
                              }));
    // No single pod matches both terms, and the incoming pod does not match itself.
    CHECK(filter_all(s, c, pod) == Want{{"machine1", ipa}, {"machine2", ipa}, {"machine3", ipa}});
  }
  (void)m2;
}

TEST_CASE("InterPodAffinity in binding passes", "[scheduling][affinity]")
{
  const std::string zone(model::labels::k_zone);
  const std::string host(model::labels::k_hostname);
  SECTION("required anti-affinity on hostname: one replica per node, the rest stay pending")
  {
    Cluster c;
    add_node(c, "n0", 16000, 64 * k_gi);
    add_node(c, "n1", 16000, 64 * k_gi);
    const auto spec = labelled({{"app", "kafka"}}, [&](auto& sp) {
      sp.pod_anti_affinity_required = {affinity_term(match_labels({{"app", "kafka"}}), host)};
    });
    for (int i = 0; i < 3; ++i) {
      pending_pod(c, "kafka-" + std::to_string(i), spec, 100, 0, i);
    }
    KubeScheduler s(most_allocated());
    CHECK(s.bind_pending(c, 10).size() == 2);
    CHECK(c.node(0).pods.size() == 1);
    CHECK(c.node(1).pods.size() == 1);
    CHECK(c.pending().size() == 1);
    CHECK(s.explain(c, c.pod(c.pending().front()).pod())
          == "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");
  }
  SECTION("existing pods' anti-affinity holds in reverse: the other pod avoids their zone")
  {
    Cluster c;
    add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
    add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
    bind_pod(c, "noisy", labelled({{"app", "noisy"}}, [&](auto& sp) {
               sp.pod_anti_affinity_required = {affinity_term(match_labels({{"app", "db"}}), zone)};
             }),
             0, 1000, 0);
    pending_pod(c, "db", labelled({{"app", "db"}}), 100, 0);
    KubeScheduler s(most_allocated());
    const auto b = s.bind_pending(c, 10);
    REQUIRE(b.size() == 1);
    CHECK(c.node(b[0].node).name == "b1");
  }
  SECTION("required affinity to a zone: follows the pod it needs, and waits while there is none")
  {
    Cluster c;
    add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
    add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
    const auto cache = labelled({{"app", "cache"}}, [&](auto& sp) {
      sp.pod_affinity_required = {affinity_term(match_labels({{"app", "db"}}), zone)};
    });
    const auto waiting = pending_pod(c, "cache", cache, 100, 0, 0);
    KubeScheduler s;
    CHECK(s.bind_pending(c, 10).empty());
    CHECK(s.explain(c, c.pod(waiting).pod()) == "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.");
    pending_pod(c, "db", labelled({{"app", "db"}}, [](auto& sp) { sp.node_selector = {{"topology.kubernetes.io/zone", "b"}}; }),
                100, 0, 5);
    // Nothing changed for the cache pod since it failed, so this pass only binds db; binding db is
    // the change that makes the next pass retry the cache pod.
    const auto b = s.bind_pending(c, 20);
    REQUIRE(b.size() == 1);
    CHECK(c.node(b[0].node).name == "b1");
    const auto again = s.bind_pending(c, 21);
    REQUIRE(again.size() == 1);
    CHECK(again[0].pod == waiting);
    CHECK(c.node(again[0].node).name == "b1");
  }
  SECTION("a pod whose affinity matches itself bootstraps the first replica, the others follow it")
  {
    Cluster c;
    add_node(c, "a1", 16000, 64 * k_gi, {{zone, "a"}});
    add_node(c, "b1", 16000, 64 * k_gi, {{zone, "b"}});
    add_node(c, "b2", 16000, 64 * k_gi, {{zone, "b"}});
    const auto spec = labelled({{"app", "batch"}}, [&](auto& sp) {
      sp.pod_affinity_required = {affinity_term(match_labels({{"app", "batch"}}), zone)};
    });
    for (int i = 0; i < 4; ++i) {
      pending_pod(c, "batch-" + std::to_string(i), spec, 1000, 0, i);
    }
    KubeScheduler s;
    REQUIRE(s.bind_pending(c, 10).size() == 4);
    CHECK(c.node(0).pods.size() == 4); // the first went to a1 (tie on index), the rest must stay in zone a
  }
}

TEST_CASE("InterPodAffinity score: upstream TestPreferredAffinity", "[scheduling][affinity]")
{
  KubeScheduler s;
  const model::Labels s1{{"security", "S1"}};
  const model::Labels s2{{"security", "S2"}};
  const auto security_in = [](const std::string& v) {
    model::LabelSelector sel;
    sel.match_expressions.push_back({"security", model::Operator::in, {v}});
    return sel;
  };
  using Want = std::map<std::string, std::int64_t>;
  SECTION("Affinity: pod that matches topology key & pods in nodes will get high score comparing to others which doesn't match either pods in nodes or in topology key")
  {
    Cluster c;
    const auto n1 = add_node(c, "node1", 64000, 64 * k_gi, {{"region", "China"}});
    const auto n2 = add_node(c, "node2", 64000, 64 * k_gi, {{"region", "India"}});
    const auto n3 = add_node(c, "node3", 64000, 64 * k_gi, {{"az", "az1"}});
    bind_pod(c, "e1", labelled(s1), n1);
    bind_pod(c, "e2", labelled(s2), n2);
    bind_pod(c, "e3", labelled(s1), n3);
    const auto pod = make_pod("p", labelled(s1, [&](auto& sp) {
                                sp.pod_affinity_preferred = {{5, affinity_term(security_in("S1"), "region")}};
                              }));
    CHECK(plugin_scores(s, c, pod, &NodeScore::inter_pod_affinity) == Want{{"node1", 100}, {"node2", 0}, {"node3", 0}});
  }
  SECTION("Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score")
  {
    Cluster c;
    const auto n1 = add_node(c, "node1", 64000, 64 * k_gi, {{"region", "China"}});
    const auto n2 = add_node(c, "node2", 64000, 64 * k_gi, {{"region", "India"}});
    const auto n3 = add_node(c, "node3", 64000, 64 * k_gi, {{"region", "China"}});
    const auto n4 = add_node(c, "node4", 64000, 64 * k_gi, {{"region", "China"}});
    const auto n5 = add_node(c, "node5", 64000, 64 * k_gi, {{"region", "India"}});
    for (const auto n : {n1, n1, n2, n3, n4, n5}) {
      bind_pod(c, "e", labelled(s2), n);
    }
    const auto pod = make_pod("p", labelled(s1, [&](auto& sp) {
                                sp.pod_affinity_preferred = {{6, affinity_term(security_in("S2"), "region")}};
                              }));
    CHECK(plugin_scores(s, c, pod, &NodeScore::inter_pod_affinity)
          == Want{{"node1", 100}, {"node2", 0}, {"node3", 100}, {"node4", 100}, {"node5", 0}});
  }
  SECTION("Anti Affinity: pod that does not match existing pods in node will get high score")
  {
    Cluster c;
    const auto n1 = add_node(c, "node1", 64000, 64 * k_gi, {{"az", "az1"}});
    const auto n2 = add_node(c, "node2", 64000, 64 * k_gi, {{"region", "China"}});
    bind_pod(c, "e1", labelled(s1), n1);
    bind_pod(c, "e2", labelled(s2), n2);
    const auto pod = make_pod("p", labelled(s1, [&](auto& sp) {
                                sp.pod_anti_affinity_preferred = {{5, affinity_term(security_in("S1"), "az")}};
                              }));
    CHECK(plugin_scores(s, c, pod, &NodeScore::inter_pod_affinity) == Want{{"node1", 0}, {"node2", 100}});
  }
  SECTION("Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry")
  {
    Cluster c;
    const auto n1 = add_node(c, "node1", 64000, 64 * k_gi, {{"region", "China"}});
    const auto n2 = add_node(c, "node2", 64000, 64 * k_gi, {{"region", "India"}});
    add_node(c, "node3", 64000, 64 * k_gi, {{"az", "az1"}});
    bind_pod(c, "e1", labelled({}, [&](auto& sp) {
               sp.pod_affinity_preferred = {{5, affinity_term(security_in("S1"), "region")}};
             }),
             n1);
    bind_pod(c, "e2", labelled({}, [&](auto& sp) {
               sp.pod_affinity_preferred = {{6, affinity_term(security_in("S2"), "region")}};
             }),
             n2);
    const auto pod = make_pod("p", labelled(s2));
    CHECK(plugin_scores(s, c, pod, &NodeScore::inter_pod_affinity) == Want{{"node1", 0}, {"node2", 100}, {"node3", 0}});
  }
  SECTION("Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry")
  {
    Cluster c;
    const auto n1 = add_node(c, "node1", 64000, 64 * k_gi, {{"region", "China"}});
    const auto n2 = add_node(c, "node2", 64000, 64 * k_gi, {{"region", "India"}});
    add_node(c, "node3", 64000, 64 * k_gi, {{"az", "az1"}});
    bind_pod(c, "e1", labelled(s1, [&](auto& sp) {
               sp.pod_affinity_required = {affinity_term(security_in("S1"), "region")};
             }),
             n1);
    bind_pod(c, "e2", labelled(s2), n2);
    const auto pod = make_pod("p", labelled(s1));
    CHECK(plugin_scores(s, c, pod, &NodeScore::inter_pod_affinity) == Want{{"node1", 100}, {"node2", 0}, {"node3", 0}});
  }
}
