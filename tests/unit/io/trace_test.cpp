#include "core/io/scenario_yaml.hpp"
#include "core/io/trace.hpp"
#include "core/io/trace_stats.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace capsim;

namespace {

std::vector<model::Pod> read(const std::string& text, io::TraceFormat format, const io::TraceOptions& options = {})
{
  std::istringstream in(text);
  return io::read_trace(in, format, "tr.csv", options);
}

std::vector<std::string> errors(const std::string& text, io::TraceFormat format, const io::TraceOptions& options = {})
{
  try {
    (void)read(text, format, options);
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.diagnostics()) {
      out.push_back(format_diagnostic(d));
    }
    return out;
  }
  return {};
}

// Templates `web` (1 cpu, 2Gi, priority 5) and `batch`.
const model::Scenario& templates()
{
  static const model::Scenario s = io::parse_scenario(R"(apiVersion: capsim/v1
kind: Scenario
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 0
  template:
    spec:
      priority: 5
      containers: [{name: c, resources: {requests: {cpu: "1", memory: 2Gi}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  parallelism: 0
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: 250m}}}]}}
)",
                                                       "templates.yaml");
  return s;
}

} // namespace

TEST_CASE("trace csv: timing, requests, templates and names", "[io][trace][csv]")
{
  io::TraceOptions options;
  options.scenario = &templates();
  options.default_template = "batch";
  const auto pods = read(R"(arrival,duration,departure,cpu,memory,gpu,template,name,priority
10,90,,500,512,,web,a,
0,1h30m,,250m,1Gi,1,batch,,
10,,100.5,,,,web,c,9
2.25,,,2000m,1.5Gi,,,,
)",
                         io::TraceFormat::csv, options);
  REQUIRE(pods.size() == 4);
  // Sorted by arrival; the two rows at t=10 keep their row order.
  CHECK(pods[0].arrival == 0);
  CHECK(pods[1].arrival == 2250);
  CHECK(pods[2].name == "a");
  CHECK(pods[3].name == "c");
  const auto& a = pods[2];
  CHECK(a.arrival == 10'000);
  CHECK(a.runtime == 90'000);
  CHECK(a.departure == -1);
  CHECK(a.requests.cpu() == 500);            // bare number: millicores
  CHECK(a.requests.memory() == 512 * k_mib); // bare number: MiB
  CHECK(a.spec == templates().find_template("web"));
  const auto& b = pods[0];
  CHECK(b.runtime == 90 * k_minute);
  CHECK(b.requests.cpu() == 250);
  CHECK(b.requests.memory() == k_gib);
  CHECK(b.requests[model::k_nvidia_gpu] == 1);
  CHECK(b.name == "batch-3"); // unnamed rows: <template>-<line>
  const auto& c = pods[3];
  CHECK(c.departure == 100'500);
  CHECK(c.runtime == -1);
  CHECK(c.requests.cpu() == 1000); // empty cells keep the template's requests
  CHECK(c.requests.memory() == 2 * k_gib);
  CHECK(c.spec->priority == 9); // a priority override copies the template once
  CHECK(c.spec->template_name == "web");
  CHECK(c.spec != a.spec);
  const auto& d = pods[1];
  CHECK(d.spec == templates().find_template("batch")); // the default template
  CHECK(d.requests.cpu() == 2000);
  CHECK(d.requests.memory() == 1536 * k_mib);
}

TEST_CASE("trace csv: RFC 3339 arrivals start at the earliest one", "[io][trace][csv]")
{
  const auto pods = read("arrival,departure,cpu\n2024-05-01T12:00:30Z,2024-05-01T13:00:00Z,100\n"
                         "2024-05-01T14:00:00+02:00,,100\n2024-05-01T12:00:00.250Z,,1\n",
                         io::TraceFormat::csv);
  REQUIRE(pods.size() == 3);
  CHECK(pods[0].arrival == 0); // 12:00:00Z, the +02:00 row
  CHECK(pods[1].arrival == 250);
  CHECK(pods[2].arrival == 30'000);
  CHECK(pods[2].departure == k_hour);
  CHECK(pods[0].spec->template_name.empty());
  CHECK(pods[0].name == "trace-3");
  CHECK(io::parse_rfc3339_ms("1970-01-01T00:00:00Z") == 0);
  CHECK(io::parse_rfc3339_ms("2000-03-01T00:00:00Z") == 951868800000LL);
  CHECK(io::parse_rfc3339_ms("2024-02-29T23:59:59.999-00:30") == 1709252999999LL);
  CHECK_FALSE(io::parse_rfc3339_ms("2024-13-01T00:00:00Z").has_value());
  CHECK_FALSE(io::parse_rfc3339_ms("yesterday").has_value());
}

TEST_CASE("trace csv: errors are FILE:ROW:COL", "[io][trace][csv][errors]")
{
  io::TraceOptions options;
  options.scenario = &templates();
  const auto e = errors("arrival,cpu,memory,template\n5,-250m,1Gi,web\nsoon,1,1,web\n5,1,1,wbe\n5,1\n"
                        "7,100,2Gb,web\n2024-01-01T00:00:00Z,1,1,web\n",
                        io::TraceFormat::csv, options);
  CAPTURE(e);
  REQUIRE(e.size() == 6);
  CHECK(e[0] == "tr.csv:2:3: error: cpu: quantity '-250m' must not be negative");
  CHECK(e[1] == "tr.csv:3:1: error: arrival: 'soon' is not a time (expected seconds from the start such as 90 or "
                "12.5, or RFC 3339 such as 2024-05-01T12:00:00Z)");
  CHECK(e[2] == "tr.csv:4:7: error: template: unknown template 'wbe' (did you mean 'web'?)");
  CHECK(e[3] == "tr.csv:5:1: error: the row has 2 fields but the header has 4");
  CHECK(e[4] == "tr.csv:6:7: error: memory: '2Gb' has an unknown unit suffix 'Gb' (expected one of m, k, M, G, T, P, "
                "E, Ki, Mi, Gi, Ti, Pi, Ei)");
  CHECK(e[5] == "tr.csv:7:1: error: arrival: the trace mixes RFC 3339 timestamps and seconds");

  CHECK(errors("arival,cpu\n1,2\n", io::TraceFormat::csv)
        == std::vector<std::string>{"tr.csv:1:1: error: unknown column 'arival' (did you mean 'arrival'?) (columns: "
                                    "arrival, duration, departure, cpu, memory, gpu, template, name, priority)",
                                    "tr.csv:1:1: error: the header has no 'arrival' column (the first row must name "
                                    "the columns: arrival, duration or departure, cpu, memory, ...)"});
  CHECK(errors("arrival,departure\n100,50\n", io::TraceFormat::csv)
        == std::vector<std::string>{"tr.csv:2:5: error: departure: departure (50) is before arrival (100)"});
  CHECK(errors("", io::TraceFormat::csv)
        == std::vector<std::string>{"tr.csv:1:1: error: the trace is empty (expected a header row: arrival, duration, "
                                    "cpu, memory, ...)"});
  CHECK(errors("arrival\n\"1\n", io::TraceFormat::csv)
        == std::vector<std::string>{"tr.csv:2:1: error: column 1: unterminated quoted field (fields may not span lines)"});
  CHECK(errors("arrival\n99999999999999\n", io::TraceFormat::csv)
        == std::vector<std::string>{"tr.csv:2:1: error: arrival: '99999999999999' seconds is absurdly far in the "
                                    "future"});
}

TEST_CASE("trace csv: hostile input", "[io][trace][hostile]")
{
  CHECK(errors(std::string("arrival\n1\0\x01\x02", 12), io::TraceFormat::csv)
        == std::vector<std::string>{"tr.csv:2:1: error: line contains a NUL byte: the file looks binary (expected a "
                                    "text trace)"});
  const std::string long_line = "arrival\n" + std::string(io::k_max_trace_line + 10, '1');
  CHECK(errors(long_line, io::TraceFormat::csv)
        == std::vector<std::string>{"tr.csv:2:1: error: line is longer than 1048576 bytes (is this a trace file?)"});
  // Error floods stop at Diagnostics::k_max_errors.
  std::string many = "arrival\n";
  for (int i = 0; i < 1000; ++i) {
    many += "x\n";
  }
  CHECK(errors(many, io::TraceFormat::csv).size() == Diagnostics::k_max_errors);
}

TEST_CASE("trace jsonl: one object per line", "[io][trace][jsonl]")
{
  const auto pods = read(R"({"arrival": 3, "duration": "90s", "cpu": "250m", "memory": 256, "name": "x"}

{"arrival": 1.5, "departure": 10, "cpu": 1000, "memory": "1Gi", "gpu": 2, "priority": 7, "template": null}
)",
                         io::TraceFormat::jsonl);
  REQUIRE(pods.size() == 2);
  CHECK(pods[0].arrival == 1500);
  CHECK(pods[0].departure == 10'000);
  CHECK(pods[0].requests.cpu() == 1000);
  CHECK(pods[0].requests.memory() == k_gib);
  CHECK(pods[0].requests[model::k_nvidia_gpu] == 2);
  CHECK(pods[0].spec->priority == 7);
  CHECK(pods[1].name == "x");
  CHECK(pods[1].runtime == 90'000);
  CHECK(pods[1].requests.memory() == 256 * k_mib);

  const auto e = errors("{\"arrival\": 1, \"cpuu\": 1}\n{\"arrival\": 1,}\n[1]\n{\"arrival\": {\"a\": 1}}\n",
                        io::TraceFormat::jsonl);
  CAPTURE(e);
  REQUIRE(e.size() == 4);
  CHECK(e[0] == "tr.csv:1:16: error: unknown key 'cpuu' (did you mean 'cpu'?) (keys: arrival, duration, departure, "
                "cpu, memory, gpu, template, name, priority)");
  CHECK(e[1].rfind("tr.csv:2:15: error: invalid JSON: ", 0) == 0);
  CHECK(e[2] == "tr.csv:3:1: error: each line must be a JSON object such as {\"arrival\": 0, \"cpu\": \"250m\"}");
  CHECK(e[3] == "tr.csv:4:2: error: 'arrival' must be a string or a number");
  // A number beyond double (nlohmann throws out_of_range, not parse_error): fuzz finding.
  CHECK(errors("{\"arrival\": 1e999999}\n", io::TraceFormat::jsonl)
        == std::vector<std::string>{"tr.csv:1:1: error: invalid JSON: [json.exception.out_of_range.406] number "
                                    "overflow parsing '1e999999'"});
  // Deep nesting is parsed iteratively by nlohmann::json and refused as a non-object row.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']') + "\n";
  CHECK(errors(deep, io::TraceFormat::jsonl).size() == 1);
}

TEST_CASE("trace openb: Alibaba GPU trace rows", "[io][trace][openb]")
{
  io::TraceOptions options;
  options.scenario = &templates();
  options.default_template = "batch";
  const auto pods = read(R"(name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
openb-pod-0017,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497
openb-pod-0022,4000,15258,1,220,,BE,Running,9679175,9973826,9679175
openb-pod-0061,11908,47104,1,1000,V100M16|V100M32,BE,Pending,10001278,10001403,
openb-pod-0005,20000,65536,0,0,nan,LS,Running,2759674,12902960,2759676
)",
                         io::TraceFormat::openb, options);
  REQUIRE(pods.size() == 4);
  const auto& p5 = pods[0];
  CHECK(p5.name == "openb-pod-0005");
  CHECK(p5.arrival == 2759674LL * 1000);
  CHECK(p5.runtime == (12902960LL - 2759676) * 1000); // running time after scheduling
  CHECK(p5.requests.cpu() == 20000);
  CHECK(p5.requests.memory() == 65536 * k_mib);
  CHECK(p5.requests[model::k_nvidia_gpu] == 0);
  CHECK(p5.spec == templates().find_template("batch"));
  CHECK(pods[1].requests[model::k_nvidia_gpu] == 8);
  CHECK(pods[2].requests[model::k_nvidia_gpu] == 1); // a 220-milli GPU share takes one GPU
  const auto& pending = pods[3];
  CHECK(pending.runtime == -1);
  CHECK(pending.departure == 10001403LL * 1000); // deleted while pending
  CHECK(errors("name,cpu_milli,memory_mib,creation_time\nx,-5,1,1\n", io::TraceFormat::openb)
        == std::vector<std::string>{"tr.csv:2:3: error: cpu_milli: '-5' is not a number between 0 and "
                                    "1125899906842624"});
  CHECK(errors("name,cpu,memory_mib,creation_time\n", io::TraceFormat::openb).at(0)
        == "tr.csv:1:6: error: unknown openb column 'cpu'");
}

TEST_CASE("trace kubectl: `kubectl get pods -A -o json`", "[io][trace][kubectl]")
{
  const auto pods = read(R"({
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {
      "apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "web-1", "namespace": "shop", "creationTimestamp": "2024-05-01T10:00:30Z",
                   "labels": {"app": "web"},
                   "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-x", "uid": "u", "controller": true}]},
      "spec": {"nodeName": "ip-1", "priority": 100, "priorityClassName": "custom",
               "runtimeClassName": "kata", "overhead": {"cpu": "50m"},
               "nodeSelector": {"kubernetes.io/arch": "arm64"},
               "tolerations": [{"key": "team", "operator": "Exists"}],
               "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]},
      "status": {"phase": "Running"}
    },
    {
      "apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "job-1", "namespace": "batch", "creationTimestamp": "2024-05-01T10:00:00Z"},
      "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]},
      "status": {"phase": "Succeeded", "startTime": "2024-05-01T10:00:05Z",
                 "containerStatuses": [{"name": "c", "state": {"terminated": {"exitCode": 0, "finishedAt": "2024-05-01T10:20:05Z"}}}]}
    },
    {
      "apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "leaving", "creationTimestamp": "2024-05-01T10:01:00Z", "deletionTimestamp": "2024-05-01T10:31:00Z"},
      "spec": {"containers": [{"name": "c"}]}
    },
    {
      "apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "aws-node-abc", "creationTimestamp": "2024-05-01T09:00:00Z",
                   "ownerReferences": [{"kind": "DaemonSet", "name": "aws-node", "controller": true}]},
      "spec": {"containers": [{"name": "c"}]}
    }
  ]
})",
                         io::TraceFormat::kubectl);
  REQUIRE(pods.size() == 3); // the DaemonSet pod is left to DaemonSets
  CHECK(pods[0].name == "job-1");
  CHECK(pods[0].arrival == 0);
  CHECK(pods[0].runtime == 20 * k_minute);
  CHECK(pods[0].requests.cpu() == 1000);
  CHECK(pods[0].spec->owner == model::OwnerKind::none);
  CHECK(pods[1].name == "web-1");
  CHECK(pods[1].arrival == 30'000);
  CHECK(pods[1].node_name.empty()); // replayed as an arrival, not bound
  CHECK(pods[1].spec->priority == 100);
  // Admitted already: the RuntimeClass (not in a dump) set the overhead, which is added.
  CHECK(pods[1].requests.cpu() == 300);
  CHECK(pods[1].spec->namespace_ == "shop");
  CHECK(pods[1].spec->owner == model::OwnerKind::replica_set);
  CHECK(pods[1].spec->node_selector.at("kubernetes.io/arch") == "arm64");
  CHECK(pods[1].spec->tolerations.size() == 1);
  CHECK(pods[2].departure == 31 * k_minute);

  const auto e = errors("{\"items\": [{\"metadata\": {\"name\": \"p\"}, \"spec\": {\"containers\": [{\"name\": \"c\", "
                        "\"resources\": {\"requests\": {\"cpu\": \"lots\"}}}]}}]}",
                        io::TraceFormat::kubectl);
  CAPTURE(e);
  REQUIRE(e.size() == 2);
  CHECK(e[0] == "tr.csv:1:112: error: 'Pod/p.spec.containers[0].resources.requests.cpu': 'lots' is not a quantity "
                "(expected a number such as 500m, 2 or 4Gi)");
  CHECK(e[1] == "tr.csv:1:25: error: Pod/p: metadata.creationTimestamp is missing or not RFC 3339");
  CHECK(errors(std::string(200, '[') + std::string(200, ']'), io::TraceFormat::kubectl)
        == std::vector<std::string>{"tr.csv:1:64: error: nesting is deeper than 64 levels (refused before parsing)"});
}

TEST_CASE("trace kubectl: the pods of one controller share their spec", "[io][trace][kubectl]")
{
  const auto pod = [](const std::string& name, const std::string& owner, const std::string& labels,
                      const std::string& annotations) {
    std::string refs;
    if (!owner.empty()) {
      refs = R"(, "ownerReferences": [{"kind": "ReplicaSet", "name": ")" + owner + R"(", "controller": true}])";
    }
    return R"({"kind": "Pod", "metadata": {"name": ")" + name
           + R"(", "namespace": "shop", "creationTimestamp": "2024-05-01T10:00:00Z", "labels": )" + labels
           + R"(, "annotations": )" + annotations + refs
           + R"(}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "250m"}}}]}})";
  };
  const std::string web = R"({"app": "web"})";
  const auto pods = read("{\"items\": [" + pod("web-x-1", "web-x", web, R"({"podIP": "10.0.0.1"})") + ", "
                             + pod("web-x-2", "web-x", web, R"({"podIP": "10.0.0.2"})") + ", "
                             + pod("web-x-3", "web-x", R"({"app": "web", "pod-name": "web-x-3"})", "{}") + ", "
                             + pod("web-x-4", "web-x", web, R"({"controller.kubernetes.io/pod-deletion-cost": "5"})")
                             + ", " + pod("api-y-1", "api-y", web, "{}") + ", " + pod("bare-1", "", web, "{}") + ", "
                             + pod("bare-2", "", web, "{}") + "]}",
                         io::TraceFormat::kubectl);
  REQUIRE(pods.size() == 7);
  // Annotations that change no scheduling fact (a pod IP) leave the spec shared.
  CHECK(pods[0].spec == pods[1].spec);
  CHECK(pods[0].spec->template_name == "web-x");
  CHECK(pods[0].spec->annotations.empty());
  CHECK(pods[0].spec->counted_with == nullptr);
  // Another spec of the same ReplicaSet counts with its first (kube-scheduler's default spreading).
  CHECK(pods[2].spec != pods[0].spec);
  CHECK(pods[2].spec->counted_with == pods[0].spec);
  CHECK(pods[3].spec != pods[0].spec);
  CHECK(pods[3].spec->deletion_cost == 5);
  CHECK(pods[3].spec->counted_with == pods[0].spec);
  // Another controller, and pods without one, keep their own.
  CHECK(pods[4].spec != pods[0].spec);
  CHECK(pods[4].spec->template_name == "api-y");
  CHECK(pods[4].spec->counted_with == nullptr);
  CHECK(pods[5].spec != pods[6].spec);
  CHECK(pods[5].spec->template_name == "bare-1");
}

TEST_CASE("trace kubectl: a JSON dump's items are read one by one, with the dump's locations", "[io][trace][kubectl]")
{
  // kubectl's pretty-printed layout: errors in the second item name the dump's lines.
  const std::string dump = R"({
    "apiVersion": "v1",
    "items": [
        {
            "kind": "Pod",
            "metadata": {"name": "a", "creationTimestamp": "2024-05-01T10:00:00Z"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
        },
        {
            "kind": "Pod",
            "metadata": {"name": "b", "creationTimestamp": "2024-05-01T10:00:05Z"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
)";
  const auto e = errors(dump, io::TraceFormat::kubectl);
  REQUIRE(e.size() == 1);
  CHECK(e[0] == "tr.csv:12:85: error: 'Pod/b.spec.containers[0].resources.requests.cpu': 'lots' is not a quantity "
                "(expected a number such as 500m, 2 or 4Gi)");
  // As the whole document read at once places it (a comment line first makes the dump YAML).
  const auto whole = errors("# YAML\n" + dump, io::TraceFormat::kubectl);
  REQUIRE(whole.size() == 1);
  CHECK(whole[0] == "tr.csv:13:85: error: 'Pod/b.spec.containers[0].resources.requests.cpu': 'lots' is not a "
                    "quantity (expected a number such as 500m, 2 or 4Gi)");
  // The same dump as YAML (read as one document) gives the same pods.
  std::string fixed = dump;
  fixed.replace(fixed.find("lots"), 4, "2");
  const auto pods = read(fixed, io::TraceFormat::kubectl);
  const auto yaml = read(R"(
apiVersion: v1
kind: List
items:
- kind: Pod
  metadata: {name: a, creationTimestamp: "2024-05-01T10:00:00Z"}
  spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
- kind: Pod
  metadata: {name: b, creationTimestamp: "2024-05-01T10:00:05Z"}
  spec: {containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
)",
                         io::TraceFormat::kubectl);
  REQUIRE(pods.size() == 2);
  REQUIRE(yaml.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(pods[i].name == yaml[i].name);
    CHECK(pods[i].arrival == yaml[i].arrival);
    CHECK(pods[i].requests == yaml[i].requests);
  }
  // Flow YAML that looks like JSON (single quotes hold a brace) is read as one document.
  const auto flow = read("{\"items\": [{kind: Pod, metadata: {name: 'a}', creationTimestamp: '2024-05-01T10:00:00Z'}, "
                         "spec: {containers: [{name: c}]}}, {\"kind\": \"Pod\", \"metadata\": {\"name\": \"b\", "
                         "\"creationTimestamp\": \"2024-05-01T10:00:01Z\"}, \"spec\": {\"containers\": [{\"name\": "
                         "\"c\"}]}}]}",
                         io::TraceFormat::kubectl);
  REQUIRE(flow.size() == 2);
  CHECK(flow[0].name == "a}");
  CHECK(flow[1].name == "b");
  // Bad syntax inside an item, and outside the items, is reported where it is.
  const auto inside = errors("{\"items\": [\n  {\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"]}\n]}",
                             io::TraceFormat::kubectl);
  REQUIRE(inside.size() == 1);
  CHECK(inside[0].rfind("tr.csv:2:", 0) == 0);
  CHECK(inside[0].find("invalid JSON/YAML") != std::string::npos);
  // An item the scan takes but the parser refuses: the dump is read whole, which reports only that.
  const auto refused = errors("{\"items\": [{\"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}, \"spec\": "
                              "{\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": "
                              "\"lots\"}}}]}},\n {\"kind\": \"Pod\" \"metadata\": {}}]}",
                              io::TraceFormat::kubectl);
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].rfind("tr.csv:2:", 0) == 0);
  CHECK(refused[0].find("invalid JSON/YAML") != std::string::npos);
  const auto outside = errors("{\"items\": [], \"kind\": \"List\" \"metadata\": {}}", io::TraceFormat::kubectl);
  REQUIRE(outside.size() == 1);
  CHECK(outside[0].find("invalid JSON/YAML") != std::string::npos);
}

TEST_CASE("trace: write then read gives the same pods", "[io][trace]")
{
  auto spec = std::make_shared<model::PodSpec>();
  spec->template_name = "web";
  spec->priority = 3;
  std::vector<model::Pod> pods;
  for (int i = 0; i < 5; ++i) {
    model::Pod p;
    p.name = "p," + std::to_string(i); // needs quoting in csv
    p.spec = spec;
    p.arrival = i * 1500;
    p.runtime = i % 2 == 0 ? 60'000 + i : -1;
    p.departure = i == 3 ? 90'000 : -1;
    p.requests[model::k_cpu] = 250 * (i + 1);
    p.requests[model::k_memory] = i == 4 ? 1000 : (i + 1) * 512 * k_mib;
    p.requests[model::k_nvidia_gpu] = i == 2 ? 1 : 0;
    pods.push_back(p);
  }
  for (const auto format : {io::TraceFormat::csv, io::TraceFormat::jsonl}) {
    std::ostringstream out;
    io::write_trace(out, pods, format);
    const auto back = read(out.str(), format);
    REQUIRE(back.size() == pods.size());
    for (std::size_t i = 0; i < pods.size(); ++i) {
      CAPTURE(i, out.str());
      CHECK(back[i].name == pods[i].name);
      CHECK(back[i].arrival == pods[i].arrival);
      CHECK(back[i].runtime == pods[i].runtime);
      CHECK(back[i].departure == pods[i].departure);
      CHECK(back[i].requests == pods[i].requests);
      CHECK(back[i].spec->template_name == "web");
      CHECK(back[i].spec->priority == 3);
    }
  }
  CHECK(io::format_seconds(1500) == "1.5");
  CHECK(io::format_seconds(60'000) == "60");
  CHECK(io::format_seconds(1) == "0.001");
}

TEST_CASE("trace: reading a file reserves once and sorts stably", "[io][trace]")
{
  const auto path = (std::filesystem::temp_directory_path()
                     / ("capsim_trace_test-" + std::to_string(::getpid()) + ".csv"))
                        .string();
  {
    std::ofstream out(path);
    out << "arrival,cpu\n";
    for (int i = 0; i < 20000; ++i) {
      out << (20000 - i) % 100 << "," << i << "\n";
    }
  }
  const auto pods = io::read_trace(path, io::TraceFormat::csv);
  std::filesystem::remove(path);
  REQUIRE(pods.size() == 20000);
  CHECK(pods.capacity() <= 20002); // one allocation of the line count, never doubled
  for (std::size_t i = 1; i < pods.size(); ++i) {
    REQUIRE(pods[i - 1].arrival <= pods[i].arrival);
    if (pods[i - 1].arrival == pods[i].arrival) {
      REQUIRE(pods[i - 1].requests.cpu() < pods[i].requests.cpu()); // row order kept on ties
    }
  }
  io::TraceOptions from_scenario;
  from_scenario.referenced_from = {"s.yaml", 7, 16};
  CHECK_THROWS_WITH(io::read_trace("/nonexistent.csv", io::TraceFormat::csv, from_scenario),
                    "s.yaml:7:16: error: cannot read '/nonexistent.csv': no such file");
}

TEST_CASE("trace stats: distributions and peaks", "[io][trace][stats]")
{
  const auto pods = read("arrival,duration,departure,cpu,memory\n0,100,,1000,1024\n50,,,500,512\n100,10,,2000,2048\n"
                         "200,,250,100,100\n",
                         io::TraceFormat::csv);
  const auto s = io::trace_stats(pods);
  CHECK(s.pods == 4);
  CHECK(s.first_arrival == 0);
  CHECK(s.last_arrival == 200'000);
  CHECK(s.last_end == 250'000);
  CHECK(s.open_ended == 1);
  CHECK(s.cpu.p50 == 500);
  CHECK(s.cpu.p95 == 2000);
  CHECK(s.cpu.max == 2000);
  CHECK(s.memory.max == 2048 * k_mib);
  CHECK(s.running.p50 == 50'000);
  CHECK(s.running.max == 100'000);
  // At t=100 the first pod ends as the third starts: ends count first.
  CHECK(s.peak_pods == 2);
  CHECK(s.peak_pods_at == 50'000);
  CHECK(s.peak_cpu == 2500);
  CHECK(s.peak_cpu_at == 100'000);
  CHECK(s.peak_memory == 2560 * k_mib);
  CHECK(io::format_trace_stats(s).find("peak pods:   2 at 50s") != std::string::npos);
}
