#include "core/io/scenario_yaml.hpp"
#include "core/io/workload.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace capsim;

// Every example in scenarios/ must load, validate and expand (SPEC §1: each must run green).
TEST_CASE("scenarios: every example loads and expands", "[io][scenarios]")
{
  const std::filesystem::path dir = std::filesystem::path(CAPSIM_SOURCE_DIR) / "scenarios";
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 5);
  for (const auto& f : files) {
    CAPTURE(f);
    const auto s = io::load_scenario(f);
    CHECK(s.settings.duration > 0);
    CHECK_FALSE(s.settings.engines.empty());
    const auto pods = io::expand_workload(s);
    CHECK_FALSE(pods.empty());
  }
}

TEST_CASE("scenarios: the examples describe what their comments say", "[io][scenarios]")
{
  const std::filesystem::path dir = std::filesystem::path(CAPSIM_SOURCE_DIR) / "scenarios";
  const auto quick = io::load_scenario((dir / "quickstart.yaml").string());
  CHECK(quick.node_pools.size() == 1);
  CHECK(quick.node_groups.size() == 1);
  CHECK(quick.workloads.size() == 3);
  CHECK(io::expand_workload(quick).size() == 18);

  const auto seed = io::load_scenario((dir / "consolidation-seed.yaml").string());
  REQUIRE(seed.nodes.size() == 2);
  for (const auto& n : seed.nodes) {
    CHECK(n.node_pool == "default");
    CHECK(n.node_group == "general");
    CHECK(n.labels.at("node.kubernetes.io/instance-type") == "m5.xlarge");
  }
  REQUIRE(seed.pods.size() == 2);
  CHECK(seed.pods[0].node_name == seed.nodes[0].name);
  CHECK(seed.pods[1].node_name == seed.nodes[1].name);
  CHECK(seed.pods[0].spec->owner == model::OwnerKind::replica_set);

  const auto teams = io::load_scenario((dir / "multi-team.yaml").string());
  CHECK(teams.node_pools.size() == 3);
  std::size_t static_nodes = 0;
  for (const auto& n : teams.nodes) {
    static_nodes += n.owner == model::InitialNode::Owner::static_node ? 1 : 0;
  }
  CHECK(static_nodes == 2);

  const auto spot = io::load_scenario((dir / "spot.yaml").string());
  CHECK(spot.settings.spot.interruption_model == "advisor");
  CHECK(spot.events.size() == 2);
}
