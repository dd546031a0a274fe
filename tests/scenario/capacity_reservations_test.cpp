// Capacity reservations from `aws ec2 describe-capacity-reservations` output, selected by an
// EC2NodeClass's capacityReservationSelectorTerms (aws/karpenter-provider-aws
// ReservedCapacityResolver): each selected active reservation becomes a reserved offering of
// its type in its zone for the NodePools of that class, priced at the on-demand price /
// 10,000,000, with its AvailableInstanceCount (plus the scenario's own nodes in it at t=0).
#include "core/catalog/load.hpp"
#include "core/io/capacity_reservations.hpp"
#include "core/io/scenario_yaml.hpp"
#include "core/sim/node_class_types.hpp"
#include "core/sim/run.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace capsim;

namespace {

const std::string k_fixture = std::string(CAPSIM_SOURCE_DIR) + "/tests/fixtures/capacity-reservations/describe-capacity-reservations.json";

// One-pod-per-node pods (1.5 CPU on m5.large) and an on-demand/reserved m5.large NodePool whose
// EC2NodeClass selects reservations by `terms`.
std::string scenario(const std::string& terms, int replicas, const std::string& nodes = "")
{
  return R"(apiVersion: capsim/v1
kind: Scenario
metadata: {name: odcr}
spec:
  region: us-east-1
  zones: [us-east-1a]
  duration: 30m
  seed: 1
  spot: {interruptionModel: none}
  capacityReservations: )" + k_fixture + R"(
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["m5.large"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand", "reserved"]}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
)" + terms + nodes
         + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: )" + std::to_string(replicas)
         + R"(
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, resources: {requests: {cpu: 1500m}}}]
)";
}

report::EngineResult run(const std::string& text)
{
  sim::RunOptions options;
  options.engines = {"karpenter"};
  auto r = sim::run_scenario(io::parse_scenario(text, "odcr.yaml"), options);
  REQUIRE(r.results.size() == 1);
  return r.results.front();
}

int count(const report::EngineResult& e, const std::string& capacity_type)
{
  int n = 0;
  for (const auto& node : e.final_nodes) {
    n += node.capacity_type == capacity_type ? 1 : 0;
  }
  return n;
}

} // namespace

TEST_CASE("capacity reservations: describe-capacity-reservations output is read", "[io][reserved]")
{
  const auto s = io::parse_scenario(scenario("", 1), "odcr.yaml");
  REQUIRE(s.capacity_reservations.size() == 3);
  const auto& r = s.capacity_reservations[0];
  CHECK(r.id == "cr-0a1b2c3d4e5f60001");
  CHECK(r.instance_type == "m5.large");
  CHECK(r.zone == "us-east-1a");
  CHECK(r.available == 2);
  CHECK(r.state == "active");
  CHECK(r.owner_id == "123456789012");
  CHECK(r.instance_match_criteria == "targeted");
  CHECK(r.reservation_type == "default");
  CHECK(r.tags == std::map<std::string, std::string>{{"team", "web"}});
  CHECK(s.capacity_reservations[1].reservation_type == "default"); // absent: default

  const auto error = [](const std::string& text) {
    try {
      (void)io::parse_capacity_reservations(text, "cr.json");
    } catch (const InputError& e) {
      return format_diagnostic(e.diagnostics().at(0));
    }
    return std::string();
  };
  CHECK(error("{\"Reservations\": []}")
        == "cr.json:1:1: error: expected the output of `aws ec2 describe-capacity-reservations` (an object with "
           "'CapacityReservations')");
  CHECK(error("{\"CapacityReservations\": [{\"CapacityReservationId\": \"cr-1\", \"InstanceType\": \"m5.large\",\n"
              "  \"AvailabilityZone\": \"us-east-1a\", \"State\": \"active\", \"AvailableInstanceCount\": -2}]}")
        == "cr.json:2:82: error: '-2' is out of range for 'CapacityReservations[0].AvailableInstanceCount' (expected "
           "0..1000000)");
  CHECK(error("{\"CapacityReservations\": [{\"CapacityReservationId\": \"cr-1\"}]}")
        == "cr.json:1:27: error: 'CapacityReservations[0]' needs 'InstanceType'");
  CHECK(error("{\"CapacityReservations\": [") .rfind("cr.json:", 0) == 0);
}

TEST_CASE("capacity reservations: selector terms of an EC2NodeClass", "[io][reserved]")
{
  const auto s = io::parse_scenario(scenario(R"(  capacityReservationSelectorTerms:
    - id: cr-0a1b2c3d4e5f60002
    - tags: {team: web}
      ownerID: "123456789012"
)",
                                             1),
                                    "odcr.yaml");
  REQUIRE(s.node_classes.size() == 1);
  const auto& terms = s.node_classes[0].capacity_reservation_terms;
  REQUIRE(terms.size() == 2);
  const auto& rs = s.capacity_reservations;
  CHECK(sim::selects(terms, rs[0]));  // tags and owner
  CHECK(sim::selects(terms, rs[1]));  // id
  CHECK_FALSE(sim::selects(terms, rs[2])); // expired
  CHECK_FALSE(sim::selects({{"", "999999999999", {{"team", "web"}}, ""}}, rs[0])); // another owner
  CHECK(sim::selects({{"", "", {{"team", "*"}}, ""}}, rs[1]));                     // any value
  CHECK(sim::selects({{"", "", {}, "open"}}, rs[1]));
  CHECK_FALSE(sim::selects({{"", "", {}, "open"}}, rs[0]));

  const auto error = [](const std::string& terms_yaml) {
    try {
      (void)io::parse_scenario(scenario(terms_yaml, 1), "odcr.yaml");
    } catch (const InputError& e) {
      return format_diagnostic(e.diagnostics().at(0));
    }
    return std::string();
  };
  CHECK(error("  capacityReservationSelectorTerms:\n    - ownerID: \"123456789012\"\n")
        == "odcr.yaml:30:7: error: 'EC2NodeClass/default.spec.capacityReservationSelectorTerms': a term needs 'id', "
           "'tags' or 'instanceMatchCriteria'");
  CHECK(error("  capacityReservationSelectorTerms:\n    - {id: cr-1, tags: {a: b}}\n")
        == "odcr.yaml:30:7: error: 'EC2NodeClass/default.spec.capacityReservationSelectorTerms': 'id' excludes the "
           "term's other fields");
}

TEST_CASE("capacity reservations: a selected reservation is a reserved offering of its NodePools' type",
          "[scenario][reserved]")
{
  const auto s = io::parse_scenario(scenario("  capacityReservationSelectorTerms: [{tags: {team: web}}]\n", 1),
                                    "odcr.yaml");
  const auto cat = catalog::load_catalog("us-east-1");
  const sim::NodeClassTypes types(s, cat);
  const auto* m5 = types.find("default", "m5.large");
  REQUIRE(m5 != nullptr);
  const auto& reserved = m5->offerings.back();
  CHECK(reserved.capacity_type == "reserved");
  CHECK(reserved.reservation_id == "cr-0a1b2c3d4e5f60001");
  CHECK(reserved.reservation_capacity == 2);
  CHECK(reserved.zone == "us-east-1a");
  CHECK(reserved.price_per_hour == Approx(0.096 / 10'000'000.0));
  CHECK(m5->requirements.get("karpenter.sh/capacity-type").has("reserved"));
  // computeRequirements: the type's reservations, DoesNotExist on a type without any.
  CHECK(m5->requirements.get("karpenter.k8s.aws/capacity-reservation-id").values
        == std::vector<std::string>{"cr-0a1b2c3d4e5f60001"});
  CHECK(m5->requirements.get("karpenter.k8s.aws/capacity-reservation-type").values
        == std::vector<std::string>{"default"});
  const auto none = types.find("default", "m5.xlarge")->requirements.get("karpenter.k8s.aws/capacity-reservation-id");
  CHECK((!none.complement && none.values.empty()));
  // Other classes and other types keep the catalog's.
  CHECK(types.find("other", "m5.large") == cat.find("m5.large"));
  CHECK(types.find("default", "m5.xlarge")->offerings.size() == cat.find("m5.xlarge")->offerings.size());
}

TEST_CASE("capacity reservations: Karpenter launches into the selected reservation first", "[scenario][reserved]")
{
  // Two instances available in the team=web reservation: two reserved nodes, the rest on-demand.
  const auto e = run(scenario("  capacityReservationSelectorTerms: [{tags: {team: web}}]\n", 4));
  CHECK(e.pods.scheduled == 4);
  CHECK(count(e, "reserved") == 2);
  CHECK(count(e, "on-demand") == 2);
  // Both reservations (web and batch): six instances, all four reserved.
  const auto both = run(scenario("  capacityReservationSelectorTerms: [{tags: {team: \"*\"}}]\n", 4));
  CHECK(count(both, "reserved") == 4);
  // No selector terms: no reserved offering.
  CHECK(count(run(scenario("", 4)), "reserved") == 0);
}

TEST_CASE("capacity reservations: a node in the reservation at t=0 keeps its instance", "[scenario][reserved]")
{
  // The reservation's AvailableInstanceCount (2) leaves out the node already in it: it holds
  // three, one of them the existing node's. Four pods: the node takes one, two more go reserved.
  const std::string node = R"(---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-1.ec2.internal
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a,
           karpenter.sh/capacity-type: reserved, karpenter.sh/nodepool: default,
           karpenter.k8s.aws/capacity-reservation-id: cr-0a1b2c3d4e5f60001}
)";
  const auto e = run(scenario("  capacityReservationSelectorTerms: [{id: cr-0a1b2c3d4e5f60001}]\n", 4, node));
  CHECK(e.pods.scheduled == 4);
  CHECK(e.nodes.launched == 3);
  CHECK(count(e, "reserved") == 3);
  CHECK(count(e, "on-demand") == 1);
}
