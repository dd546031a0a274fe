#include "core/base/diagnostics.hpp"
#include "core/sweep/k8s_job.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <map>

using namespace capsim;
using namespace capsim::sweep;

namespace {

SweepSpec sample_spec()
{
  SweepSpec spec;
  spec.scenario_file = "web.yaml";
  spec.sets = {"Scenario.spec.duration=2h", "Deployment/web.metadata.annotations[note]=costs $(HOME) $5"};
  spec.axes = {parse_axis("NodePool/default.spec.disruption.consolidateAfter=,5m,30m"),
               parse_axis("arch:NodePool/default.spec.template.spec.requirements[0].values=[amd64],[arm64, amd64]")};
  name_axes(spec.axes);
  spec.seeds = 5;
  spec.seed = 42;
  spec.engine = "karpenter";
  return spec;
}

const std::string k_scenario = "# A scenario\n"
                               "apiVersion: capsim/v1\n"
                               "kind: Scenario\n"
                               "metadata: {name: web}\n"
                               "spec:\n"
                               "  duration: 24h\n"
                               "  traces:\n"
                               "    - path: traces/web.csv   # comment\n"
                               "\n"
                               "---\n"
                               "apiVersion: karpenter.sh/v1\n"
                               "kind: NodePool\n"
                               "metadata:\n"
                               "  name: default\n";

K8sJobOptions sample_job()
{
  K8sJobOptions o;
  o.name = "capsim-sweep-web";
  o.image = "registry.example.com/capsim:0.1.0";
  o.shards = 4;
  o.parallelism = 2;
  o.cpu = 2;
  o.memory = "3Gi";
  o.spec = sample_spec();
  o.files = {
    {"web.yaml", k_scenario},
    {"traces/web.csv", "t,template,replicas\n0s,web,3\n1h,web,5\n"},
    {"no-final-newline.txt", "line 1\nline 2"},
    {"many-final-newlines.txt", "a\n\n\n"},
    {"leading-space.txt", "  indented first line\nsecond\n"},
    {"trailing-space.txt", "value   \nnext\n"},
    {"tabs.tsv", "a\tb\n1\t2\n"},
    {"crlf.csv", "a,b\r\n1,2\r\n"},
    {"unicode.txt", "café — naïve ✓\n"},
    {"quotes.txt", "\"quoted\" and 'single' and \\ backslash: {a: [b]} # not a comment\n"},
    {"empty.txt", ""},
    {"only-newlines.txt", "\n\n"},
    {"binary.bin", std::string("\x00\x01\xff\xfe payload \x80", 14)},
    {"odd name (1).csv", "x\n"},
  };
  return o;
}

// Standard base64 decoding, for checking binaryData.
std::string unbase64(const std::string& text)
{
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') {
      break;
    }
    buffer = (buffer << 6U) | static_cast<std::uint32_t>(alphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }
  return out;
}

// Kubernetes' $(VAR) expansion of command/args, for the variables a pod has.
std::string expand(const std::string& text, const std::map<std::string, std::string>& env)
{
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      out.push_back('$');
      ++i;
    } else if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '(') {
      const auto close = text.find(')', i);
      const std::string name = text.substr(i + 2, close - i - 2);
      const auto it = env.find(name);
      out += it != env.end() ? it->second : text.substr(i, close - i + 1);
      i = close;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

} // namespace

TEST_CASE("the emitted manifest is a valid batch/v1 Indexed Job with its ConfigMap", "[sweep][k8s]")
{
  const K8sJobOptions o = sample_job();
  const std::string manifest = render_k8s_job(o);
  const std::vector<YAML::Node> docs = YAML::LoadAll(manifest);
  REQUIRE(docs.size() == 2);

  const YAML::Node& cm = docs[0];
  CHECK(cm["apiVersion"].as<std::string>() == "v1");
  CHECK(cm["kind"].as<std::string>() == "ConfigMap");
  CHECK(cm["metadata"]["name"].as<std::string>() == "capsim-sweep-web-scenario");

  const YAML::Node& job = docs[1];
  CHECK(job["apiVersion"].as<std::string>() == "batch/v1");
  CHECK(job["kind"].as<std::string>() == "Job");
  CHECK(job["metadata"]["name"].as<std::string>() == "capsim-sweep-web");
  const YAML::Node spec = job["spec"];
  CHECK(spec["completionMode"].as<std::string>() == "Indexed");
  CHECK(spec["completions"].as<int>() == 4);
  CHECK(spec["parallelism"].as<int>() == 2);
  CHECK(spec["backoffLimit"].as<int>() == 3);
  CHECK(spec["podFailurePolicy"]["rules"][0]["action"].as<std::string>() == "FailJob");
  CHECK(spec["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"][0].as<int>() == 2);
  CHECK(spec["podFailurePolicy"]["rules"][1]["onPodConditions"][0]["type"].as<std::string>() == "DisruptionTarget");
  const YAML::Node pod = spec["template"]["spec"];
  CHECK(pod["restartPolicy"].as<std::string>() == "Never");
  REQUIRE(pod["containers"].IsSequence());
  REQUIRE(pod["containers"].size() == 1);
  const YAML::Node c = pod["containers"][0];
  CHECK(c["name"].as<std::string>() == "capsim");
  CHECK(c["image"].as<std::string>() == "registry.example.com/capsim:0.1.0");
  CHECK(c["command"][0].as<std::string>() == "capsim");
  CHECK(c["env"][0]["name"].as<std::string>() == "JOB_COMPLETION_INDEX");
  CHECK(c["env"][0]["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>()
        == "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  CHECK(c["resources"]["requests"]["cpu"].as<std::string>() == "2");
  CHECK(c["resources"]["requests"]["memory"].as<std::string>() == "3Gi");
  CHECK(c["resources"]["limits"]["memory"].as<std::string>() == "3Gi");
  CHECK(c["volumeMounts"][0]["mountPath"].as<std::string>() == "/scenario");
  CHECK(pod["volumes"][0]["configMap"]["name"].as<std::string>() == "capsim-sweep-web-scenario");

  // The pod of index 2 runs shard 2/4 of exactly this sweep.
  std::vector<std::string> args;
  for (const auto& a : c["args"]) {
    args.push_back(expand(a.as<std::string>(), {{"JOB_COMPLETION_INDEX", "2"}}));
  }
  const std::vector<std::string> expected_tail = {"--shard", "2/4", "--jobs", "2", "--progress", "never", "-o", "json"};
  REQUIRE(args.size() > expected_tail.size() + 2);
  CHECK(args[0] == "sweep");
  CHECK(args[1] == "/scenario/web.yaml");
  CHECK(std::vector<std::string>(args.end() - 8, args.end()) == expected_tail);
  // The sweep arguments survive YAML quoting and $(VAR) expansion unchanged.
  const std::vector<std::string> sweep_args(args.begin() + 2, args.end() - 8);
  CHECK(sweep_args == sweep_arguments(o.spec));
  CHECK(sweep_args == std::vector<std::string>{
                        "--set", "Scenario.spec.duration=2h",
                        "--set", "Deployment/web.metadata.annotations[note]=costs $(HOME) $5",
                        "--vary", "NodePool/default.spec.disruption.consolidateAfter=,5m,30m",
                        "--vary", "arch:NodePool/default.spec.template.spec.requirements[0].values=[amd64],[arm64, amd64]",
                        "--seeds", "5", "--seed", "42", "-e", "karpenter"});
  // ... and parse back into the same axes.
  CHECK(parse_axis(sweep_args[5]).values == o.spec.axes[0].values);
  CHECK(parse_axis(sweep_args[7]).values == o.spec.axes[1].values);
  CHECK(parse_axis(sweep_args[7]).name == "arch");
}

TEST_CASE("every file reaches the pod byte for byte at its path", "[sweep][k8s]")
{
  const K8sJobOptions o = sample_job();
  const std::vector<YAML::Node> docs = YAML::LoadAll(render_k8s_job(o));
  REQUIRE(docs.size() == 2);
  const YAML::Node items = docs[1]["spec"]["template"]["spec"]["volumes"][0]["configMap"]["items"];
  REQUIRE(items.size() == o.files.size());
  for (std::size_t i = 0; i < o.files.size(); ++i) {
    const auto& f = o.files[i];
    INFO("file " << f.path);
    CHECK(items[i]["path"].as<std::string>() == f.path);
    const std::string key = items[i]["key"].as<std::string>();
    // ConfigMap keys: [-._a-zA-Z0-9]+
    CHECK(key.find_first_not_of("-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == std::string::npos);
    if (docs[0]["data"][key]) {
      CHECK(docs[0]["data"][key].as<std::string>() == f.content);
    } else {
      REQUIRE(docs[0]["binaryData"][key]);
      CHECK(f.path == "binary.bin");
      CHECK(unbase64(docs[0]["binaryData"][key].as<std::string>()) == f.content);
    }
  }
  CHECK(items[1]["key"].as<std::string>() == "traces.web.csv");
  CHECK(items[13]["key"].as<std::string>() == "odd_name__1_.csv");
}

TEST_CASE("readable files are literal blocks in the manifest", "[sweep][k8s]")
{
  const std::string manifest = render_k8s_job(sample_job());
  CHECK_THAT(manifest, Catch::Contains("  \"web.yaml\": |\n    # A scenario\n    apiVersion: capsim/v1\n"));
  CHECK_THAT(manifest, Catch::Contains("    - path: traces/web.csv   # comment\n\n    ---\n"));
  CHECK_THAT(manifest, Catch::Contains("  \"no-final-newline.txt\": |-\n    line 1\n    line 2\n"));
  CHECK_THAT(manifest, Catch::Contains("  \"many-final-newlines.txt\": |+\n    a\n\n\n"));
  CHECK_THAT(manifest, Catch::Contains("  \"trailing-space.txt\": \"value   \\nnext\\n\"\n"));
  CHECK_THAT(manifest, Catch::Contains("  \"crlf.csv\": \"a,b\\r\\n1,2\\r\\n\"\n"));
  CHECK_THAT(manifest, Catch::Contains("  \"unicode.txt\": |\n    café — naïve ✓\n"));
}

TEST_CASE("a PVC makes each pod write its shard file there", "[sweep][k8s]")
{
  K8sJobOptions o = sample_job();
  o.pvc = "sweep-results";
  o.parallelism = 0;
  const std::vector<YAML::Node> docs = YAML::LoadAll(render_k8s_job(o));
  const YAML::Node pod = docs[1]["spec"]["template"]["spec"];
  CHECK(docs[1]["spec"]["parallelism"].as<int>() == 4); // 0 = every shard at once
  CHECK(pod["volumes"][1]["persistentVolumeClaim"]["claimName"].as<std::string>() == "sweep-results");
  CHECK(pod["containers"][0]["volumeMounts"][1]["mountPath"].as<std::string>() == "/results");
  const YAML::Node args = pod["containers"][0]["args"];
  CHECK(args[args.size() - 2].as<std::string>() == "--out");
  CHECK(expand(args[args.size() - 1].as<std::string>(), {{"JOB_COMPLETION_INDEX", "3"}})
        == "/results/capsim-sweep-web-shard-3.json");
}

TEST_CASE("Job names and ConfigMap limits", "[sweep][k8s]")
{
  CHECK(default_job_name("web-and-batch") == "capsim-sweep-web-and-batch");
  CHECK(default_job_name("Web & Batch!") == "capsim-sweep-web-batch");
  CHECK(default_job_name("") == "capsim-sweep");
  CHECK(default_job_name("___") == "capsim-sweep");
  CHECK(default_job_name(std::string(100, 'a')).size() == 52);
  CHECK_NOTHROW(check_job_name("capsim-sweep-web", "--k8s-name"));
  CHECK_NOTHROW(check_job_name(default_job_name("Web & Batch!"), "--k8s-name"));
  for (const std::string& bad : std::vector<std::string>{"", "Upper", "-lead", "trail-", "dots.in.name", std::string(64, 'a')}) {
    INFO(bad);
    CHECK_THROWS_AS(check_job_name(bad, "--k8s-name"), InputError);
  }
  K8sJobOptions o = sample_job();
  o.files.push_back({"big.csv", std::string(k_max_configmap_bytes, 'x')});
  CHECK_THROWS_WITH(render_k8s_job(o), Catch::Contains("more than a ConfigMap holds"));
}

TEST_CASE("yaml_quote escapes what YAML would otherwise change", "[sweep][k8s]")
{
  CHECK(yaml_quote("plain") == "\"plain\"");
  CHECK(yaml_quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(yaml_quote("tab\tnl\n") == "\"tab\\tnl\\n\"");
  CHECK(yaml_quote("\x01") == "\"\\u0001\"");
  CHECK(yaml_quote("\xe2\x80\xa8") == "\"\\u2028\""); // LINE SEPARATOR
  CHECK(yaml_quote("é") == "\"é\"");
  for (const std::string text : {"yes", "null", "~", "1e3", "- a", "{a: b}", "#x", "a: b", "  x  ", "\xc2\x85"}) {
    INFO(text);
    CHECK(YAML::Load("k: " + yaml_quote(text))["k"].as<std::string>() == text);
  }
}
