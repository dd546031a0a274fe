#include "core/catalog/import.hpp"

#include "core/base/diagnostics.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

namespace capsim::catalog {

namespace {

using Json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Positions. nlohmann::json keeps no source positions, so a value named by its path
// (InstanceTypes[3].VCpuInfo.DefaultVCpus) is found again by scanning the (valid) text.

// One step of a path into a JSON document: an object key or an array index.
struct PathStep
{
  std::string key{};
  std::size_t index = 0;
  bool is_index = false;
};

using JsonPath = std::vector<PathStep>;

JsonPath with_key(JsonPath path, std::string_view key)
{
  path.push_back({.key = std::string(key)});
  return path;
}

JsonPath with_index(JsonPath path, std::size_t index)
{
  path.push_back({.index = index, .is_index = true});
  return path;
}

// "InstanceTypes[3].VCpuInfo.DefaultVCpus"; `prefix` names the enclosing string if any.
std::string path_text(const std::string& prefix, const JsonPath& path)
{
  std::string out = prefix;
  for (const auto& step : path) {
    if (step.is_index) {
      out += fmt::format("[{}]", step.index);
    } else {
      out += (out.empty() ? "" : ".") + step.key;
    }
  }
  return out.empty() ? "the document" : out;
}

std::size_t skip_ws(std::string_view text, std::size_t pos)
{
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) {
    ++pos;
  }
  return pos;
}

// `pos` at an opening quote; returns the position after the closing quote.
std::size_t skip_string(std::string_view text, std::size_t pos)
{
  ++pos;
  while (pos < text.size() && text[pos] != '"') {
    pos += text[pos] == '\\' ? 2 : 1;
  }
  return std::min(pos + 1, text.size());
}

// `pos` at the first character of a value; returns the position after it.
std::size_t skip_value(std::string_view text, std::size_t pos)
{
  if (pos >= text.size()) {
    return pos;
  }
  if (text[pos] == '"') {
    return skip_string(text, pos);
  }
  if (text[pos] == '{' || text[pos] == '[') {
    int depth = 0;
    while (pos < text.size()) {
      const char c = text[pos];
      if (c == '"') {
        pos = skip_string(text, pos);
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) {
          return pos + 1;
        }
      }
      ++pos;
    }
    return pos;
  }
  while (pos < text.size() && std::string_view(",]} \t\r\n").find(text[pos]) == std::string_view::npos) {
    ++pos;
  }
  return pos;
}

// The decoded text of the string literal text[begin, end) (quotes included).
std::string decode_string(std::string_view literal)
{
  if (literal.find('\\') == std::string_view::npos) {
    return std::string(literal.substr(1, literal.size() >= 2 ? literal.size() - 2 : 0));
  }
  try {
    return Json::parse(literal).get<std::string>();
  } catch (const Json::exception&) {
    return {};
  }
}

// Position of the value of member `key` of the object at `pos`, or npos.
std::size_t find_member(std::string_view text, std::size_t pos, std::string_view key)
{
  pos = skip_ws(text, pos + 1);
  while (pos < text.size() && text[pos] == '"') {
    const std::size_t key_end = skip_string(text, pos);
    const std::string name = decode_string(text.substr(pos, key_end - pos));
    pos = skip_ws(text, key_end);
    if (pos >= text.size() || text[pos] != ':') {
      return std::string_view::npos;
    }
    pos = skip_ws(text, pos + 1);
    if (name == key) {
      return pos;
    }
    pos = skip_ws(text, skip_value(text, pos));
    if (pos >= text.size() || text[pos] != ',') {
      return std::string_view::npos;
    }
    pos = skip_ws(text, pos + 1);
  }
  return std::string_view::npos;
}

// Position of element `index` of the array at `pos`, or npos.
std::size_t find_element(std::string_view text, std::size_t pos, std::size_t index)
{
  pos = skip_ws(text, pos + 1);
  if (pos >= text.size() || text[pos] == ']') {
    return std::string_view::npos;
  }
  for (std::size_t i = 0; i < index; ++i) {
    pos = skip_ws(text, skip_value(text, pos));
    if (pos >= text.size() || text[pos] != ',') {
      return std::string_view::npos;
    }
    pos = skip_ws(text, pos + 1);
  }
  return pos;
}

// Byte offset of the value at `path` in the JSON `text` (of the deepest part found).
std::size_t locate(std::string_view text, const JsonPath& path)
{
  std::size_t pos = skip_ws(text, 0);
  for (const auto& step : path) {
    if (pos >= text.size() || text[pos] != (step.is_index ? '[' : '{')) {
      break;
    }
    const std::size_t next = step.is_index ? find_element(text, pos, step.index) : find_member(text, pos, step.key);
    if (next == std::string_view::npos) {
      break;
    }
    pos = next;
  }
  return std::min(pos, text.size());
}

// Raw offset in `text` of byte `decoded` of the decoded string literal whose opening quote is
// at `quote`: maps a position inside a PriceList product back to the file.
std::size_t raw_offset(std::string_view text, std::size_t quote, std::size_t decoded)
{
  std::size_t pos = quote + 1;
  std::size_t d = 0;
  const auto hex4 = [&](std::size_t at) {
    unsigned v = 0;
    const auto end = std::min(at + 4, text.size());
    std::from_chars(text.data() + std::min(at, text.size()), text.data() + end, v, 16);
    return v;
  };
  while (pos < text.size() && text[pos] != '"' && d < decoded) {
    if (text[pos] != '\\' || pos + 1 >= text.size()) {
      ++d;
      ++pos;
      continue;
    }
    if (text[pos + 1] != 'u') {
      ++d;
      pos += 2;
      continue;
    }
    const unsigned code = hex4(pos + 2);
    if (code >= 0xD800 && code < 0xDC00 && text.substr(pos + 6, 2) == "\\u") {
      d += 4; // a surrogate pair is one 4-byte UTF-8 character
      pos += 12;
    } else {
      d += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
      pos += 6;
    }
  }
  return std::min(pos, text.size());
}

// A JSON document: a saved file, or a JSON string inside one (a PriceList product).
struct JsonDoc
{
  std::string file;
  std::string_view text;     // the file's text, or the decoded string
  const JsonDoc* outer = nullptr; // the document holding the string
  JsonPath outer_path{};     // where the string is in `outer`
  std::string prefix{};      // path_text of the string, for messages

  [[nodiscard]] SourceLocation at_offset(std::size_t offset) const
  {
    if (outer == nullptr) {
      return text_location(file, text, offset);
    }
    return outer->at_offset(raw_offset(outer->text, locate(outer->text, outer_path), offset));
  }

  [[nodiscard]] SourceLocation at(const JsonPath& path) const { return at_offset(locate(text, path)); }
};

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 4: " prefix (we give our own position).
std::string parse_error_message(const Json::parse_error& e)
{
  std::string what = e.what();
  if (const auto p = what.find("parse error"); p != std::string::npos) {
    if (const auto colon = what.find(": ", p); colon != std::string::npos) {
      return what.substr(colon + 2);
    }
  }
  return what;
}

// Parses `doc.text`; on a syntax error reports it at its FILE:LINE:COL and returns nullopt.
std::optional<Json> parse_json(const JsonDoc& doc, Diagnostics& diags, std::string_view expected)
{
  try {
    return Json::parse(doc.text);
  } catch (const Json::parse_error& e) {
    const std::size_t offset = e.byte == 0 ? 0 : std::min<std::size_t>(e.byte - 1, doc.text.size());
    diags.error(doc.at_offset(offset), fmt::format("invalid JSON{}: {} (expected {})",
                                                   doc.prefix.empty() ? "" : " in " + doc.prefix,
                                                   parse_error_message(e), expected));
    return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------------
// Typed reading with errors at the value's position.

// A value of a document and its path; json is nullptr when the member is absent.
struct Node
{
  const Json* json = nullptr;
  JsonPath path;

  [[nodiscard]] bool present() const { return json != nullptr && !json->is_null(); }
};

Node child(const Node& n, std::string_view key)
{
  Node c{nullptr, with_key(n.path, key)};
  if (n.json != nullptr && n.json->is_object()) {
    if (const auto it = n.json->find(key); it != n.json->end()) {
      c.json = &*it;
    }
  }
  return c;
}

Node element(const Node& n, std::size_t index)
{
  Node c{nullptr, with_index(n.path, index)};
  if (n.json != nullptr && n.json->is_array() && index < n.json->size()) {
    c.json = &(*n.json)[index];
  }
  return c;
}

// Reads values of one document, reporting wrong types and missing required members.
class Reader
{
public:
  Reader(const JsonDoc& doc, Diagnostics& diags) : m_doc(doc), m_diags(diags) {}

  void error(const JsonPath& path, const std::string& message) const { m_diags.error(m_doc.at(path), message); }

  [[nodiscard]] std::string name(const Node& n) const { return path_text(m_doc.prefix, n.path); }

  // True when `n` is present and of the kind `ok` accepts; else reports (absent: only when
  // required, at the enclosing value) and returns false.
  template <typename Pred>
  bool check(const Node& n, bool required, Pred ok, std::string_view expected) const
  {
    if (!n.present()) {
      if (required) {
        JsonPath parent = n.path;
        if (!parent.empty()) {
          parent.pop_back();
        }
        error(parent, fmt::format("missing {} (expected {})", name(n), expected));
      }
      return false;
    }
    if (!ok(*n.json)) {
      error(n.path, fmt::format("{} is {} {} (expected {})", name(n), n.json->is_array() ? "an" : "a",
                                n.json->type_name(), expected));
      return false;
    }
    return true;
  }

  std::optional<std::int64_t> integer(const Node& n, bool required, std::int64_t min, std::int64_t max) const
  {
    if (!check(n, required, [](const Json& j) { return j.is_number_integer(); }, "an integer")) {
      return std::nullopt;
    }
    if (n.json->is_number_unsigned() && n.json->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      error(n.path, fmt::format("{} is out of range (expected {}..{})", name(n), min, max));
      return std::nullopt;
    }
    const auto v = n.json->get<std::int64_t>();
    if (v < min || v > max) {
      error(n.path, fmt::format("{} {} is out of range (expected {}..{})", name(n), v, min, max));
      return std::nullopt;
    }
    return v;
  }

  std::optional<double> number(const Node& n) const
  {
    if (!check(n, false, [](const Json& j) { return j.is_number(); }, "a number")) {
      return std::nullopt;
    }
    const auto v = n.json->get<double>();
    if (!std::isfinite(v) || v < 0) {
      error(n.path, fmt::format("{} is not a valid number (expected a number >= 0)", name(n)));
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::string> string(const Node& n, bool required) const
  {
    if (!check(n, required, [](const Json& j) { return j.is_string(); }, "a string")) {
      return std::nullopt;
    }
    return n.json->get<std::string>();
  }

  bool boolean(const Node& n) const
  {
    return check(n, false, [](const Json& j) { return j.is_boolean(); }, "true or false") && n.json->get<bool>();
  }

  bool array(const Node& n, bool required) const
  {
    return check(n, required, [](const Json& j) { return j.is_array(); }, "an array");
  }

  bool object(const Node& n, bool required) const
  {
    return check(n, required, [](const Json& j) { return j.is_object(); }, "an object");
  }

  // A decimal written as a string ("0.1920000000", "0.064100"); reports malformed ones.
  std::optional<double> decimal_string(const Node& n, bool required) const
  {
    const auto s = string(n, required);
    if (!s) {
      return std::nullopt;
    }
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
    if (s->empty() || ec != std::errc() || ptr != s->data() + s->size() || !std::isfinite(v) || v < 0) {
      error(n.path, fmt::format("{} '{}' is not a price (expected a decimal number as a string, e.g. \"0.192\")",
                                name(n), *s));
      return std::nullopt;
    }
    return v;
  }

private:
  const JsonDoc& m_doc;
  Diagnostics& m_diags;
};

// ---------------------------------------------------------------------------------------------
// What the three outputs contribute.

// Karpenter's lowerKabobCase: "Radeon Pro V520" -> "radeon-pro-v520".
std::string lower_kabob(std::string s)
{
  for (auto& c : s) {
    c = c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

// "25 Gigabit" -> 25000, "4x 100 Gigabit" -> 400000; "Up to 10 Gigabit", "High" -> nullopt.
std::optional<std::int64_t> fixed_network_performance_mbps(std::string_view s)
{
  double cards = 1;
  if (const auto x = s.find("x "); x != std::string_view::npos) {
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + x, cards);
    if (ec != std::errc() || ptr != s.data() + x) {
      return std::nullopt;
    }
    s.remove_prefix(x + 2);
  }
  const auto space = s.find(' ');
  if (space == std::string_view::npos || s.substr(space) != " Gigabit") {
    return std::nullopt;
  }
  double gbps = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + space, gbps);
  if (ec != std::errc() || ptr != s.data() + space) {
    return std::nullopt;
  }
  return std::llround(cards * gbps * 1000);
}

struct PriceEntry
{
  double usd_per_hour = 0;
  bool metal = false; // from the dedicated "Compute Instance (bare metal)" products
};

struct SpotEntry
{
  std::int64_t timestamp_us = 0;
  double price = 0;
};

// Everything read from the files, before the catalog is assembled.
struct Collected
{
  std::map<std::string, AwsInstanceSpec> types;
  std::set<std::string> unsupported_arch;
  std::map<std::string, std::map<std::string, PriceEntry>> prices; // region -> type -> price
  std::set<std::string> price_conflicts;                            // "region/type"
  std::set<std::string> unknown_locations;
  std::map<std::pair<std::string, std::string>, SpotEntry> spot; // (zone, type) -> latest
  std::map<std::string, std::string> az_ids;                      // zone -> AZ ID
  std::set<std::string> nonstandard_zones;
  std::size_t type_files = 0;
  std::size_t price_files = 0;
  std::size_t spot_files = 0;
  std::size_t spot_records = 0;
};

void read_instance_type(const Reader& r, const Node& it, const ImportOptions& options, Collected& out)
{
  const auto name = r.string(child(it, "InstanceType"), true);
  if (!name) {
    return;
  }
  if (name->empty()) {
    r.error(child(it, "InstanceType").path, fmt::format("empty {} (expected a name such as m5.large)",
                                                        r.name(child(it, "InstanceType"))));
    return;
  }
  const Node processor = child(it, "ProcessorInfo");
  const Node archs = child(processor, "SupportedArchitectures");
  const auto vcpu = r.integer(child(child(it, "VCpuInfo"), "DefaultVCpus"), true, 1, std::int64_t{1} << 20);
  const auto memory = r.integer(child(child(it, "MemoryInfo"), "SizeInMiB"), true, 1, std::int64_t{1} << 40);
  const bool has_archs = r.array(archs, true);
  if (!vcpu || !memory || !has_archs) {
    return;
  }
  AwsInstanceSpec s;
  s.name = *name;
  s.vcpu = *vcpu;
  s.memory_mib = *memory;
  // Karpenter's getArchitecture: the first of x86_64 / arm64 in the list (t2: i386, x86_64).
  for (std::size_t i = 0; i < archs.json->size() && s.arch.empty(); ++i) {
    const auto a = r.string(element(archs, i), true);
    if (a == "x86_64") {
      s.arch = "amd64";
    } else if (a == "arm64") {
      s.arch = "arm64";
    }
  }
  if (s.arch.empty()) {
    out.unsupported_arch.insert(s.name);
    return;
  }
  if (processor.present()) {
    if (const auto m = r.string(child(processor, "Manufacturer"), false)) {
      s.cpu_manufacturer = lower_kabob(*m);
    }
    // As Karpenter: GHz x 1000 rounded, 0 when EC2 does not say.
    s.cpu_sustained_clock_mhz = std::llround(r.number(child(processor, "SustainedClockSpeedInGhz")).value_or(0) * 1000);
  }
  s.hypervisor = r.string(child(it, "Hypervisor"), false).value_or("");
  s.bare_metal = r.boolean(child(it, "BareMetal"));
  s.burstable = r.boolean(child(it, "BurstablePerformanceSupported"));

  // GPUs: labels when there is exactly one kind; device resources by maker.
  const Node gpus = child(child(it, "GpuInfo"), "Gpus");
  if (r.array(gpus, false)) {
    for (std::size_t i = 0; i < gpus.json->size(); ++i) {
      const Node g = element(gpus, i);
      const auto maker = r.string(child(g, "Manufacturer"), true).value_or("");
      const auto count = r.integer(child(g, "Count"), true, 0, 1 << 20).value_or(0);
      if (maker == "NVIDIA") {
        s.nvidia_gpu += count;
      } else if (maker == "AMD") {
        s.amd_gpu += count;
      }
      if (gpus.json->size() == 1) {
        s.gpu_name = lower_kabob(r.string(child(g, "Name"), true).value_or(""));
        s.gpu_manufacturer = lower_kabob(maker);
        s.gpu_count = count;
        s.gpu_memory_mib = r.integer(child(child(g, "MemoryInfo"), "SizeInMiB"), false, 0, std::int64_t{1} << 40);
      }
    }
  }
  // Neuron devices (Inferentia, Trainium); else the older inference accelerators.
  const Node neuron = child(child(it, "NeuronInfo"), "NeuronDevices");
  if (r.array(neuron, false) && !neuron.json->empty()) {
    for (std::size_t i = 0; i < neuron.json->size(); ++i) {
      s.neuron += r.integer(child(element(neuron, i), "Count"), true, 0, 1 << 20).value_or(0);
    }
    const Node first = element(neuron, 0);
    const auto count = r.integer(child(first, "Count"), true, 0, 1 << 20).value_or(0);
    s.neuroncore = count * r.integer(child(child(first, "CoreInfo"), "Count"), false, 0, 1 << 20).value_or(0);
    if (neuron.json->size() == 1) {
      s.accelerator_name = lower_kabob(r.string(child(first, "Name"), true).value_or(""));
      s.accelerator_manufacturer = "aws";
      s.accelerator_count = count;
    }
  } else {
    const Node accs = child(child(it, "InferenceAcceleratorInfo"), "Accelerators");
    if (r.array(accs, false) && accs.json->size() == 1) {
      const Node a = element(accs, 0);
      s.accelerator_name = lower_kabob(r.string(child(a, "Name"), true).value_or(""));
      s.accelerator_manufacturer = lower_kabob(r.string(child(a, "Manufacturer"), false).value_or(""));
      s.accelerator_count = r.integer(child(a, "Count"), true, 0, 1 << 20).value_or(0);
    }
  }
  // Local NVMe instance storage (GB as EC2 reports it, the label's value).
  const Node storage = child(it, "InstanceStorageInfo");
  if (storage.present() && r.string(child(storage, "NvmeSupport"), false).value_or("") != "unsupported") {
    s.local_nvme_gib = r.integer(child(storage, "TotalSizeInGB"), false, 0, std::int64_t{1} << 40);
  }
  const Node ebs = child(it, "EbsInfo");
  if (r.string(child(ebs, "EbsOptimizedSupport"), false).value_or("") == "default") {
    s.ebs_bandwidth_mbps =
        r.integer(child(child(ebs, "EbsOptimizedInfo"), "MaximumBandwidthInMbps"), false, 0, std::int64_t{1} << 40);
  }

  // Network: ENI limits of the default card (the VPC CNI uses only that card), bandwidth.
  const Node net = child(it, "NetworkInfo");
  s.encryption_in_transit = r.boolean(child(net, "EncryptionInTransitSupported"));
  s.efa = r.integer(child(child(net, "EfaInfo"), "MaximumEfaInterfaces"), false, 0, 1 << 20).value_or(0);
  s.ipv4_per_eni = r.integer(child(net, "Ipv4AddressesPerInterface"), false, 1, 1 << 20);
  const Node cards = child(net, "NetworkCards");
  const auto default_card = r.integer(child(net, "DefaultNetworkCardIndex"), false, 0, 1 << 20);
  std::optional<double> baseline_gbps;
  if (r.array(cards, false) && default_card && static_cast<std::size_t>(*default_card) < cards.json->size()) {
    const Node card = element(cards, static_cast<std::size_t>(*default_card));
    s.max_enis_default_card = r.integer(child(card, "MaximumNetworkInterfaces"), false, 0, 1 << 20);
    baseline_gbps = r.number(child(card, "BaselineBandwidthInGbps"));
  } else if (r.integer(child(net, "MaximumNetworkCards"), false, 0, 1 << 20).value_or(1) <= 1) {
    // One card: the instance-wide limit is the card's.
    s.max_enis_default_card = r.integer(child(net, "MaximumNetworkInterfaces"), false, 0, 1 << 20);
  }
  const AwsInstanceSpec* ref = options.reference == nullptr ? nullptr : options.reference->find(s.name);
  if (baseline_gbps) {
    s.network_bandwidth_mbps = std::llround(*baseline_gbps * 1000);
  } else if (ref != nullptr && ref->network_bandwidth_mbps) {
    s.network_bandwidth_mbps = ref->network_bandwidth_mbps;
  } else if (const auto perf = r.string(child(net, "NetworkPerformance"), false)) {
    s.network_bandwidth_mbps = fixed_network_performance_mbps(*perf);
  }
  if (s.max_enis_default_card && s.ipv4_per_eni) {
    s.max_pods_table = aws_eni_limited_pods(*s.max_enis_default_card, *s.ipv4_per_eni);
  } else if (ref != nullptr) {
    s.max_pods_table = ref->max_pods_table;
  }
  s.pod_eni = ref != nullptr ? ref->pod_eni : 0;
  derive_name_parts(s);
  s.capability_flex = s.family.find("-flex") != std::string::npos;
  out.types.emplace(s.name, std::move(s)); // the first description of a type wins
}

// Region names of the Price List `location` attribute, for products without regionCode.
const std::map<std::string, std::string, std::less<>> k_location_regions = {
    {"AWS GovCloud (US-East)", "us-gov-east-1"},
    {"AWS GovCloud (US-West)", "us-gov-west-1"},
    {"Africa (Cape Town)", "af-south-1"},
    {"Asia Pacific (Hong Kong)", "ap-east-1"},
    {"Asia Pacific (Hyderabad)", "ap-south-2"},
    {"Asia Pacific (Jakarta)", "ap-southeast-3"},
    {"Asia Pacific (Malaysia)", "ap-southeast-5"},
    {"Asia Pacific (Melbourne)", "ap-southeast-4"},
    {"Asia Pacific (Mumbai)", "ap-south-1"},
    {"Asia Pacific (Osaka)", "ap-northeast-3"},
    {"Asia Pacific (Seoul)", "ap-northeast-2"},
    {"Asia Pacific (Singapore)", "ap-southeast-1"},
    {"Asia Pacific (Sydney)", "ap-southeast-2"},
    {"Asia Pacific (Thailand)", "ap-southeast-7"},
    {"Asia Pacific (Tokyo)", "ap-northeast-1"},
    {"Canada (Central)", "ca-central-1"},
    {"Canada West (Calgary)", "ca-west-1"},
    {"EU (Frankfurt)", "eu-central-1"},
    {"EU (Ireland)", "eu-west-1"},
    {"EU (London)", "eu-west-2"},
    {"EU (Milan)", "eu-south-1"},
    {"EU (Paris)", "eu-west-3"},
    {"EU (Spain)", "eu-south-2"},
    {"EU (Stockholm)", "eu-north-1"},
    {"EU (Zurich)", "eu-central-2"},
    {"Israel (Tel Aviv)", "il-central-1"},
    {"Mexico (Central)", "mx-central-1"},
    {"Middle East (Bahrain)", "me-south-1"},
    {"Middle East (UAE)", "me-central-1"},
    {"South America (Sao Paulo)", "sa-east-1"},
    {"US East (N. Virginia)", "us-east-1"},
    {"US East (Ohio)", "us-east-2"},
    {"US West (N. California)", "us-west-1"},
    {"US West (Oregon)", "us-west-2"},
};

// One PriceList product (a JSON string). Keeps the on-demand Linux price of the products
// Karpenter's pricing provider asks for; everything else is skipped silently.
void read_price_product(const JsonDoc& outer, const Reader& outer_reader, const Node& item, Diagnostics& diags,
                        Collected& out)
{
  if (!outer_reader.string(item, true)) {
    return;
  }
  const JsonDoc doc{.file = outer.file,
                    .text = item.json->get_ref<const std::string&>(),
                    .outer = &outer,
                    .outer_path = item.path,
                    .prefix = path_text("", item.path)};
  const auto product = parse_json(doc, diags, "one product of the AWS Price List as a JSON object");
  if (!product) {
    return;
  }
  const Reader r(doc, diags);
  const Node root{&*product, {}};
  if (!r.object(root, true)) {
    return;
  }
  const Node attrs = child(child(root, "product"), "attributes");
  const auto attr = [&](std::string_view key) { return r.string(child(attrs, key), false).value_or(""); };
  const std::string type = attr("instanceType");
  if (type.empty()) {
    return; // not an instance (EBS volume, data transfer, ...)
  }
  const std::string family = r.string(child(child(root, "product"), "productFamily"), false).value_or("");
  const std::string tenancy = attr("tenancy");
  const bool shared = tenancy == "Shared" && family == "Compute Instance";
  const bool metal = tenancy == "Dedicated" && family == "Compute Instance (bare metal)";
  const std::string market = attr("marketoption");
  const std::string location_type = attr("locationType");
  if ((!shared && !metal) || attr("operatingSystem") != "Linux" || attr("preInstalledSw") != "NA"
      || attr("capacitystatus") != "Used" || (!market.empty() && market != "OnDemand")
      || (!location_type.empty() && location_type != "AWS Region")) {
    return;
  }
  std::string region = attr("regionCode");
  if (region.empty()) {
    const std::string location = attr("location");
    const auto it = k_location_regions.find(location);
    if (it == k_location_regions.end()) {
      out.unknown_locations.insert(location.empty() ? "(none)" : location);
      return;
    }
    region = it->second;
  }
  // The last non-zero USD price of the on-demand terms (terms and dimensions in key order).
  std::optional<double> price;
  const Node terms = child(child(root, "terms"), "OnDemand");
  if (!r.object(terms, false)) {
    return;
  }
  for (const auto& [term_key, term] : terms.json->items()) {
    const Node dims = child(child(terms, term_key), "priceDimensions");
    if (!r.object(dims, false)) {
      continue;
    }
    for (const auto& [dim_key, dim] : dims.json->items()) {
      const auto usd = r.decimal_string(child(child(child(dims, dim_key), "pricePerUnit"), "USD"), false);
      if (usd && *usd > 0) {
        price = usd;
      }
    }
  }
  if (!price) {
    return;
  }
  auto& slot = out.prices[region];
  const auto [it, fresh] = slot.emplace(type, PriceEntry{*price, metal});
  if (fresh) {
    return;
  }
  // Karpenter merges the bare-metal prices over the shared ones; otherwise the last page wins.
  if (it->second.metal && !metal) {
    return;
  }
  if (it->second.metal == metal && it->second.usd_per_hour != *price) {
    out.price_conflicts.insert(region + "/" + type);
  }
  it->second = PriceEntry{*price, metal};
}

// The region of an availability zone name: the parts up to the first one starting with a
// digit, cut after its digits ("us-east-1a" -> us-east-1, "us-gov-west-1b" -> us-gov-west-1,
// "us-west-2-lax-1a" -> us-west-2). Empty when there is none.
std::string zone_region(std::string_view zone)
{
  std::size_t start = 0;
  while (start < zone.size()) {
    const auto dash = zone.find('-', start);
    const auto end = dash == std::string_view::npos ? zone.size() : dash;
    if (start < end && std::isdigit(static_cast<unsigned char>(zone[start])) != 0) {
      std::size_t k = start;
      while (k < end && std::isdigit(static_cast<unsigned char>(zone[k])) != 0) {
        ++k;
      }
      return start == 0 ? std::string() : std::string(zone.substr(0, k));
    }
    start = end + 1;
  }
  return {};
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d)
{
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// ISO 8601 as the AWS CLI prints it ("2024-05-01T12:00:00+00:00", v1: "...T12:00:00.000Z")
// -> microseconds since the epoch (UTC).
std::optional<std::int64_t> parse_timestamp(std::string_view s)
{
  const auto num = [&](std::size_t at, std::size_t len) -> std::optional<int> {
    int v = 0;
    if (at + len > s.size()) {
      return std::nullopt;
    }
    const auto [ptr, ec] = std::from_chars(s.data() + at, s.data() + at + len, v);
    if (ec != std::errc() || ptr != s.data() + at + len) {
      return std::nullopt;
    }
    return v;
  };
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  const auto y = num(0, 4);
  const auto mo = num(5, 2);
  const auto d = num(8, 2);
  const auto h = num(11, 2);
  const auto mi = num(14, 2);
  const auto se = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !se || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59
      || *se > 60) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    std::int64_t scale = 100000;
    ++pos;
    const std::size_t digits_start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) != 0) {
      micros += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == digits_start) {
      return std::nullopt;
    }
  }
  std::int64_t offset_s = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos] == '-' ? -1 : 1;
    const auto oh = num(pos + 1, 2);
    const bool colon = pos + 3 < s.size() && s[pos + 3] == ':';
    const auto om = num(pos + (colon ? 4 : 3), 2);
    if (!oh || !om) {
      return std::nullopt;
    }
    offset_s = sign * (*oh * 3600 + *om * 60);
    pos += colon ? 6 : 5;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) {
    return std::nullopt;
  }
  const std::int64_t seconds = days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d)) * 86400
                               + *h * 3600 + *mi * 60 + *se - offset_s;
  return seconds * 1'000'000 + micros;
}

void read_spot_record(const Reader& r, const Node& rec, Collected& out)
{
  if (!r.object(rec, true)) {
    return;
  }
  const auto zone = r.string(child(rec, "AvailabilityZone"), true);
  const auto type = r.string(child(rec, "InstanceType"), true);
  const auto description = r.string(child(rec, "ProductDescription"), true);
  const auto price = r.decimal_string(child(rec, "SpotPrice"), true);
  const Node ts_node = child(rec, "Timestamp");
  const auto ts_text = r.string(ts_node, true);
  if (!zone || !type || !description || !price || !ts_text) {
    return;
  }
  const auto ts = parse_timestamp(*ts_text);
  if (!ts) {
    r.error(ts_node.path, fmt::format("{} '{}' is not a timestamp (expected ISO 8601 as the AWS CLI prints it, "
                                      "e.g. \"2024-05-01T12:00:00+00:00\")",
                                      r.name(ts_node), *ts_text));
    return;
  }
  // The Linux spot prices Karpenter's pricing provider asks for.
  if (*description != "Linux/UNIX" && *description != "Linux/UNIX (Amazon VPC)") {
    return;
  }
  ++out.spot_records;
  const std::string region = zone_region(*zone);
  // Only the region's own AZs (<region><letter>): capsim offers every type in every zone of
  // a region, which Local and Wavelength Zones are not.
  if (region.empty() || zone->size() != region.size() + 1
      || std::islower(static_cast<unsigned char>(zone->back())) == 0) {
    out.nonstandard_zones.insert(*zone);
    return;
  }
  if (const auto az_id = r.string(child(rec, "AvailabilityZoneId"), false)) {
    out.az_ids.emplace(*zone, *az_id);
  }
  auto [it, fresh] = out.spot.emplace(std::pair(*zone, *type), SpotEntry{*ts, *price});
  if (!fresh && *ts >= it->second.timestamp_us) {
    it->second = SpotEntry{*ts, *price}; // later records win ties
  }
}

// Reads one saved output into `out`.
void read_file(const AwsJsonFile& file, const ImportOptions& options, Diagnostics& diags, Collected& out)
{
  const JsonDoc doc{.file = file.path, .text = file.text};
  const auto json = parse_json(doc, diags, "the JSON output of an AWS CLI command");
  if (!json) {
    return;
  }
  const Reader r(doc, diags);
  const Node root{&*json, {}};
  const auto kind = [&](std::string_view key) { return json->is_object() && json->contains(key); };
  if (kind("InstanceTypes")) {
    ++out.type_files;
    const Node list = child(root, "InstanceTypes");
    if (r.array(list, true)) {
      for (std::size_t i = 0; i < list.json->size(); ++i) {
        const Node it = element(list, i);
        if (r.object(it, true)) {
          read_instance_type(r, it, options, out);
        }
      }
    }
  } else if (kind("SpotPriceHistory")) {
    ++out.spot_files;
    const Node list = child(root, "SpotPriceHistory");
    if (r.array(list, true)) {
      for (std::size_t i = 0; i < list.json->size(); ++i) {
        read_spot_record(r, element(list, i), out);
      }
    }
  } else if (kind("PriceList")) {
    ++out.price_files;
    const Node list = child(root, "PriceList");
    if (r.array(list, true)) {
      for (std::size_t i = 0; i < list.json->size(); ++i) {
        read_price_product(doc, r, element(list, i), diags, out);
      }
    }
  } else {
    r.error({}, "not an AWS CLI output capsim can import (expected the JSON printed by `aws ec2 "
                "describe-instance-types` (InstanceTypes), `aws ec2 describe-spot-price-history` "
                "(SpotPriceHistory) or `aws pricing get-products` (PriceList))");
  }
}

// ---------------------------------------------------------------------------------------------
// Writing the catalog files.

std::string csv_cell(const std::string& s)
{
  if (s.find_first_of(",\"\n\r") == std::string::npos) {
    return s;
  }
  std::string q = "\"";
  for (const char c : s) {
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return q + "\"";
}

void csv_line(std::string& out, const std::vector<std::string>& cells)
{
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out += (i > 0 ? "," : "") + csv_cell(cells[i]);
  }
  out += '\n';
}

std::string opt_text(const std::optional<std::int64_t>& v)
{
  return v ? std::to_string(*v) : std::string();
}

std::string bool_text(bool b)
{
  return b ? "true" : "false";
}

// A price as the shortest text that reads back as the same double ("0.192").
std::string price_text(double v)
{
  return fmt::format("{}", v);
}

std::string instance_types_csv(const std::map<std::string, AwsInstanceSpec>& types)
{
  std::string out;
  csv_line(out, {"instance_type",
                 "family",
                 "category",
                 "generation",
                 "size",
                 "vcpu",
                 "memory_mib",
                 "arch",
                 "cpu_manufacturer",
                 "cpu_sustained_clock_mhz",
                 "hypervisor",
                 "bare_metal",
                 "burstable",
                 "capability_flex",
                 "gpu_count",
                 "gpu_name",
                 "gpu_manufacturer",
                 "gpu_memory_mib",
                 "accelerator_count",
                 "accelerator_name",
                 "accelerator_manufacturer",
                 "local_nvme_gib",
                 "network_bandwidth_mbps",
                 "ebs_bandwidth_mbps",
                 "encryption_in_transit",
                 "efa_count",
                 "nvidia_gpu_resource",
                 "amd_gpu_resource",
                 "neuron_resource",
                 "neuroncore_resource",
                 "max_enis_default_card",
                 "ipv4_per_eni",
                 "max_pods_eni",
                 "branch_enis_pod_eni"});
  for (const auto& [name, s] : types) {
    csv_line(out, {s.name,
                   s.family,
                   s.category,
                   opt_text(s.generation),
                   s.size,
                   std::to_string(s.vcpu),
                   std::to_string(s.memory_mib),
                   s.arch,
                   s.cpu_manufacturer,
                   opt_text(s.cpu_sustained_clock_mhz),
                   s.hypervisor,
                   bool_text(s.bare_metal),
                   bool_text(s.burstable),
                   bool_text(s.capability_flex),
                   std::to_string(s.gpu_count),
                   s.gpu_name,
                   s.gpu_manufacturer,
                   opt_text(s.gpu_memory_mib),
                   std::to_string(s.accelerator_count),
                   s.accelerator_name,
                   s.accelerator_manufacturer,
                   opt_text(s.local_nvme_gib),
                   opt_text(s.network_bandwidth_mbps),
                   opt_text(s.ebs_bandwidth_mbps),
                   bool_text(s.encryption_in_transit),
                   std::to_string(s.efa),
                   std::to_string(s.nvidia_gpu),
                   std::to_string(s.amd_gpu),
                   std::to_string(s.neuron),
                   std::to_string(s.neuroncore),
                   opt_text(s.max_enis_default_card),
                   opt_text(s.ipv4_per_eni),
                   opt_text(s.max_pods_table),
                   std::to_string(s.pod_eni)});
  }
  return out;
}

// The zone factor for a spot price: the shortest fixed-point text f (at least 4 decimals)
// such that the loader's round_price(od x (1 - savings/100) x f) gives back `spot` exactly.
std::string factor_text(double od, int savings_pct, double spot)
{
  const double base = od * (1.0 - savings_pct / 100.0);
  const double want = round_price(spot);
  for (int decimals = 4; decimals <= 15; ++decimals) {
    const std::string t = fmt::format("{:.{}f}", spot / base, decimals);
    double f = 0;
    std::from_chars(t.data(), t.data() + t.size(), f);
    if (f > 0 && round_price(od * (1.0 - savings_pct / 100.0) * f) == want) {
      return t;
    }
  }
  return fmt::format("{}", spot / base);
}

// "a, b, c, d, e, ..." (at most 5 names).
std::string examples(const std::vector<std::string>& names)
{
  const std::size_t shown = std::min<std::size_t>(names.size(), 5);
  return fmt::format("{}{}", fmt::join(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                     names.size() > shown ? ", ..." : "");
}

} // namespace

SourceLocation text_location(const std::string& file, std::string_view text, std::size_t offset)
{
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const auto line = static_cast<std::uint32_t>(1 + std::count(before.begin(), before.end(), '\n'));
  const auto last_newline = before.rfind('\n');
  const std::size_t line_start = last_newline == std::string_view::npos ? 0 : last_newline + 1;
  return {file, line, static_cast<std::uint32_t>(offset - line_start + 1)};
}

CatalogImport import_aws_json(const std::vector<AwsJsonFile>& files, const ImportOptions& options)
{
  Diagnostics diags;
  Collected in;
  for (const auto& f : files) {
    read_file(f, options, diags, in);
  }
  diags.throw_if_any();
  const std::string from = files.empty() ? std::string("the input") : files.front().path;
  if (in.types.empty()) {
    throw InputError({from}, in.type_files == 0
                                 ? "no `aws ec2 describe-instance-types` output found (expected a JSON file with "
                                   "\"InstanceTypes\")"
                                 : "no instance type with a supported architecture (expected x86_64 or arm64 types "
                                   "in \"InstanceTypes\")");
  }

  CatalogImport result;
  result.stats.files = files.size();
  result.stats.instance_types = in.types.size();
  result.stats.spot_records = in.spot_records;
  if (!in.unsupported_arch.empty()) {
    result.warnings.push_back(fmt::format(
        "{} instance types have no architecture Kubernetes nodes use (x86_64 or arm64) and are left out ({})",
        in.unsupported_arch.size(), examples({in.unsupported_arch.begin(), in.unsupported_arch.end()})));
  }

  // prices.csv: known types only.
  std::string prices = "region,instance_type,usd_per_hour\n";
  std::vector<std::string> unknown_priced;
  std::map<std::string, std::map<std::string, double>> od; // region -> type -> price (kept)
  for (const auto& [region, by_type] : in.prices) {
    for (const auto& [type, entry] : by_type) {
      if (!in.types.contains(type)) {
        unknown_priced.push_back(region + "/" + type);
        continue;
      }
      const std::string text = price_text(entry.usd_per_hour);
      csv_line(prices, {region, type, text});
      double parsed = 0;
      std::from_chars(text.data(), text.data() + text.size(), parsed);
      od[region][type] = parsed;
      ++result.stats.prices;
    }
  }
  result.stats.regions = od.size();
  if (od.empty()) {
    throw InputError({from}, in.price_files == 0
                                 ? "no `aws pricing get-products` output found (expected a JSON file with "
                                   "\"PriceList\"; a catalog needs on-demand prices)"
                                 : "no on-demand Linux price of a described instance type in \"PriceList\" (expected "
                                   "products with operatingSystem Linux, preInstalledSw NA, capacitystatus Used, "
                                   "tenancy Shared and an OnDemand USD price)");
  }
  if (!unknown_priced.empty()) {
    result.warnings.push_back(
        fmt::format("{} on-demand prices are for instance types missing from the describe-instance-types output and "
                    "are left out ({})",
                    unknown_priced.size(), examples(unknown_priced)));
  }
  if (!in.price_conflicts.empty()) {
    result.warnings.push_back(
        fmt::format("{} instance types have several different on-demand prices in a region; the last one read is kept "
                    "({})",
                    in.price_conflicts.size(), examples({in.price_conflicts.begin(), in.price_conflicts.end()})));
  }
  if (!in.unknown_locations.empty()) {
    result.warnings.push_back(fmt::format(
        "products without a regionCode attribute in an unknown location are left out ({})",
        examples({in.unknown_locations.begin(), in.unknown_locations.end()})));
  }

  // zones.csv: the AZs seen in the spot history of each priced region, sorted.
  std::map<std::string, std::set<std::string>> zones; // region -> zones
  for (const auto& [key, entry] : in.spot) {
    const std::string region = zone_region(key.first);
    if (od.contains(region)) {
      zones[region].insert(key.first);
    }
  }
  std::string zones_csv = "region,zone,az_id\n";
  for (const auto& [region, names] : zones) {
    for (const auto& z : names) {
      const auto id = in.az_ids.find(z);
      csv_line(zones_csv, {region, z, id == in.az_ids.end() ? std::string() : id->second});
      ++result.stats.zones;
    }
  }

  // spot.csv and spot_zone_factors.csv: per (region, type) with an on-demand price.
  std::map<std::pair<std::string, std::string>, std::map<std::string, double>> spot; // (region, type) -> zone -> $
  std::vector<std::string> unknown_spot;
  std::vector<std::string> unpriced_spot;
  for (const auto& [key, entry] : in.spot) {
    const auto& [zone, type] = key;
    const std::string region = zone_region(zone);
    if (!in.types.contains(type)) {
      unknown_spot.push_back(zone + "/" + type);
    } else if (!od.contains(region) || !od[region].contains(type)) {
      unpriced_spot.push_back(zone + "/" + type);
    } else {
      spot[{region, type}][zone] = entry.price;
      ++result.stats.spot_prices;
    }
  }
  std::string spot_csv = "region,instance_type,savings_pct,interruption_band\n";
  std::string factors_csv = "region,instance_type,zone,factor,offered\n";
  for (const auto& [key, by_zone] : spot) {
    const auto& [region, type] = key;
    const double on_demand = od[region][type];
    double sum = 0;
    for (const auto& [zone, price] : by_zone) {
      sum += price;
    }
    const double mean = sum / static_cast<double>(by_zone.size());
    const auto savings = static_cast<int>(std::clamp<long long>(std::llround(100.0 * (1.0 - mean / on_demand)), -1000, 99));
    csv_line(spot_csv, {region, type, std::to_string(savings), ""});
    ++result.stats.spot_types;
    for (const auto& zone : zones[region]) {
      const auto z = by_zone.find(zone);
      if (z == by_zone.end()) {
        csv_line(factors_csv, {region, type, zone, "", "false"});
      } else {
        csv_line(factors_csv, {region, type, zone, factor_text(on_demand, savings, z->second), "true"});
      }
    }
  }
  if (in.spot_files > 0 && in.spot_records == 0) {
    result.warnings.push_back("no Linux/UNIX spot price record in the describe-spot-price-history output: the catalog "
                              "has no spot offerings");
  } else if (in.spot_files == 0) {
    result.warnings.push_back("no describe-spot-price-history output: the catalog has no spot offerings");
  }
  if (!unknown_spot.empty()) {
    result.warnings.push_back(fmt::format("{} spot prices are for instance types missing from the "
                                          "describe-instance-types output and are left out ({})",
                                          unknown_spot.size(), examples(unknown_spot)));
  }
  if (!unpriced_spot.empty()) {
    result.warnings.push_back(fmt::format("{} spot prices are for instance types without an on-demand price in their "
                                          "region and are left out ({})",
                                          unpriced_spot.size(), examples(unpriced_spot)));
  }
  if (!in.nonstandard_zones.empty()) {
    result.warnings.push_back(fmt::format("spot prices of {} Local or Wavelength Zones are left out ({})",
                                          in.nonstandard_zones.size(),
                                          examples({in.nonstandard_zones.begin(), in.nonstandard_zones.end()})));
  }

  result.files = {
      {"instance_types.csv", "instance_types.csv", instance_types_csv(in.types)},
      {"prices.csv", "prices.csv", std::move(prices)},
      {"spot.csv", "spot.csv", std::move(spot_csv)},
      {"zones.csv", "zones.csv", std::move(zones_csv)},
      {"spot_zone_factors.csv", "spot_zone_factors.csv", std::move(factors_csv)},
  };
  // The import checked its input; a catalog the loader refuses is a bug here.
  try {
    (void)parse_catalog_data(result.files, "catalog import");
  } catch (const InputError& e) {
    throw InternalError(fmt::format("catalog import produced a catalog that does not load:\n{}", e.what()));
  }
  return result;
}

std::vector<AwsJsonFile> read_aws_json_files(const std::string& from)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> paths;
  if (fs::is_regular_file(from, ec)) {
    paths.emplace_back(from);
  } else if (fs::is_directory(from, ec)) {
    for (const auto& entry : fs::directory_iterator(from, ec)) {
      if (entry.is_regular_file(ec) && entry.path().extension() == ".json") {
        paths.push_back(entry.path());
      }
    }
    if (ec) {
      throw InputError({from}, fmt::format("cannot list the folder: {} (expected a readable folder)", ec.message()));
    }
    std::sort(paths.begin(), paths.end());
    if (paths.empty()) {
      throw InputError({from}, "no .json file in the folder (expected the saved outputs of `aws ec2 "
                               "describe-instance-types`, `aws ec2 describe-spot-price-history` and `aws pricing "
                               "get-products` as *.json)");
    }
  } else {
    throw InputError({from}, "no such file or folder (expected a folder of saved AWS CLI JSON outputs)");
  }
  std::vector<AwsJsonFile> files;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      throw InputError({p.string()}, "cannot read the file (expected a readable JSON file)");
    }
    std::ostringstream text;
    text << in.rdbuf();
    files.push_back({p.string(), text.str()});
  }
  return files;
}

} // namespace capsim::catalog
