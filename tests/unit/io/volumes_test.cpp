#include "core/io/scenario_yaml.hpp"
#include "core/io/volumes.hpp"
#include "core/io/workload.hpp"
#include "tests/unit/io/io_test_support.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

using namespace capsim;
using capsim::iotest::errors_of;
using capsim::iotest::k_scenario;

namespace {

model::Scenario parse(const std::string& text)
{
  return io::parse_scenario(text, "t.yaml");
}

// "t.yaml:LINE:COL" of the first occurrence of `needle` in `text` (after `after`, when given).
std::string at(const std::string& text, const std::string& needle, const std::string& after = "")
{
  const std::size_t from = after.empty() ? 0 : text.find(after);
  const std::size_t pos = text.find(needle, from);
  REQUIRE(pos != std::string::npos);
  const std::size_t line_start = text.rfind('\n', pos);
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(pos);
  const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), end, '\n')) + 1;
  const std::size_t col = pos - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  return fmt::format("t.yaml:{}:{}", line, col);
}

// A spec's volume alternatives, "key Op [values] & ... | ...".
std::string terms(const model::PodSpec& spec)
{
  std::string out;
  for (const auto& t : spec.volume_affinity) {
    out += out.empty() ? "" : " | ";
    for (std::size_t i = 0; i < t.requirements.size(); ++i) {
      out += (i == 0 ? "" : " & ") + model::to_string(t.requirements[i]);
    }
  }
  return out;
}

// A bare Pod in namespace default whose volume `data` is the claim `claim`.
std::string pod_with_claim(const std::string& claim, const std::string& name = "p")
{
  return fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: {}}}
spec:
  containers: [{{name: c}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: {}}}}}]
)",
                     name, claim);
}

std::string claim(const std::string& name, const std::string& spec, const std::string& extra = "")
{
  return fmt::format("---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {}{}}}\nspec: {}\n", name,
                     extra, spec);
}

std::string volume_in_zones(const std::string& name, const std::string& zones)
{
  return fmt::format(R"(---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {}}}
spec:
  capacity: {{storage: 10Gi}}
  csi: {{driver: ebs.csi.aws.com, volumeHandle: vol-1}}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{{key: topology.kubernetes.io/zone, operator: In, values: [{}]}}]
)",
                     name, zones);
}

std::string storage_class(const std::string& name, const std::string& body)
{
  return fmt::format("---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {}}}\n{}\n", name, body);
}

const std::string k_zone = "topology.kubernetes.io/zone";

} // namespace

TEST_CASE("volumes: a stream without claims leaves every spec as it was", "[io][volumes]")
{
  const auto s = parse(k_scenario + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template:
    spec:
      containers: [{name: c}]
      volumes: [{name: tmp, emptyDir: {}}, {name: cfg, configMap: {name: x}}]
)");
  REQUIRE(s.workloads.size() == 1);
  const auto& w = s.workloads[0];
  CHECK(w.spec->volume_affinity.empty());
  CHECK_FALSE(w.spec->volume_binds_on_schedule);
  CHECK(w.spec->volume_error.empty());
  CHECK(w.per_pod_claims.empty());
  CHECK(w.ordinal_specs.empty());
  CHECK(w.spec->has_local_storage);
  const auto pods = io::expand_workload(s, {.horizon = std::nullopt, .read_traces = false});
  REQUIRE(pods.size() == 3);
  CHECK(pods[0].spec == w.spec);
  CHECK(pods[2].spec == w.spec);
}

TEST_CASE("volumes: a bound claim takes its PersistentVolume's node affinity", "[io][volumes]")
{
  SECTION("one term: the volume's zone")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv1, storageClassName: gp3}")
                         + volume_in_zones("pv1", "us-east-1b"));
    const auto& spec = *s.pods[0].spec;
    CHECK(terms(spec) == k_zone + " In [us-east-1b]");
    CHECK_FALSE(spec.volume_binds_on_schedule); // already provisioned
    CHECK(spec.volume_error.empty());
  }
  SECTION("several terms are ORed alternatives")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv1}") + R"(---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}]
      - matchExpressions:
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1c]}
        - {key: kubernetes.io/arch, operator: In, values: [arm64]}
)");
    CHECK(terms(*s.pods[0].spec)
          == k_zone + " In [us-east-1a] | " + k_zone + " In [us-east-1c] & kubernetes.io/arch In [arm64]");
  }
  SECTION("a bound claim ignores its storage class, missing or empty (upstream's suite)")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv1, storageClassName: nope}")
                         + pod_with_claim("empty", "q") + claim("empty", "{volumeName: pv1, storageClassName: \"\"}")
                         + volume_in_zones("pv1", "us-east-1a") + storage_class("gp3", "provisioner: ebs.csi.aws.com"));
    CHECK(terms(*s.pods[0].spec) == k_zone + " In [us-east-1a]");
    CHECK(terms(*s.pods[1].spec) == k_zone + " In [us-east-1a]");
    CHECK(s.pods[1].spec->volume_error.empty());
  }
  SECTION("a PersistentVolume without node affinity constrains nothing")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv1}")
                         + "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec: {nfs: {server: x}}\n");
    CHECK(s.pods[0].spec->volume_affinity.empty());
    CHECK(s.pods[0].spec->volume_error.empty());
  }
}

TEST_CASE("volumes: local and hostPath volumes drop their hostname requirement", "[io][volumes]")
{
  const auto pv = [](const std::string& source, const std::string& expressions) {
    return fmt::format(R"(---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: pv1}}
spec:
  {}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: {}
)",
                       source, expressions);
  };
  const std::string hostname_and_zone = "[{key: kubernetes.io/hostname, operator: In, values: [node-1]}, "
                                        "{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}]";
  const std::string hostname_only = "[{key: kubernetes.io/hostname, operator: In, values: [node-1]}]";
  const std::string stream = k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv1}");
  CHECK(terms(*parse(stream + pv("local: {path: /mnt/disk}", hostname_and_zone)).pods[0].spec)
        == k_zone + " In [us-east-1a]");
  CHECK(terms(*parse(stream + pv("hostPath: {path: /data}", hostname_and_zone)).pods[0].spec)
        == k_zone + " In [us-east-1a]");
  // A hostname-only term becomes an unconstrained alternative: the claim constrains nothing.
  CHECK(parse(stream + pv("local: {path: /mnt/disk}", hostname_only)).pods[0].spec->volume_affinity.empty());
  // Any other volume keeps it (the pod can only go back to that node).
  CHECK(terms(*parse(stream + pv("csi: {driver: x, volumeHandle: y}", hostname_only)).pods[0].spec)
        == "kubernetes.io/hostname In [node-1]");
}

TEST_CASE("volumes: an unbound claim follows its StorageClass", "[io][volumes]")
{
  const std::string wffc = storage_class("gp3", R"(provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-east-1a, us-east-1b]}])");
  SECTION("WaitForFirstConsumer: allowedTopologies, and a zonal class pins the pod at binding")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: gp3}") + wffc);
    const auto& spec = *s.pods[0].spec;
    CHECK(terms(spec) == k_zone + " In [us-east-1a,us-east-1b]");
    CHECK(spec.volume_binds_on_schedule);
    CHECK(spec.volume_error.empty());
  }
  SECTION("several allowedTopologies terms are alternatives; a regional provisioner does not pin")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: efs}")
                         + storage_class("efs", R"(provisioner: efs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-east-1a]}]
- matchLabelExpressions: [{key: topology.ebs.csi.aws.com/zone, values: [us-east-1c]}])"));
    const auto& spec = *s.pods[0].spec;
    CHECK(terms(spec) == k_zone + " In [us-east-1a] | topology.ebs.csi.aws.com/zone In [us-east-1c]");
    CHECK_FALSE(spec.volume_binds_on_schedule);
  }
  SECTION("the in-tree EBS provisioner is zonal too; no allowedTopologies means anywhere")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: gp2}")
                         + storage_class("gp2", "provisioner: kubernetes.io/aws-ebs\nvolumeBindingMode: WaitForFirstConsumer"));
    CHECK(s.pods[0].spec->volume_affinity.empty());
    CHECK(s.pods[0].spec->volume_binds_on_schedule);
  }
  SECTION("an ephemeral volume's claim dies with the pod: allowedTopologies, never a pin")
  {
    const auto s = parse(k_scenario + R"(---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  volumes:
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        metadata: {labels: {a: b}}
        spec: {storageClassName: gp3, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
)" + wffc);
    const auto& spec = *s.pods[0].spec;
    CHECK(terms(spec) == k_zone + " In [us-east-1a,us-east-1b]");
    CHECK_FALSE(spec.volume_binds_on_schedule);
  }
  SECTION("Immediate: an explicit claim must already be bound")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: io}")
                         + storage_class("io", "provisioner: ebs.csi.aws.com\nvolumeBindingMode: Immediate"));
    CHECK(s.pods[0].spec->volume_error
          == "persistentvolumeclaim \"data\": pvc with immediate volume binding mode must be bound");
    // Immediate is the default mode.
    const auto d = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: io}")
                         + storage_class("io", "provisioner: ebs.csi.aws.com"));
    CHECK(d.pods[0].spec->volume_error
          == "persistentvolumeclaim \"data\": pvc with immediate volume binding mode must be bound");
  }
  SECTION("an explicitly empty class: no class at all")
  {
    const auto s = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: \"\"}") + wffc);
    CHECK(s.pods[0].spec->volume_error == "persistentvolumeclaim \"data\": unbound pvc must define a storage class");
    // Even without StorageClass documents.
    const auto d = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: \"\"}"));
    CHECK(d.pods[0].spec->volume_error == "persistentvolumeclaim \"data\": unbound pvc must define a storage class");
  }
}

TEST_CASE("volumes: a claim without storageClassName uses the default class", "[io][volumes]")
{
  const auto sc = [](const std::string& name, const std::string& created, const std::string& zone, bool is_default) {
    return fmt::format(R"(---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: {}
  creationTimestamp: "{}"
  annotations: {{storageclass.kubernetes.io/is-default-class: "{}"}}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies: [{{matchLabelExpressions: [{{key: topology.kubernetes.io/zone, values: [{}]}}]}}]
)",
                       name, created, is_default ? "true" : "false", zone);
  };
  const std::string stream = k_scenario + pod_with_claim("data") + claim("data", "{accessModes: [ReadWriteOnce]}");
  SECTION("the one default")
  {
    const auto s = parse(stream + sc("a", "2024-01-01T00:00:00Z", "us-east-1a", false)
                         + sc("b", "2023-01-01T00:00:00Z", "us-east-1b", true));
    CHECK(terms(*s.pods[0].spec) == k_zone + " In [us-east-1b]");
  }
  SECTION("several defaults: the newest, ties by name")
  {
    const auto s = parse(stream + sc("old", "2023-01-01T00:00:00Z", "us-east-1a", true)
                         + sc("new", "2024-06-01T00:00:00Z", "us-east-1b", true));
    CHECK(terms(*s.pods[0].spec) == k_zone + " In [us-east-1b]");
    const auto t = parse(stream + sc("zz", "2024-06-01T00:00:00Z", "us-east-1a", true)
                         + sc("aa", "2024-06-01T00:00:00Z", "us-east-1c", true));
    CHECK(terms(*t.pods[0].spec) == k_zone + " In [us-east-1c]");
  }
  SECTION("no default class among the stream's classes")
  {
    const auto s = parse(stream + sc("a", "2024-01-01T00:00:00Z", "us-east-1a", false));
    CHECK(s.pods[0].spec->volume_error
          == "persistentvolumeclaim \"data\": unbound pvc must define a storage class (no default StorageClass)");
  }
  SECTION("no StorageClass in the stream: EKS's usual EBS class (WaitForFirstConsumer, zonal)")
  {
    const auto s = parse(stream);
    CHECK(s.pods[0].spec->volume_affinity.empty());
    CHECK(s.pods[0].spec->volume_binds_on_schedule);
    CHECK(s.pods[0].spec->volume_error.empty());
    // Any class name too.
    const auto n = parse(k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: gp3}"));
    CHECK(n.pods[0].spec->volume_binds_on_schedule);
    CHECK(n.pods[0].spec->volume_error.empty());
  }
}

TEST_CASE("volumes: claims and volumes being deleted or lost keep the pod pending", "[io][volumes]")
{
  const auto deleting = parse(k_scenario + pod_with_claim("data")
                              + claim("data", "{storageClassName: gp3}", ", deletionTimestamp: \"2024-01-01T00:00:00Z\""));
  CHECK(deleting.pods[0].spec->volume_error == "persistentvolumeclaim \"data\": persistentvolumeclaim is being deleted");
  // A Lost claim's volume is gone: no error for the missing PersistentVolume.
  const auto lost = parse(k_scenario + pod_with_claim("data") + claim("data", "{volumeName: gone}")
                          + "status: {phase: Lost}\n");
  CHECK(lost.pods[0].spec->volume_error
        == "persistentvolumeclaim \"data\": persistentvolumeclaim bound to non-existent persistentvolume");
  const auto pv_deleting = parse(k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv1}")
                                 + "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1, "
                                   "deletionTimestamp: \"2024-01-01T00:00:00Z\"}\nspec: {}\n");
  CHECK(pv_deleting.pods[0].spec->volume_error == "persistentvolumeclaim \"data\": persistentvolume is being deleted");
  // The first failing volume names the error.
  const auto two = parse(k_scenario + R"(---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  volumes: [{name: a, persistentVolumeClaim: {claimName: a}}, {name: b, persistentVolumeClaim: {claimName: b}}]
)" + claim("a", "{storageClassName: \"\"}") + claim("b", "{}", ", deletionTimestamp: \"2024-01-01T00:00:00Z\""));
  CHECK(two.pods[0].spec->volume_error == "persistentvolumeclaim \"a\": unbound pvc must define a storage class");
}

TEST_CASE("volumes: missing claims, volumes and classes are errors at the reference", "[io][volumes][errors]")
{
  SECTION("a claim not in the stream (claims are namespaced)")
  {
    const std::string text = k_scenario + pod_with_claim("dta") + claim("data", "{}", ", namespace: other");
    REQUIRE_ERROR(text, at(text, "dta") + ": error: PersistentVolumeClaim 'default/dta' is not in the stream");
    const std::string near = k_scenario + pod_with_claim("dta") + claim("data", "{}");
    REQUIRE_ERROR(near, at(near, "dta")
                            + ": error: PersistentVolumeClaim 'default/dta' is not in the stream (did you mean 'data'?)");
  }
  SECTION("a volumeName not in the stream")
  {
    const std::string text = k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv9}");
    REQUIRE_ERROR(text, at(text, "pv9")
                            + ": error: PersistentVolumeClaim/data: spec.volumeName names PersistentVolume 'pv9', which "
                              "is not in the stream");
  }
  SECTION("a class not among the stream's classes")
  {
    const std::string text = k_scenario + pod_with_claim("data") + claim("data", "{storageClassName: gp4}")
                             + storage_class("gp3", "provisioner: ebs.csi.aws.com");
    REQUIRE_ERROR(text, at(text, "gp4")
                            + ": error: PersistentVolumeClaim/data: storageClassName 'gp4' names no StorageClass in the "
                              "stream (did you mean 'gp3'?)");
    const std::string tmpl = k_scenario + R"(---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  template: {spec: {containers: [{name: c}]}}
  volumeClaimTemplates: [{metadata: {name: data}, spec: {storageClassName: fast}}]
)" + storage_class("gp3", "provisioner: ebs.csi.aws.com");
    REQUIRE_ERROR(tmpl, at(tmpl, "fast")
                            + ": error: StatefulSet/db: volumeClaimTemplate 'data': storageClassName 'fast' names no "
                              "StorageClass in the stream");
  }
  SECTION("an unknown volumeBindingMode")
  {
    const std::string text = k_scenario + storage_class("gp3", "provisioner: x\nvolumeBindingMode: WaitForFirstConsumr");
    REQUIRE_ERROR(text, at(text, "WaitForFirstConsumr")
                            + ": error: 'WaitForFirstConsumr' is not a valid value for 'StorageClass/gp3.volumeBindingMode' "
                              "(expected Immediate, WaitForFirstConsumer; did you mean 'WaitForFirstConsumer'?)");
  }
  SECTION("a class's creationTimestamp that is not RFC 3339")
  {
    const std::string text = k_scenario
                             + "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3, "
                               "creationTimestamp: soon}\nprovisioner: ebs.csi.aws.com\n";
    REQUIRE_ERROR(text, at(text, "soon")
                            + ": error: 'StorageClass/gp3.metadata.creationTimestamp': 'soon' is not an RFC 3339 time "
                              "(e.g. 2026-11-29T12:00:00Z)");
  }
  SECTION("duplicate names per kind and namespace")
  {
    const std::string text = k_scenario + claim("data", "{}") + claim("data", "{}") + claim("data", "{}", ", namespace: b");
    const auto errors = errors_of(text);
    CAPTURE(errors);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("duplicate PersistentVolumeClaim 'data'") != std::string::npos);
  }
  SECTION("strict where it matters: node affinity, allowedTopologies, claim references")
  {
    const std::string text = k_scenario + pod_with_claim("data") + claim("data", "{volumeName: pv1}") + R"(---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpresions: []}]}}
)" + storage_class("gp3", "provisioner: x\nallowedTopologies: [{matchLabelExpressions: [{key: k, value: [a]}]}]");
    const auto errors = errors_of(text);
    CAPTURE(errors);
    CHECK(std::count_if(errors.begin(), errors.end(),
                        [](const std::string& e) { return e.find("unknown field 'matchExpresions'") != std::string::npos; })
          == 1);
    CHECK(std::count_if(errors.begin(), errors.end(),
                        [](const std::string& e) { return e.find("unknown field 'value'") != std::string::npos; })
          == 1);
  }
}

TEST_CASE("volumes: a live-cluster dump ignores claims that are not in it", "[io][volumes]")
{
  io::ParseOptions dump;
  dump.cluster_dump = true;
  const auto s = io::parse_scenario(k_scenario + pod_with_claim("data"), "t.yaml", {}, dump);
  REQUIRE(s.pods.size() == 1);
  CHECK(s.pods[0].spec->volume_affinity.empty());
  CHECK(s.pods[0].spec->volume_error.empty());
  CHECK(errors_of(k_scenario + pod_with_claim("data")).size() == 1);
}

TEST_CASE("volumes: the cross product of a pod's volumes", "[io][volumes]")
{
  const auto pod = k_scenario + R"(---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  volumes: [{name: a, persistentVolumeClaim: {claimName: a}}, {name: b, persistentVolumeClaim: {claimName: b}}]
)" + claim("a", "{volumeName: pva}") + claim("b", "{volumeName: pvb}");
  SECTION("incompatible pairings are dropped")
  {
    const auto s = parse(pod + volume_in_zones("pva", "us-east-1a, us-east-1b") + R"(---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pvb}
spec:
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1b]}]
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1c]}]
      - matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [arm64]}]
)");
    CHECK(terms(*s.pods[0].spec)
          == k_zone + " In [us-east-1b] | kubernetes.io/arch In [arm64] & " + k_zone + " In [us-east-1a,us-east-1b]");
  }
  SECTION("when every pairing is incompatible all are kept (unsatisfiable), as upstream")
  {
    const auto s = parse(pod + volume_in_zones("pva", "us-east-1a") + volume_in_zones("pvb", "us-east-1c"));
    REQUIRE(s.pods[0].spec->volume_affinity.size() == 1);
    CHECK(terms(*s.pods[0].spec) == k_zone + " DoesNotExist"); // In [] : no zone
  }
  SECTION("merge_alternatives on its own")
  {
    const auto in = [](const std::string& key, std::vector<std::string> values) {
      return model::NodeSelectorTerm{{model::Requirement::make(key, model::Operator::in, std::move(values))}};
    };
    const std::vector<model::NodeSelectorTerm> zones{in(k_zone, {"a"}), in(k_zone, {"b"})};
    CHECK(io::merge_alternatives({}, zones) == zones);
    CHECK(io::merge_alternatives(zones, {}) == zones);
    CHECK(io::merge_alternatives(zones, {in(k_zone, {"b", "c"})}) == std::vector{in(k_zone, {"b"})});
    const auto both = io::merge_alternatives(zones, {in("arch", {"arm64"})});
    REQUIRE(both.size() == 2);
    CHECK(both[1].requirements.size() == 2);
  }
}

TEST_CASE("volumes: StatefulSet volumeClaimTemplates", "[io][volumes][statefulset]")
{
  const auto sts = [](const std::string& replicas, const std::string& claim_spec) {
    return fmt::format(R"(---
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: db}}
spec:
  replicas: {}
  serviceName: db
  template: {{spec: {{containers: [{{name: c}}]}}}}
  volumeClaimTemplates: [{{metadata: {{name: data}}, spec: {}}}]
)",
                       replicas, claim_spec);
  };
  const auto expand = [](const model::Scenario& s) { return io::expand_workload(s, {.horizon = std::nullopt, .read_traces = false}); };

  SECTION("WaitForFirstConsumer: one shared spec, pinned at binding")
  {
    const auto s = parse(k_scenario + sts("3", "{resources: {requests: {storage: 10Gi}}}"));
    const auto& w = s.workloads[0];
    CHECK(w.spec->volume_binds_on_schedule);
    CHECK(w.spec->volume_affinity.empty());
    CHECK(w.per_pod_claims.empty());
    const auto pods = expand(s);
    REQUIRE(pods.size() == 3);
    CHECK(pods[0].spec == w.spec);
    CHECK(pods[2].spec == w.spec);
  }
  SECTION("claims of the stream named <template>-<set>-<i> are used for those ordinals")
  {
    const auto s = parse(k_scenario + sts("3", "{storageClassName: gp3}") + claim("data-db-0", "{volumeName: pv0}")
                         + claim("data-db-1", "{volumeName: pv1}") + claim("data-db-x", "{volumeName: pv0}")
                         + claim("data-db-01", "{volumeName: pv1}") + volume_in_zones("pv0", "us-east-1a")
                         + volume_in_zones("pv1", "us-east-1c")
                         + storage_class("gp3", "provisioner: ebs.csi.aws.com\nvolumeBindingMode: WaitForFirstConsumer"));
    const auto& w = s.workloads[0];
    REQUIRE(w.ordinal_specs.size() == 2);
    const auto pods = expand(s);
    REQUIRE(pods.size() == 3);
    CHECK(terms(*pods[0].spec) == k_zone + " In [us-east-1a]");
    CHECK_FALSE(pods[0].spec->volume_binds_on_schedule);
    CHECK(terms(*pods[1].spec) == k_zone + " In [us-east-1c]");
    CHECK(pods[2].spec == w.spec); // a new claim
    CHECK(pods[2].spec->volume_binds_on_schedule);
    CHECK(pods[2].spec->volume_affinity.empty());
  }
  SECTION("ordinals whose claims resolve alike share a spec")
  {
    const auto s = parse(k_scenario + sts("2", "{}") + claim("data-db-0", "{volumeName: pv0}")
                         + claim("data-db-1", "{volumeName: pv1}") + volume_in_zones("pv0", "us-east-1a")
                         + volume_in_zones("pv1", "us-east-1a"));
    const auto pods = expand(s);
    REQUIRE(pods.size() == 2);
    CHECK(pods[0].spec == pods[1].spec);
    CHECK(terms(*pods[0].spec) == k_zone + " In [us-east-1a]");
  }
  SECTION("Immediate: capsim provisions each claim at once in a zone chosen by the claim name's hash")
  {
    const std::string immediate = storage_class("io", R"(provisioner: ebs.csi.aws.com
allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [us-east-1c, us-east-1a, us-east-1b]}]}])");
    const auto s = parse(k_scenario + sts("12", "{storageClassName: io}") + immediate);
    const auto& w = s.workloads[0];
    CHECK(w.spec->volume_error.empty());
    CHECK(w.spec->volume_affinity.empty());
    REQUIRE(w.per_pod_claims.size() == 1);
    CHECK(w.per_pod_claims[0].zones == std::vector<std::string>{"us-east-1a", "us-east-1b", "us-east-1c"});
    const auto pods = expand(s);
    REQUIRE(pods.size() == 12);
    std::set<std::string> zones;
    std::set<const model::PodSpec*> specs;
    for (const auto& p : pods) {
      const std::string zone = io::pick_zone("data-" + p.name, w.per_pod_claims[0].zones);
      CHECK(terms(*p.spec) == k_zone + " In [" + zone + "]");
      CHECK_FALSE(p.spec->volume_binds_on_schedule);
      zones.insert(zone);
      specs.insert(p.spec.get());
    }
    CHECK(zones.size() > 1);            // spread over zones
    CHECK(specs.size() == zones.size()); // one spec per zone
    // Deterministic: the same stream gives the same zones.
    const auto again = expand(parse(k_scenario + sts("12", "{storageClassName: io}") + immediate));
    for (std::size_t i = 0; i < pods.size(); ++i) {
      CHECK(terms(*again[i].spec) == terms(*pods[i].spec));
    }
  }
  SECTION("Immediate without allowed zones: the scenario's zones")
  {
    const auto s = parse("apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h, zones: [us-east-1b, us-east-1d]}\n"
                         + sts("4", "{storageClassName: io}") + storage_class("io", "provisioner: ebs.csi.aws.com"));
    const auto& w = s.workloads[0];
    REQUIRE(w.per_pod_claims.size() == 1);
    CHECK(w.per_pod_claims[0].zones == std::vector<std::string>{"us-east-1b", "us-east-1d"});
    // ... else (the catalog's zones, which the reader does not load) where the pod first binds.
    const auto c = parse(k_scenario + sts("4", "{storageClassName: io}") + storage_class("io", "provisioner: ebs.csi.aws.com"));
    CHECK(c.workloads[0].per_pod_claims.empty());
    CHECK(c.workloads[0].spec->volume_binds_on_schedule);
    CHECK(c.workloads[0].spec->volume_affinity.empty());
  }
  SECTION("Immediate, not zonal (EFS): no zone")
  {
    const auto s = parse("apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h, zones: [us-east-1b, us-east-1d]}\n"
                         + sts("4", "{storageClassName: efs}") + storage_class("efs", "provisioner: efs.csi.aws.com"));
    const auto& w = s.workloads[0];
    CHECK(w.per_pod_claims.empty());
    CHECK_FALSE(w.spec->volume_binds_on_schedule);
    CHECK(w.spec->volume_affinity.empty());
  }
  SECTION("trace and generator pods of the template: a new claim each")
  {
    const auto s = parse(R"(apiVersion: capsim/v1
kind: Scenario
spec:
  duration: 1h
  zones: [us-east-1a, us-east-1b, us-east-1c]
  workload: {generators: [{template: db, pattern: constant, replicas: 6}]}
)" + sts("0", "{storageClassName: io}") + storage_class("io", "provisioner: ebs.csi.aws.com"));
    const auto pods = expand(s);
    REQUIRE(pods.size() == 6);
    for (const auto& p : pods) {
      CHECK(terms(*p.spec) == k_zone + " In [" + io::pick_zone("data-" + p.name, s.workloads[0].per_pod_claims[0].zones) + "]");
    }
  }
}

TEST_CASE("volumes: ephemeral volumes with Immediate binding get a zone per pod", "[io][volumes]")
{
  const auto s = parse("apiVersion: capsim/v1\nkind: Scenario\nspec: {duration: 1h, zones: [us-east-1a, us-east-1b]}\n"
                       + std::string(R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  template:
    spec:
      containers: [{name: c}]
      volumes: [{name: scratch, ephemeral: {volumeClaimTemplate: {spec: {storageClassName: io}}}}]
)") + storage_class("io", "provisioner: ebs.csi.aws.com"));
  const auto& w = s.workloads[0];
  REQUIRE(w.per_pod_claims.size() == 1);
  CHECK(w.per_pod_claims[0].ephemeral);
  for (const auto& p : io::expand_workload(s, {.horizon = std::nullopt, .read_traces = false})) {
    CHECK(terms(*p.spec) == k_zone + " In [" + io::pick_zone(p.name + "-scratch", w.per_pod_claims[0].zones) + "]");
  }
}

TEST_CASE("volumes: absurd combinations of volumes are refused", "[io][volumes][hostile]")
{
  std::string text = k_scenario + R"(---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  volumes: [{name: a, persistentVolumeClaim: {claimName: a}}, {name: b, persistentVolumeClaim: {claimName: b}}]
)" + claim("a", "{volumeName: pva}") + claim("b", "{volumeName: pvb}");
  for (const std::string key : {"a", "b"}) {
    text += fmt::format("---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: pv{}}}\nspec:\n  nodeAffinity:\n"
                        "    required:\n      nodeSelectorTerms:\n",
                        key);
    for (int i = 0; i < 40; ++i) {
      text += fmt::format("      - matchExpressions: [{{key: {}, operator: In, values: [v{}]}}]\n", key, i);
    }
  }
  REQUIRE_ERROR(text, at(text, "apiVersion: v1\nkind: Pod")
                          + ": error: Pod/p: the pod's volumes allow more than 1000 combinations of node constraints: "
                            "refused as absurd");
}

TEST_CASE("volumes: trace rows of a template with Immediate claims get a zone each", "[io][volumes][trace]")
{
  const auto path = (std::filesystem::temp_directory_path()
                     / ("capsim_volumes_test-" + std::to_string(::getpid()) + ".csv"))
                        .string();
  {
    std::ofstream out(path);
    out << "arrival,template,name,priority\n0,db,a,\n0,db,b,\n1,db,c,5\n1,db,d,5\n2,,e,\n";
  }
  const auto s = parse(fmt::format(R"(apiVersion: capsim/v1
kind: Scenario
spec:
  duration: 1h
  zones: [us-east-1a, us-east-1b, us-east-1c]
  workload: {{traces: [{{path: "{}", template: db}}]}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: db}}
spec:
  replicas: 0
  template: {{spec: {{containers: [{{name: c}}]}}}}
  volumeClaimTemplates: [{{metadata: {{name: data}}, spec: {{storageClassName: io}}}}]
)",
                                   path)
                       + storage_class("io", "provisioner: ebs.csi.aws.com"));
  const auto pods = io::expand_workload(s);
  std::filesystem::remove(path);
  REQUIRE(pods.size() == 5);
  const auto& zones = s.workloads[0].per_pod_claims.at(0).zones;
  for (const auto& p : pods) {
    CAPTURE(p.name);
    CHECK(terms(*p.spec) == k_zone + " In [" + io::pick_zone("data-" + p.name, zones) + "]");
  }
  CHECK(pods[2].spec->priority == 5); // the row's priority copy keeps its priority
}
