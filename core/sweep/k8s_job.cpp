#include "core/sweep/k8s_job.hpp"

#include "core/base/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

namespace capsim::sweep {

namespace {

// The code points of UTF-8 text, or nullopt when it is not valid UTF-8 (overlong forms,
// surrogates and values above U+10FFFF are invalid).
std::optional<std::vector<std::uint32_t>> decode_utf8(std::string_view text)
{
  std::vector<std::uint32_t> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::uint32_t cp = 0;
    std::size_t len = 0;
    std::uint32_t min = 0;
    if (b < 0x80) {
      cp = b;
      len = 1;
    } else if ((b & 0xE0U) == 0xC0U) {
      cp = b & 0x1FU;
      len = 2;
      min = 0x80;
    } else if ((b & 0xF0U) == 0xE0U) {
      cp = b & 0x0FU;
      len = 3;
      min = 0x800;
    } else if ((b & 0xF8U) == 0xF0U) {
      cp = b & 0x07U;
      len = 4;
      min = 0x10000;
    } else {
      return std::nullopt;
    }
    if (i + len > text.size()) {
      return std::nullopt;
    }
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0U) != 0x80U) {
        return std::nullopt;
      }
      cp = (cp << 6U) | (c & 0x3FU);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return std::nullopt;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

void append_utf8(std::string& out, std::uint32_t cp)
{
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0U | (cp >> 6U)));
    out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0U | (cp >> 12U)));
    out.push_back(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
    out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
  } else {
    out.push_back(static_cast<char>(0xF0U | (cp >> 18U)));
    out.push_back(static_cast<char>(0x80U | ((cp >> 12U) & 0x3FU)));
    out.push_back(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
    out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
  }
}

// YAML's printable set (c-printable) minus the BOM, which some readers strip.
bool printable(std::uint32_t cp)
{
  return cp == 0x09 || cp == 0x0A || (cp >= 0x20 && cp <= 0x7E) || cp == 0x85 || (cp >= 0xA0 && cp <= 0xD7FF)
         || (cp >= 0xE000 && cp <= 0xFFFD && cp != 0xFEFF) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

// Whether `text` survives a literal block scalar byte for byte: printable, no tabs or CR, no
// YAML line breaks other than \n, no trailing blanks, no blank-only lines, and a first line that
// does not start with a space (the block's indentation is detected from it).
bool block_ok(std::string_view text)
{
  const auto cps = decode_utf8(text);
  if (!cps || text.empty()) {
    return false;
  }
  for (const auto cp : *cps) {
    if (!printable(cp) || cp == 0x09 || cp == 0x85 || cp == 0x2028 || cp == 0x2029) {
      return false;
    }
  }
  bool first_content = true;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!line.empty()) {
      if (line.back() == ' ' || (first_content && line.front() == ' ')) {
        return false;
      }
      first_content = false;
    }
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return !first_content; // at least one non-empty line
}

// `text` as a literal block scalar at `indent` spaces, after the key (starts with " |").
std::string literal_block(std::string_view text, std::size_t indent)
{
  std::size_t trailing = 0;
  while (trailing < text.size() && text[text.size() - 1 - trailing] == '\n') {
    ++trailing;
  }
  std::string out = trailing == 0 ? " |-\n" : (trailing == 1 ? " |\n" : " |+\n");
  const std::string pad(indent, ' ');
  std::string_view body = text.substr(0, text.size() - std::min<std::size_t>(trailing, 1));
  std::size_t start = 0;
  while (true) {
    const auto end = body.find('\n', start);
    const std::string_view line = body.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out += line.empty() ? "\n" : pad + std::string(line) + "\n";
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return out;
}

std::string base64(std::string_view bytes)
{
  static constexpr char k_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16U;
    if (i + 1 < bytes.size()) {
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8U;
    }
    if (i + 2 < bytes.size()) {
      v |= static_cast<unsigned char>(bytes[i + 2]);
    }
    out.push_back(k_alphabet[(v >> 18U) & 0x3FU]);
    out.push_back(k_alphabet[(v >> 12U) & 0x3FU]);
    out.push_back(i + 1 < bytes.size() ? k_alphabet[(v >> 6U) & 0x3FU] : '=');
    out.push_back(i + 2 < bytes.size() ? k_alphabet[v & 0x3FU] : '=');
  }
  return out;
}

// A ConfigMap key for a relative path: characters outside [-._a-zA-Z0-9] become '_', '/'
// becomes '.'; made unique against `taken` with -2, -3, ...
std::string config_key(const std::string& path, std::set<std::string>& taken)
{
  std::string key;
  for (const char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                    || c == '.' || c == '_';
    key.push_back(c == '/' ? '.' : (ok ? c : '_'));
  }
  if (key.find_first_not_of('.') == std::string::npos) {
    key = "file" + key;
  }
  if (key.size() > 240) {
    key = key.substr(key.size() - 240);
  }
  std::string candidate = key;
  for (int i = 2; !taken.insert(candidate).second; ++i) {
    candidate = key + "-" + std::to_string(i);
  }
  return candidate;
}

// Kubernetes expands $(VAR) in command and args; "$$" stands for a literal '$'.
std::string escape_dollars(std::string_view text)
{
  std::string out;
  for (const char c : text) {
    out += c == '$' ? "$$" : std::string(1, c);
  }
  return out;
}

std::string join_values(const std::vector<std::string>& values)
{
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i > 0 ? "," : "") + values[i];
  }
  return out;
}

} // namespace

std::string yaml_quote(std::string_view text)
{
  std::string out = "\"";
  const auto cps = decode_utf8(text);
  std::vector<std::uint32_t> points;
  if (cps) {
    points = *cps;
  } else {
    for (const char c : text) { // not UTF-8: keep ASCII, replace the rest with U+FFFD
      const auto b = static_cast<unsigned char>(c);
      points.push_back(b < 0x80 ? b : 0xFFFDU);
    }
  }
  for (const auto cp : points) {
    switch (cp) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF
          || (cp >= 0xFFFE && cp <= 0xFFFF)) {
        out += fmt::format("\\u{:04X}", cp);
      } else {
        append_utf8(out, cp);
      }
    }
  }
  return out + "\"";
}

std::vector<std::string> sweep_arguments(const SweepSpec& spec)
{
  std::vector<std::string> out;
  for (const auto& s : spec.sets) {
    out.emplace_back("--set");
    out.push_back(s);
  }
  for (const auto& a : spec.axes) {
    out.emplace_back("--vary");
    out.push_back((a.named ? a.name + ":" : std::string()) + a.path + "=" + join_values(a.values));
  }
  out.emplace_back("--seeds");
  out.push_back(std::to_string(spec.seeds));
  if (spec.seed) {
    out.emplace_back("--seed");
    out.push_back(std::to_string(*spec.seed));
  }
  if (!spec.engine.empty()) {
    out.emplace_back("-e");
    out.push_back(spec.engine);
  }
  return out;
}

std::string default_job_name(std::string_view scenario_name)
{
  std::string tail;
  for (const char ch : scenario_name) {
    char c = ch;
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok) {
      tail.push_back(c);
    } else if (!tail.empty() && tail.back() != '-') {
      tail.push_back('-');
    }
  }
  std::string name = "capsim-sweep" + (tail.empty() ? std::string() : "-" + tail);
  if (name.size() > 52) {
    name.resize(52);
  }
  while (name.back() == '-') {
    name.pop_back();
  }
  return name;
}

void check_job_name(const std::string& name, const std::string& option)
{
  bool ok = !name.empty() && name.size() <= 63;
  for (std::size_t i = 0; ok && i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    ok = alnum || (c == '-' && i > 0 && i + 1 < name.size());
  }
  if (!ok) {
    throw InputError(SourceLocation{option + " " + name, 0, 0},
                     "a Job name must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', "
                     "starting and ending with a letter or digit");
  }
}

std::string render_k8s_job(const K8sJobOptions& o)
{
  check_job_name(o.name, "--k8s-name");
  CAPSIM_CHECK(o.shards >= 1 && !o.files.empty(), "render_k8s_job: shards >= 1 and the scenario file");
  const std::string config_map = o.name + "-scenario";
  const std::size_t parallelism = o.parallelism == 0 ? o.shards : std::min(o.parallelism, o.shards);

  // ConfigMap data, one key per file, mounted at its relative path through `items`.
  std::set<std::string> taken;
  std::vector<std::pair<std::string, std::string>> items; // key, path
  std::string data;
  std::string binary;
  std::size_t bytes = 0;
  for (const auto& f : o.files) {
    const std::string key = config_key(f.path, taken);
    items.emplace_back(key, f.path);
    if (!decode_utf8(f.content)) {
      const std::string encoded = base64(f.content);
      binary += "  " + yaml_quote(key) + ": " + encoded + "\n";
      bytes += key.size() + encoded.size();
    } else if (block_ok(f.content)) {
      data += "  " + yaml_quote(key) + ":" + literal_block(f.content, 4);
      bytes += key.size() + f.content.size();
    } else {
      data += "  " + yaml_quote(key) + ": " + yaml_quote(f.content) + "\n";
      bytes += key.size() + f.content.size();
    }
  }
  if (bytes > k_max_configmap_bytes) {
    throw InputError(SourceLocation{"--emit-k8s-job", 0, 0},
                     fmt::format("the scenario and its files take {} bytes, more than a ConfigMap holds ({} bytes); "
                                 "put them in the container image or a volume and run `capsim sweep --shard` there",
                                 bytes, k_max_configmap_bytes));
  }

  const std::string shard_arg = "$(JOB_COMPLETION_INDEX)/" + std::to_string(o.shards);
  std::vector<std::string> args{"sweep", "/scenario/" + escape_dollars(o.files.front().path)};
  for (const auto& a : sweep_arguments(o.spec)) {
    if (!decode_utf8(a)) {
      throw InputError(SourceLocation{"--emit-k8s-job", 0, 0}, "the argument '" + a + "' is not valid UTF-8");
    }
    args.push_back(escape_dollars(a));
  }
  for (const std::string& a : {std::string("--shard"), shard_arg, std::string("--jobs"), std::to_string(o.cpu),
                               std::string("--progress"), std::string("never"), std::string("-o"), std::string("json")}) {
    args.push_back(a);
  }
  if (!o.pvc.empty()) {
    args.emplace_back("--out");
    args.push_back("/results/" + o.name + "-shard-$(JOB_COMPLETION_INDEX).json");
  }

  const std::string labels = "    app.kubernetes.io/name: capsim\n    app.kubernetes.io/component: sweep\n"
                             "    capsim.io/sweep: "
                             + yaml_quote(o.name) + "\n";
  std::string out;
  out += fmt::format("# capsim sweep of {}: {} variant x seed runs in {} shards (Kubernetes Indexed Job).\n",
                     o.spec.scenario_file, o.spec.cell_count(), o.shards);
  out += "# kubectl apply -f THIS_FILE; when the Job completes, collect each index's JSON and run\n";
  out += "# `capsim sweep merge shard-*.json` (see docs/sweep.md).\n";
  out += "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + yaml_quote(config_map) + "\n  labels:\n" + labels;
  if (!data.empty()) {
    out += "data:\n" + data;
  }
  if (!binary.empty()) {
    out += "binaryData:\n" + binary;
  }
  out += "---\n";
  out += "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + yaml_quote(o.name) + "\n  labels:\n" + labels;
  out += "spec:\n";
  out += "  completionMode: Indexed\n";
  out += fmt::format("  completions: {}\n  parallelism: {}\n  backoffLimit: {}\n", o.shards, parallelism,
                     o.backoff_limit);
  out += "  podFailurePolicy:\n    rules:\n";
  out += "    - action: FailJob\n      onExitCodes:\n        containerName: capsim\n        operator: In\n"
         "        values: [2, 3]\n";
  out += "    - action: Ignore\n      onPodConditions:\n      - type: DisruptionTarget\n";
  out += "  template:\n    metadata:\n      labels:\n";
  out += "        app.kubernetes.io/name: capsim\n        app.kubernetes.io/component: sweep\n"
         "        capsim.io/sweep: "
         + yaml_quote(o.name) + "\n";
  out += "    spec:\n      restartPolicy: Never\n      containers:\n      - name: capsim\n";
  out += "        image: " + yaml_quote(o.image) + "\n";
  out += "        command: [\"capsim\"]\n        args:\n";
  for (const auto& a : args) {
    out += "        - " + yaml_quote(a) + "\n";
  }
  out += "        env:\n        - name: JOB_COMPLETION_INDEX\n          valueFrom:\n            fieldRef:\n"
         "              fieldPath: \"metadata.annotations['batch.kubernetes.io/job-completion-index']\"\n";
  out += "        resources:\n";
  out += "          requests:\n            cpu: " + yaml_quote(std::to_string(o.cpu)) + "\n            memory: "
         + yaml_quote(o.memory) + "\n";
  out += "          limits:\n            memory: " + yaml_quote(o.memory) + "\n";
  out += "        volumeMounts:\n        - name: scenario\n          mountPath: /scenario\n          readOnly: true\n";
  if (!o.pvc.empty()) {
    out += "        - name: results\n          mountPath: /results\n";
  }
  out += "      volumes:\n      - name: scenario\n        configMap:\n          name: " + yaml_quote(config_map)
         + "\n          items:\n";
  for (const auto& [key, path] : items) {
    out += "          - key: " + yaml_quote(key) + "\n            path: " + yaml_quote(path) + "\n";
  }
  if (!o.pvc.empty()) {
    out += "      - name: results\n        persistentVolumeClaim:\n          claimName: " + yaml_quote(o.pvc) + "\n";
  }
  return out;
}

} // namespace capsim::sweep
