#include "core/cas/pod_groups.hpp"

#include "tests/unit/cas/cas_fixtures.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string_view>

using namespace capsim;
using namespace capsim::cas;
using namespace capsim::cas::testing;

namespace {

cluster::NodeState node_state(const std::string& name, std::int64_t cpu, std::int64_t mem_gib)
{
  cluster::NodeState n;
  n.name = name;
  n.labels = {{std::string(model::labels::k_hostname), name}, {std::string(model::labels::k_zone), "us-east-1a"}};
  n.allocatable[model::k_cpu] = cpu;
  n.allocatable[model::k_memory] = mem_gib * k_gib;
  n.allocatable[model::k_pods] = 110;
  n.lifecycle = cluster::NodeLifecycle::ready;
  return n;
}

// Pods of app=lonely, each apart from the others (required anti-affinity over hostnames).
std::shared_ptr<model::PodSpec> lonely_spec()
{
  auto lonely = make_spec("lonely", 100, 128);
  model::PodAffinityTerm apart;
  apart.selector = model::LabelSelector{{{"app", "lonely"}}, {}};
  apart.topology_key = std::string(model::labels::k_hostname);
  lonely->pod_anti_affinity_required.push_back(apart);
  return lonely;
}

} // namespace

TEST_CASE("equivalence groups: per controller, same template and requests", "[cas][equivalence]")
{
  const auto web = make_spec("web", 500, 512);
  const auto api = make_spec("api", 500, 512);
  const auto bare = make_spec("bare", 100, 128, model::OwnerKind::none);
  std::vector<model::Pod> pods;
  add_pods(pods, "web", web, 3);
  add_pods(pods, "api", api, 2);
  add_pods(pods, "bare", bare, 2);
  // A web pod whose trace row asked for more CPU: same controller, different spec semantics.
  pods.push_back(make_pod("web-big", web));
  pods.back().requests[model::k_cpu] = 1000;
  std::vector<const model::Pod*> ptrs;
  for (const auto& p : pods) {
    ptrs.push_back(&p);
  }
  ControllerIds controllers;
  const auto groups = build_pod_groups(ptrs, controllers);
  REQUIRE(groups.size() == 5);
  CHECK(groups[0].pods.size() == 3); // web
  CHECK(groups[1].pods.size() == 2); // api
  CHECK(groups[2].pods.size() == 1); // bare pods are singletons
  CHECK(groups[3].pods.size() == 1);
  CHECK(groups[4].pods.size() == 1); // web-big
  CHECK(groups[4].pods[0]->name == "web-big");
  CHECK(controller_key(pods[0]).value() == "default/web/1");
  CHECK_FALSE(controller_key(pods[5]).has_value());
}

TEST_CASE("controller ids: one per controller across its specs, none for bare pods", "[cas][equivalence]")
{
  const auto web = make_spec("web", 500, 512);
  // Another spec of the same ReplicaSet template (a pod pinned to a zone gets a copy).
  const auto web_copy = std::make_shared<model::PodSpec>(*web);
  const auto api = make_spec("api", 500, 512);
  const auto job = make_spec("web", 500, 512, model::OwnerKind::job); // same name, another kind
  const auto bare = make_spec("bare", 100, 128, model::OwnerKind::none);
  std::vector<model::Pod> pods;
  add_pods(pods, "web", web, 2);
  add_pods(pods, "web-copy", web_copy, 1);
  add_pods(pods, "api", api, 1);
  add_pods(pods, "job", job, 1);
  add_pods(pods, "bare", bare, 1);
  ControllerIds ids;
  const auto id = [&](std::size_t i) { return ids.of(pods[i]); };
  CHECK(id(0) == id(1));
  CHECK(id(0) == id(2));
  CHECK(id(3) != id(0));
  CHECK(id(4) != id(0));
  CHECK(id(4) != id(3));
  CHECK(id(5) == ControllerIds::k_none);
  CHECK(id(3) == ids.of(pods[3])); // stable
}

TEST_CASE("equivalence groups: at most 10 groups per controller, then singletons", "[cas][equivalence]")
{
  const auto spec = make_spec("batch", 100, 128, model::OwnerKind::job);
  std::vector<model::Pod> pods;
  for (int i = 0; i < 12; ++i) {
    pods.push_back(make_pod("distinct-" + std::to_string(i), spec));
    pods.back().requests[model::k_cpu] = 100 + i; // twelve distinct shapes
  }
  // Two more pods like the 11th shape: it has no group of its own (cap reached), so each
  // becomes a singleton too; one more like the first shape joins group 0.
  pods.push_back(pods[10]);
  pods.push_back(pods[0]);
  std::vector<const model::Pod*> ptrs;
  for (const auto& p : pods) {
    ptrs.push_back(&p);
  }
  ControllerIds controllers;
  const auto groups = build_pod_groups(ptrs, controllers);
  REQUIRE(groups.size() == 13);
  CHECK(groups[0].pods.size() == 2);
  for (std::size_t i = 1; i < groups.size(); ++i) {
    CHECK(groups[i].pods.size() == 1);
  }
}

TEST_CASE("filter-out-schedulable places pods on existing and upcoming nodes by priority", "[cas][filter]")
{
  // One existing node with room for two 1-CPU pods, one upcoming template copy with room for four.
  const auto existing = node_state("existing", 2000, 8);
  const auto tmpl = node_state("template", 4000, 16);
  Snapshot snapshot;
  SnapNode sn;
  sn.state = &existing;
  sn.real = true;
  snapshot.add_node(sn);
  snapshot.add_copy(tmpl, "ng-upcoming-0", {}, 0);

  const auto low = make_spec("low", 1000, 1024);
  auto high = make_spec("high", 1000, 1024);
  high->priority = 100;
  std::vector<model::Pod> pods;
  add_pods(pods, "low", low, 4);
  add_pods(pods, "high", high, 3);
  std::vector<const model::Pod*> ptrs;
  for (const auto& p : pods) {
    ptrs.push_back(&p);
  }
  HintingSimulator sim;
  NodeOrdering ordering;
  const auto placed = sim.try_schedule_pods(snapshot, ptrs, false, {}, ordering);
  // Six slots: the three high-priority pods go first, then three of the four low ones.
  std::size_t high_placed = 0;
  std::size_t low_placed = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (placed[i]) {
      (pods[i].spec == high ? high_placed : low_placed) += 1;
    }
  }
  CHECK(high_placed == 3);
  CHECK(low_placed == 3);
  CHECK_FALSE(placed[3]); // the last low pod is the one left: it alone is a reason to scale up
  CHECK(snapshot.node(0).pods.size() + snapshot.node(1).pods.size() == 6);
}

TEST_CASE("hinting simulator: similar pods are not retried, hints are reused", "[cas][filter]")
{
  const auto small = node_state("small", 1000, 4);
  Snapshot snapshot;
  SnapNode sn;
  sn.state = &small;
  sn.real = true;
  snapshot.add_node(sn);
  const auto big = make_spec("big", 2000, 1024);
  const auto fits = make_spec("fits", 500, 512);
  std::vector<model::Pod> pods;
  add_pods(pods, "big", big, 3);
  add_pods(pods, "fits", fits, 1);
  std::vector<const model::Pod*> ptrs;
  for (const auto& p : pods) {
    ptrs.push_back(&p);
  }
  HintingSimulator sim;
  NodeOrdering ordering;
  const auto placed = sim.try_schedule_pods(snapshot, ptrs, false, {}, ordering);
  CHECK_FALSE(placed[0]);
  CHECK_FALSE(placed[1]);
  CHECK_FALSE(placed[2]);
  REQUIRE(placed[3]);
  CHECK(*placed[3] == 0);
  // break_on_failure stops at the first pod that does not fit.
  Snapshot second;
  second.add_node(sn);
  HintingSimulator strict;
  const auto placed2 = strict.try_schedule_pods(second, {ptrs[3], ptrs[0], ptrs[3]}, true, {}, ordering);
  CHECK(placed2[0].has_value());
  CHECK_FALSE(placed2[1].has_value());
  CHECK_FALSE(placed2[2].has_value());
}

TEST_CASE("snapshot: a node refreshed under a mark keeps what reverts restore and counts anew",
          "[cas][snapshot]")
{
  // run_loop keeps its snapshot's cluster nodes from loop to loop: it reverts to the mark after
  // them and refreshes the nodes that changed since.
  const auto a = node_state("a", 2000, 4);
  const auto b = node_state("b", 2000, 4);
  const auto lonely = lonely_spec();
  const auto plain = make_spec("plain", 100, 128);
  const auto p1 = make_pod("p1", lonely);
  const auto p2 = make_pod("p2", plain);
  Snapshot snapshot;
  SnapNode sn;
  sn.state = &a;
  sn.real = true;
  sn.pods.push_back(&p1);
  sn.requested = pod_footprint(p1);
  snapshot.add_node(sn);
  SnapNode other;
  other.state = &b;
  other.real = true;
  snapshot.add_node(other);
  CHECK(snapshot.anti_affinity_pods() == 1);
  const auto mark = snapshot.mark();
  snapshot.add_pod(0, p2);
  snapshot.set_blocked(1, true);
  snapshot.revert(mark);
  REQUIRE(snapshot.node(0).pods.size() == 1);
  CHECK(snapshot.node(0).requested == pod_footprint(p1));
  CHECK_FALSE(snapshot.node(1).blocked);
  // Node a's lonely pod left and the plain one came.
  SnapNode now;
  now.state = &a;
  now.real = true;
  now.pods.push_back(&p2);
  now.requested = pod_footprint(p2);
  snapshot.refresh_node(0, now, true);
  CHECK(snapshot.anti_affinity_pods() == 0);
  REQUIRE(snapshot.node(0).pods.size() == 1);
  CHECK(snapshot.node(0).pods[0] == &p2);
  CHECK(snapshot.node(0).requested == pod_footprint(p2));
  CHECK(snapshot.find("a") == 0);
  CHECK(snapshot.find("b") == 1);
  // The refreshed node is the one revert undoes changes of, under a later mark too.
  const auto later = snapshot.mark();
  snapshot.add_pod(0, p1);
  CHECK(snapshot.anti_affinity_pods() == 1);
  snapshot.revert(later);
  CHECK(snapshot.anti_affinity_pods() == 0);
  CHECK(snapshot.node(0).pods.size() == 1);
  // Only the same node may take a node's place.
  now.state = &b;
  CHECK_THROWS_AS(snapshot.refresh_node(0, now, true), InternalError);
}

TEST_CASE("snapshot: nodes put in and taken out among others answer as a snapshot built anew", "[cas][snapshot]")
{
  // Twelve nodes, two of them sharing a name (the name then goes to the last of them), some
  // with a pod of required anti-affinity.
  const auto lonely = lonely_spec();
  const auto plain = make_spec("plain", 100, 128);
  std::vector<cluster::NodeState> states;
  std::vector<model::Pod> pods;
  pods.reserve(12);
  for (int i = 0; i < 12; ++i) {
    states.push_back(node_state(i == 11 ? "n13" : "n" + std::to_string(10 + i), 2000, 4));
    pods.push_back(make_pod("p" + std::to_string(i), i % 3 == 0 ? lonely : plain));
  }
  const auto snap_of = [&](std::size_t i) {
    SnapNode sn;
    sn.state = &states[i];
    sn.real = true;
    sn.cluster_node = static_cast<cluster::NodeIndex>(i);
    sn.pods.push_back(&pods[i]);
    sn.requested = pod_footprint(pods[i]);
    return sn;
  };
  const auto names = [&] {
    std::vector<std::string> out;
    for (const auto& s : states) {
      out.push_back(s.name);
    }
    out.emplace_back("absent");
    return out;
  };
  for (const bool shared_name : {false, true}) {
    INFO("a shared name: " << shared_name);
    std::uint64_t seed = shared_name ? 7 : 3;
    const auto next = [&seed](std::size_t n) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      return static_cast<std::size_t>((seed >> 33U) % n);
    };
    const std::size_t count = shared_name ? 12 : 11; // the last node shares n13 with node 3
    std::vector<std::size_t> listed; // the nodes in the snapshot, ascending
    Snapshot kept;
    kept.use_cluster(1); // the hashes of its nodes' names are kept by node index
    for (std::size_t step = 0; step < 400; ++step) {
      const std::size_t i = next(count);
      const auto at = std::lower_bound(listed.begin(), listed.end(), i);
      const auto pos = static_cast<std::size_t>(at - listed.begin());
      if (at != listed.end() && *at == i) {
        kept.erase_node(pos, true);
        listed.erase(at);
      } else {
        kept.insert_node(pos, snap_of(i), true);
        listed.insert(at, i);
      }
      Snapshot fresh;
      for (const auto n : listed) {
        fresh.add_node(snap_of(n));
      }
      REQUIRE(kept.size() == fresh.size());
      for (std::size_t k = 0; k < listed.size(); ++k) {
        CHECK(kept.node(k).state == fresh.node(k).state);
        CHECK(kept.node(k).pods.list() == fresh.node(k).pods.list());
      }
      CHECK(kept.anti_affinity_pods() == fresh.anti_affinity_pods());
      CHECK(kept.mark() == fresh.mark());
      if (next(3) != 0) { // (otherwise the names are left to be looked up later)
        for (const auto& name : names()) {
          CHECK(kept.find(name) == fresh.find(name));
        }
        for (std::size_t k = 0; k < listed.size(); ++k) { // a hint's lookup by its kept hash
          const std::string& name = kept.node(k).state->name;
          CHECK(kept.name_hash(k) == std::hash<std::string_view>{}(name));
          CHECK(kept.find(name, kept.name_hash(k)) == fresh.find(name));
        }
        CHECK(kept.names_consistent());
      }
    }
    // The snapshot kept so is one that changes and reverts as any.
    const auto mark = kept.mark();
    if (kept.size() > 0) {
      kept.add_pod(0, pods[1]);
      CHECK_THROWS_AS(kept.insert_node(0, snap_of(0), true), InternalError); // a change is logged
      kept.revert(mark);
      kept.erase_node(0, true);
      CHECK(kept.mark() == mark - 1);
    }
  }
}

TEST_CASE("predicates: taints, selectors, host ports, resources", "[cas][predicates]")
{
  auto n = node_state("n", 2000, 4);
  n.taints = {{"dedicated", "gpu", model::TaintEffect::no_schedule}};
  n.labels["pool"] = "a";
  Snapshot snapshot;
  SnapNode sn;
  sn.state = &n;
  snapshot.add_node(sn);
  auto spec = make_spec("p", 500, 512);
  const auto pod = make_pod("p", spec);
  CHECK(check_predicates(snapshot, 0, pod) == Filter::taints);
  spec->tolerations = {{"dedicated", false, "gpu", model::TaintEffect::no_schedule}};
  CHECK(check_predicates(snapshot, 0, pod) == Filter::none);
  spec->node_selector = {{"pool", "b"}};
  CHECK(check_predicates(snapshot, 0, pod) == Filter::node_affinity);
  spec->node_selector = {{"pool", "a"}};
  spec->host_ports = {80};
  snapshot.add_pod(0, pod);
  const auto pod2 = make_pod("p2", spec);
  CHECK(check_predicates(snapshot, 0, pod2) == Filter::host_ports);
  spec->host_ports.clear();
  auto big = make_spec("big", 1600, 512);
  big->tolerations = spec->tolerations;
  CHECK(check_predicates(snapshot, 0, make_pod("big", big)) == Filter::resources);
  // NodeName: a pod naming another node fits nowhere else, except in the removal
  // simulation, which clears spec.nodeName.
  auto named = make_pod("named", spec);
  named.node_name = "elsewhere";
  CHECK(check_predicates(snapshot, 0, named) == Filter::node_name);
  snapshot.set_ignore_node_name(true);
  CHECK(check_predicates(snapshot, 0, named) == Filter::none);
  snapshot.set_ignore_node_name(false);
  named.node_name = "n";
  CHECK(check_predicates(snapshot, 0, named) == Filter::none);
  snapshot.set_blocked(0, true);
  CHECK(check_predicates(snapshot, 0, pod2) == Filter::unschedulable);
}

TEST_CASE("predicates: VolumeBinding (the volumes' node affinity, unsatisfiable claims)", "[cas][predicates][volumes]")
{
  auto n = node_state("n", 2000, 4);
  n.zone = "us-east-1a";
  Snapshot snapshot;
  SnapNode sn;
  sn.state = &n;
  snapshot.add_node(sn);
  auto spec = make_spec("p", 500, 512);
  const auto pod = make_pod("p", spec);
  const auto zone = [](const std::string& z) {
    return model::NodeSelectorTerm{
        {model::Requirement::make(std::string(model::labels::k_zone), model::Operator::in, {z})}};
  };
  spec->volume_affinity = {zone("us-east-1b")};
  CHECK(check_predicates(snapshot, 0, pod) == Filter::volumes);
  spec->volume_affinity = {zone("us-east-1b"), zone("us-east-1a")};
  CHECK(check_predicates(snapshot, 0, pod) == Filter::none);
  spec->volume_error = R"(persistentvolumeclaim "data" is being deleted)";
  CHECK(check_predicates(snapshot, 0, pod) == Filter::volumes);
}

TEST_CASE("predicates: required pod anti-affinity in both directions", "[cas][predicates]")
{
  const auto a = node_state("a", 4000, 16);
  const auto b = node_state("b", 4000, 16);
  Snapshot snapshot;
  SnapNode sa;
  sa.state = &a;
  snapshot.add_node(sa);
  SnapNode sb;
  sb.state = &b;
  snapshot.add_node(sb);
  auto spec = make_spec("db", 500, 512);
  model::PodAffinityTerm term;
  model::LabelSelector sel;
  sel.match_labels = {{"app", "db"}};
  term.selector = sel;
  term.topology_key = std::string(model::labels::k_hostname);
  spec->pod_anti_affinity_required = {term};
  const auto first = make_pod("db-0", spec);
  const auto second = make_pod("db-1", spec);
  snapshot.add_pod(0, first);
  CHECK(check_predicates(snapshot, 0, second) == Filter::pod_anti_affinity);
  CHECK(check_predicates(snapshot, 1, second) == Filter::none);
  // A pod without terms is still kept off node a by db-0's term if it matches it.
  auto other = make_spec("other", 100, 128);
  other->labels = {{"app", "db"}};
  CHECK(check_predicates(snapshot, 0, make_pod("o", other)) == Filter::pod_anti_affinity);
  // Reverting the binding lifts the conflict.
  Snapshot copy;
  copy.add_node(sa);
  const auto m = copy.mark();
  copy.add_pod(0, first);
  copy.revert(m);
  CHECK(copy.anti_affinity_pods() == 0);
  CHECK(check_predicates(copy, 0, second) == Filter::none);
}

TEST_CASE("snapshot: nodes are found by name through additions, reverts and clearing", "[cas][snapshot]")
{
  const auto a = node_state("node-a", 2000, 4);
  const auto b = node_state("node-b", 2000, 4);
  const auto snap_node = [](const cluster::NodeState& state) {
    SnapNode n;
    n.state = &state;
    return n;
  };
  Snapshot s;
  CHECK(s.find("node-a") == SIZE_MAX);
  s.add_node(snap_node(b));
  s.add_node(snap_node(a));
  CHECK(s.find("node-a") == 1);
  CHECK(s.find("node-b") == 0);
  CHECK(s.find("node-c") == SIZE_MAX);

  // Added after the names were indexed: found at once.
  const auto mark = s.mark();
  const auto copy = s.add_copy(a, "template-0", {}, 0);
  CHECK(copy == 2);
  CHECK(s.find("template-0") == 2);
  CHECK(s.find("node-a") == 1);
  const auto copy2 = s.add_copy(a, "a-template", {}, 0);
  CHECK(s.find("a-template") == copy2);
  CHECK(s.find("template-0") == copy);

  // A node added again under a name in use is the one found, until it is reverted.
  const auto again = s.add_copy(b, "node-b", {}, 0);
  CHECK(s.find("node-b") == again);
  s.revert(mark);
  CHECK(s.size() == 2);
  CHECK(s.find("template-0") == SIZE_MAX);
  CHECK(s.find("a-template") == SIZE_MAX);
  CHECK(s.find("node-a") == 1);

  s.clear();
  CHECK(s.size() == 0);
  CHECK(s.find("node-a") == SIZE_MAX);
  s.add_node(snap_node(a));
  CHECK(s.find("node-a") == 0);
}

TEST_CASE("snapshot: names stay found while the table grows and reverted names are reused", "[cas][snapshot]")
{
  const auto base = node_state("node-0", 2000, 4);
  Snapshot s;
  SnapNode first;
  first.state = &base;
  s.add_node(std::move(first));
  CHECK(s.find("node-0") == 0); // the table is built here, for one node
  // Far more nodes than the table first had room for, added after it was built.
  const auto mark = s.mark();
  for (int i = 1; i <= 200; ++i) {
    CHECK(s.add_copy(base, "copy-" + std::to_string(i), {}, 0) == static_cast<std::size_t>(i));
  }
  for (int i = 1; i <= 200; ++i) {
    CHECK(s.find("copy-" + std::to_string(i)) == static_cast<std::size_t>(i));
  }
  CHECK(s.find("node-0") == 0);
  // Reverted and added again, over and over: removed entries never hide a name.
  for (int round = 0; round < 5; ++round) {
    s.revert(mark);
    CHECK(s.size() == 1);
    CHECK(s.find("copy-1") == SIZE_MAX);
    CHECK(s.find("copy-200") == SIZE_MAX);
    for (int i = 1; i <= 60; ++i) {
      s.add_copy(base, "copy-" + std::to_string(i * (round + 1)), {}, 0);
    }
    for (int i = 1; i <= 60; ++i) {
      CHECK(s.find("copy-" + std::to_string(i * (round + 1))) == static_cast<std::size_t>(i));
    }
    CHECK(s.find("node-0") == 0);
  }
}

TEST_CASE("snapshot: a template copy made after a revert or clear is the new template's alone", "[cas][snapshot]")
{
  // The snapshot keeps its reverted copies' buffers for the next ones: nothing of the old
  // template may show through (labels, taints, pods, name).
  auto big = node_state("big", 8000, 32);
  big.labels["team"] = "a";
  big.labels["size"] = "big";
  big.taints.push_back({"dedicated", "a", model::TaintEffect::no_schedule});
  big.pods = {7, 8};
  auto small = node_state("small", 1000, 2);
  small.labels["team"] = "b";
  for (const bool by_clear : {false, true}) {
    Snapshot s;
    const auto mark = s.mark();
    const auto first = s.add_copy(big, "ng-upcoming-0", {}, 0);
    CHECK(s.node(first).state->labels.at("size") == "big");
    CHECK(s.node(first).state->pods.empty());
    if (by_clear) {
      s.clear();
    } else {
      s.revert(mark);
    }
    const auto second = s.add_copy(small, "ng-upcoming-1", {}, 1);
    const auto& copy = *s.node(second).state;
    CHECK(copy.name == "ng-upcoming-1");
    CHECK(copy.labels.at(std::string(model::labels::k_hostname)) == "ng-upcoming-1");
    CHECK(copy.labels.at("team") == "b");
    CHECK(copy.labels.count("size") == 0);
    CHECK(copy.taints.empty());
    CHECK(copy.pods.empty());
    CHECK(copy.allocatable == small.allocatable);
    CHECK(s.node(second).group == 1);
    // The template itself is untouched.
    CHECK(small.name == "small");
    CHECK(small.labels.at(std::string(model::labels::k_hostname)) == "small");
  }
}

TEST_CASE("snapshot: a slot keeps its copy for the same source and copies anew for another", "[cas][snapshot]")
{
  // add_copy's `source` names the template's content: a slot that last held a copy of it takes
  // only the new name; another source (or none) is copied whole, whatever the slot held.
  auto big = node_state("big", 8000, 32);
  big.labels["size"] = "big";
  big.taints.push_back({"dedicated", "a", model::TaintEffect::no_schedule});
  auto small = node_state("small", 1000, 2);
  small.labels["team"] = "b";
  const auto expect_copy_of = [](const cluster::NodeState& copy, const cluster::NodeState& of,
                                  const std::string& name) {
    CHECK(copy.name == name);
    auto labels = of.labels;
    labels[std::string(model::labels::k_hostname)] = name;
    CHECK(copy.labels == labels);
    CHECK(copy.taints == of.taints);
    CHECK(copy.allocatable == of.allocatable);
    CHECK(copy.pods.empty());
  };
  Snapshot s;
  const auto mark = s.mark();
  expect_copy_of(*s.node(s.add_copy(big, "up-0", {}, 0, 7)).state, big, "up-0");
  expect_copy_of(*s.node(s.add_copy(small, "up-1", {}, 0, 8)).state, small, "up-1");
  s.revert(mark);
  // The same sources in the same slots: the copies stand, under their new names.
  const auto* kept = s.node(s.add_copy(big, "up-2", {}, 0, 7)).state;
  expect_copy_of(*kept, big, "up-2");
  expect_copy_of(*s.node(s.add_copy(small, "up-3", {}, 0, 8)).state, small, "up-3");
  s.revert(mark);
  // Another source in a slot: copied whole.
  expect_copy_of(*s.node(s.add_copy(small, "up-4", {}, 0, 8)).state, small, "up-4");
  expect_copy_of(*s.node(s.add_copy(big, "up-5", {}, 0, 7)).state, big, "up-5");
  s.clear();
  // No source: always copied whole, even over a slot that held a copy of the same state.
  expect_copy_of(*s.node(s.add_copy(small, "up-6", {}, 0)).state, small, "up-6");
  expect_copy_of(*s.node(s.add_copy(small, "up-7", {}, 0)).state, small, "up-7");
  // A source once copied without one is copied whole too.
  s.clear();
  expect_copy_of(*s.node(s.add_copy(big, "up-8", {}, 0, 7)).state, big, "up-8");
  CHECK(s.node(0).state == kept); // the same slot throughout
}

TEST_CASE("snapshot: reverting a node added under a name in use keeps every other name found", "[cas][snapshot]")
{
  // Seven names in a table of sixteen slots; under libstdc++'s string hash node-4, node-9,
  // node-10 and node-11 share a home slot (as do node-0 and node-8), so they sit past each
  // other: dropping one name must not cut the others off.
  std::vector<cluster::NodeState> states;
  for (const int i : {4, 9, 10, 11, 0, 8, 3}) {
    states.push_back(node_state("node-" + std::to_string(i), 2000, 4));
  }
  for (std::size_t k = 0; k < states.size(); ++k) {
    Snapshot s;
    for (const auto& st : states) {
      SnapNode n;
      n.state = &st;
      s.add_node(std::move(n));
    }
    CHECK(s.find(states[k].name) == k);
    const auto mark = s.mark();
    CHECK(s.find(states[k].name) == s.add_copy(states[k], states[k].name, {}, 0));
    s.revert(mark);
    for (std::size_t i = 0; i < states.size(); ++i) {
      if (i != k) {
        CHECK(s.find(states[i].name) == i);
      }
    }
  }
}

TEST_CASE("snapshot: a registered node's pods are the cluster's until changed, and reverts restore them",
          "[cas][snapshot]")
{
  cluster::Cluster cluster;
  const auto n = cluster.add_node(node_state("node-a", 4000, 8));
  const auto spec = make_spec("web", 100, 128);
  std::vector<cluster::PodIndex> bound;
  for (int i = 0; i < 3; ++i) {
    bound.push_back(cluster.add_pod(make_pod("web-" + std::to_string(i), spec)));
    cluster.bind(bound.back(), n, 0);
  }
  const auto other = cluster.add_pod(make_pod("other", spec));
  const auto pod = [&](cluster::PodIndex i) { return &cluster.pod(i).pod(); };

  Snapshot s;
  for (int loop = 0; loop < 2; ++loop) { // the second loop reuses the first one's buffers
    s.clear();
    SnapNode sn;
    sn.state = &cluster.node(n);
    sn.requested = cluster.node(n).requested;
    sn.pods.refer(cluster, cluster.node(n).pods, s.spare_pod_list());
    CHECK(sn.pods.size() == 3); // counted without converting
    s.add_node(std::move(sn), false);
    CHECK(s.node(0).pods.list() == std::vector<const model::Pod*>{pod(bound[0]), pod(bound[1]), pod(bound[2])});

    const auto mark = s.mark();
    s.remove_pod(0, *pod(bound[1]));
    s.add_pod(0, *pod(other));
    CHECK(s.node(0).pods.list() == std::vector<const model::Pod*>{pod(bound[0]), pod(bound[2]), pod(other)});
    s.revert(mark);
    CHECK(s.node(0).pods.list() == std::vector<const model::Pod*>{pod(bound[0]), pod(bound[1]), pod(bound[2])});
  }
  // Changed before it was ever read: converted first, then changed.
  s.clear();
  SnapNode sn;
  sn.state = &cluster.node(n);
  sn.pods.refer(cluster, cluster.node(n).pods, s.spare_pod_list());
  s.add_node(std::move(sn), false);
  s.add_pod(0, *pod(other));
  CHECK(s.node(0).pods.size() == 4);
  CHECK(s.node(0).pods[3] == pod(other));
  CHECK(s.node(0).pods[0] == pod(bound[0]));
}

TEST_CASE("hint table: set, overwrite, clear and swap keep every pod's node through growth", "[cas][filter]")
{
  const auto spec = make_spec("web", 100, 128);
  std::vector<model::Pod> pods;
  add_pods(pods, "web", spec, 300);
  HintTable current;
  HintTable old;
  CHECK(current.find(&pods[0]) == nullptr);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    current.set(&pods[i], "node-" + std::to_string(i % 7));
  }
  for (std::size_t i = 0; i < pods.size(); ++i) {
    REQUIRE(current.find(&pods[i]) != nullptr);
    CHECK(*current.find(&pods[i]) == "node-" + std::to_string(i % 7));
  }
  // Overwritten, and set again from its own entry (a hint taken again).
  current.set(&pods[5], "elsewhere");
  current.set(&pods[5], *current.find(&pods[5]));
  CHECK(*current.find(&pods[5]) == "elsewhere");
  // A hint keeps its name's hash, as given or worked out.
  REQUIRE(current.find_hint(&pods[5]) != nullptr);
  CHECK(current.find_hint(&pods[5])->hash == std::hash<std::string_view>{}("elsewhere"));
  current.set(&pods[6], "node-6", 42);
  CHECK(current.find_hint(&pods[6])->node == "node-6");
  CHECK(current.find_hint(&pods[6])->hash == 42);
  current.set(&pods[6], "node-6");

  // drop_old_hints: the current table becomes the old one, the current one starts empty.
  old.swap(current);
  current.clear();
  CHECK(current.find(&pods[0]) == nullptr);
  CHECK(*old.find(&pods[0]) == "node-0");
  current.set(&pods[1], "fresh");
  CHECK(*current.find(&pods[1]) == "fresh");
  CHECK(current.find(&pods[2]) == nullptr);
  CHECK(*old.find(&pods[1]) == "node-1");
  old.clear();
  for (const auto& p : pods) {
    CHECK(old.find(&p) == nullptr);
  }
  // Rounds of a few hints in the grown table, each round cleared: only the pods set in the round
  // answer.
  for (std::size_t round = 0; round < 20; ++round) {
    std::map<const model::Pod*, std::string> want;
    for (std::size_t j = 0; j < 1 + round % 9; ++j) {
      const model::Pod* p = &pods[(round * 37 + j * 11) % pods.size()];
      want[p] = "r" + std::to_string(round);
      old.set(p, want[p]);
    }
    for (const auto& p : pods) {
      const auto it = want.find(&p);
      const std::string* got = old.find(&p);
      CHECK((it == want.end() ? got == nullptr : got != nullptr && *got == it->second));
    }
    old.clear();
  }
}

TEST_CASE("snapshot: kept topology spread counts follow pods, removals, new nodes and reverts",
          "[cas][snapshot][spread]")
{
  // Two nodes in us-east-1a, one in us-east-1b; app=web pods spread over zones with maxSkew 1.
  auto a1 = node_state("a1", 8000, 32);
  auto a2 = node_state("a2", 8000, 32);
  auto b1 = node_state("b1", 8000, 32);
  b1.labels[std::string(model::labels::k_zone)] = "us-east-1b";
  auto tmpl = node_state("template", 8000, 32);
  tmpl.labels[std::string(model::labels::k_zone)] = "us-east-1c";
  auto web = make_spec("web", 100, 128);
  model::TopologySpreadConstraint c;
  c.max_skew = 1;
  c.topology_key = std::string(model::labels::k_zone);
  c.when_unsatisfiable = model::UnsatisfiableAction::do_not_schedule;
  c.selector = model::LabelSelector{{{"app", "web"}}, {}};
  web->topology_spread.push_back(c);
  const auto other = make_spec("other", 100, 128);
  std::vector<model::Pod> pods;
  add_pods(pods, "web", web, 4);
  add_pods(pods, "other", other, 1);

  Snapshot snapshot;
  for (const auto* n : {&a1, &a2, &b1}) {
    SnapNode sn;
    sn.state = n;
    sn.real = true;
    snapshot.add_node(sn);
  }
  snapshot.add_pod(0, pods[0]);
  snapshot.add_pod(2, pods[4]); // not selected
  using Counts = std::map<std::string, std::int64_t, std::less<>>;
  const auto counts = [&] { return snapshot.spread_counts(*web, web->topology_spread[0], c.selector).counts; };
  CHECK(counts() == Counts{{"us-east-1a", 1}, {"us-east-1b", 0}});
  // us-east-1a has 1, us-east-1b 0: a second web pod may not go to us-east-1a.
  CHECK(check_predicates(snapshot, 1, pods[1]) == Filter::topology_spread);
  CHECK(check_predicates(snapshot, 2, pods[1]) == Filter::none);

  const std::size_t mark = snapshot.mark();
  snapshot.add_pod(2, pods[1]);
  CHECK(counts() == Counts{{"us-east-1a", 1}, {"us-east-1b", 1}});
  CHECK(check_predicates(snapshot, 1, pods[2]) == Filter::none);
  snapshot.add_pod(1, pods[2]);
  CHECK(counts() == Counts{{"us-east-1a", 2}, {"us-east-1b", 1}});
  // Removing b1 drops its zone (no other node counts there) and its pods with it.
  snapshot.set_removed(2, true);
  CHECK(counts() == Counts{{"us-east-1a", 2}});
  snapshot.remove_pod(0, pods[0]);
  CHECK(counts() == Counts{{"us-east-1a", 1}});
  // A template copy in a new zone counts as an empty domain.
  const std::size_t copy = snapshot.add_copy(tmpl, "ng-upcoming-0", {}, 0);
  CHECK(counts() == Counts{{"us-east-1a", 1}, {"us-east-1c", 0}});
  snapshot.add_pod(copy, pods[3]);
  CHECK(counts() == Counts{{"us-east-1a", 1}, {"us-east-1c", 1}});

  snapshot.revert(mark);
  CHECK(counts() == Counts{{"us-east-1a", 1}, {"us-east-1b", 0}});
  CHECK(check_predicates(snapshot, 1, pods[1]) == Filter::topology_spread);
  snapshot.clear();
  CHECK(counts().empty());
}
