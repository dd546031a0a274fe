#include "core/catalog/load.hpp"

#include "core/base/text.hpp"
#include "core/catalog/embedded_data.hpp"
#include "core/model/requirements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <limits>
#include <sstream>

namespace capsim::catalog {

namespace {

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180: quoted fields, "" escapes, LF or CRLF line ends) with positions for messages.

struct CsvField
{
  std::string text;
  std::uint32_t column = 1; // 1-based byte column where the field starts
};

struct CsvRow
{
  std::uint32_t line = 0;
  std::vector<CsvField> fields;
};

std::vector<CsvRow> parse_csv(std::string_view text, const std::string& path, Diagnostics& diags)
{
  std::vector<CsvRow> rows;
  std::size_t i = 0;
  if (text.starts_with("\xEF\xBB\xBF")) {
    i = 3;
  }
  std::uint32_t line = 1;
  std::size_t line_start = i;
  while (i < text.size()) {
    CsvRow row;
    row.line = line;
    bool end_of_row = false;
    while (!end_of_row) {
      CsvField field;
      field.column = static_cast<std::uint32_t>(i - line_start + 1);
      if (i < text.size() && text[i] == '"') {
        const std::uint32_t quote_line = line;
        const std::uint32_t quote_column = field.column;
        ++i;
        bool closed = false;
        while (i < text.size()) {
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field.text += '"';
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
          }
          field.text += text[i++];
        }
        if (!closed) {
          diags.error({path, quote_line, quote_column}, "unterminated quoted field (expected a closing '\"')");
          return rows;
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          diags.error({path, line, static_cast<std::uint32_t>(i - line_start + 1)},
                      "unexpected character after a quoted field (expected ',' or the end of the line)");
          while (i < text.size() && text[i] != ',' && text[i] != '\n') {
            ++i;
          }
        }
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          field.text += text[i++];
        }
      }
      row.fields.push_back(std::move(field));
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < text.size() && text[i] == '\r') {
        ++i;
      }
      if (i < text.size() && text[i] == '\n') {
        ++i;
      }
      ++line;
      line_start = i;
      end_of_row = true;
    }
    // Skip blank lines (a single empty field).
    if (row.fields.size() == 1 && row.fields[0].text.empty()) {
      continue;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// A parsed CSV file with its header: rows are read by column name.
class Table
{
public:
  Table(const CatalogFile& file, const std::vector<std::string_view>& required,
        const std::vector<std::string_view>& optional, Diagnostics& diags)
    : m_path(file.path), m_diags(diags)
  {
    auto rows = parse_csv(file.text, file.path, diags);
    if (rows.empty()) {
      diags.error({m_path, 1, 1}, fmt::format("empty file (expected a header row: {})", fmt::join(required, ",")));
      return;
    }
    std::vector<std::string> known(required.begin(), required.end());
    known.insert(known.end(), optional.begin(), optional.end());
    const CsvRow& header = rows.front();
    for (std::size_t c = 0; c < header.fields.size(); ++c) {
      const auto& f = header.fields[c];
      const std::string name(trim(f.text));
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        diags.error({m_path, header.line, f.column},
                    fmt::format("unknown column '{}'{} (expected one of: {})", name, did_you_mean(name, known),
                                fmt::join(known, ", ")));
        continue;
      }
      if (m_columns.contains(name)) {
        diags.error({m_path, header.line, f.column}, fmt::format("duplicate column '{}'", name));
        continue;
      }
      m_columns[name] = c;
    }
    bool complete = true;
    for (const auto req : required) {
      if (!m_columns.contains(req)) {
        diags.error({m_path, header.line, 1},
                    fmt::format("missing column '{}' (required columns: {})", req, fmt::join(required, ", ")));
        complete = false;
      }
    }
    if (!complete) {
      return;
    }
    for (std::size_t r = 1; r < rows.size(); ++r) {
      if (rows[r].fields.size() != header.fields.size()) {
        diags.error({m_path, rows[r].line, 1}, fmt::format("row has {} fields (expected {}, as in the header)",
                                                           rows[r].fields.size(), header.fields.size()));
        continue;
      }
      m_rows.push_back(std::move(rows[r]));
    }
  }

  [[nodiscard]] const std::vector<CsvRow>& rows() const { return m_rows; }

  [[nodiscard]] bool has_column(std::string_view name) const { return m_columns.contains(name); }

  // The field of `column` in `row`, or nullptr when the file has no such column.
  [[nodiscard]] const CsvField* field(const CsvRow& row, std::string_view column) const
  {
    auto it = m_columns.find(column);
    return it == m_columns.end() ? nullptr : &row.fields[it->second];
  }

  [[nodiscard]] std::string text(const CsvRow& row, std::string_view column) const
  {
    const auto* f = field(row, column);
    return f == nullptr ? std::string() : std::string(trim(f->text));
  }

  [[nodiscard]] SourceLocation where(const CsvRow& row, std::string_view column) const
  {
    const auto* f = field(row, column);
    return {m_path, row.line, f == nullptr ? 1U : f->column};
  }

  void error(const CsvRow& row, std::string_view column, std::string message) const
  {
    m_diags.error(where(row, column), std::move(message));
  }

  // An integer cell; nullopt when empty (or the column is absent). Errors when `required`
  // and empty, or when not an integer in [min, max].
  std::optional<std::int64_t> integer(const CsvRow& row, std::string_view column, bool required,
                                      std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                                      std::int64_t max = std::numeric_limits<std::int64_t>::max()) const
  {
    const std::string t = text(row, column);
    if (t.empty()) {
      if (required) {
        error(row, column, fmt::format("empty {} (expected an integer)", column));
      }
      return std::nullopt;
    }
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size()) {
      error(row, column, fmt::format("{} '{}' is not an integer (expected a whole number)", column, t));
      return std::nullopt;
    }
    if (v < min || v > max) {
      if (max == std::numeric_limits<std::int64_t>::max()) {
        error(row, column, fmt::format("{} {} is out of range (expected >= {})", column, v, min));
      } else {
        error(row, column, fmt::format("{} {} is out of range (expected {}..{})", column, v, min, max));
      }
      return std::nullopt;
    }
    return v;
  }

  // A non-negative decimal cell (prices, factors); nullopt when invalid (error reported).
  std::optional<double> decimal(const CsvRow& row, std::string_view column, std::string_view expected) const
  {
    const std::string t = text(row, column);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(v) || v < 0) {
      error(row, column, fmt::format("{} '{}' is not a valid number (expected {})", column, t, expected));
      return std::nullopt;
    }
    return v;
  }

  // A true/false cell; `fallback` when empty or the column is absent.
  bool boolean(const CsvRow& row, std::string_view column, bool fallback = false) const
  {
    const std::string t = text(row, column);
    if (t.empty()) {
      return fallback;
    }
    if (t == "true") {
      return true;
    }
    if (t != "false") {
      error(row, column, fmt::format("{} '{}' is not a boolean (expected true or false)", column, t));
    }
    return false;
  }

private:
  std::string m_path;
  Diagnostics& m_diags;
  std::map<std::string, std::size_t, std::less<>> m_columns;
  std::vector<CsvRow> m_rows;
};

const CatalogFile* find_file(const std::vector<CatalogFile>& files, std::string_view name)
{
  for (const auto& f : files) {
    if (f.name == name) {
      return &f;
    }
  }
  return nullptr;
}

} // namespace

// Category and generation from the type name, as Karpenter's instanceTypeScheme does
// (letters, an optional "-<n>tb", then the generation digits): "u7i-12tb.224xlarge" -> u, 7.
void derive_name_parts(AwsInstanceSpec& s)
{
  const auto dot = s.name.find('.');
  if (s.family.empty() && dot != std::string::npos) {
    s.family = s.name.substr(0, dot);
  }
  if (s.size.empty() && dot != std::string::npos) {
    s.size = s.name.substr(dot + 1);
  }
  if (dot == std::string::npos || (!s.category.empty() && s.generation)) {
    return;
  }
  std::size_t i = 0;
  while (i < dot && s.name[i] >= 'a' && s.name[i] <= 'z') {
    ++i;
  }
  if (i == 0) {
    return;
  }
  const std::string category = s.name.substr(0, i);
  if (i < dot && s.name[i] == '-') {
    std::size_t j = i + 1;
    while (j < dot && std::isdigit(static_cast<unsigned char>(s.name[j])) != 0) {
      ++j;
    }
    if (j > i + 1 && s.name.compare(j, 2, "tb") == 0) {
      i = j + 2;
    }
  }
  std::size_t k = i;
  while (k < dot && std::isdigit(static_cast<unsigned char>(s.name[k])) != 0) {
    ++k;
  }
  if (k == i) {
    return;
  }
  if (s.category.empty()) {
    s.category = category;
  }
  if (!s.generation) {
    s.generation = std::stoll(s.name.substr(i, k - i));
  }
}

namespace {

const std::vector<std::string_view> k_type_required = {"instance_type", "vcpu", "memory_mib", "arch"};
const std::vector<std::string_view> k_type_optional = {
    "family",
    "category",
    "generation",
    "size",
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
    "branch_enis_pod_eni",
    "karpenter_pods",
    "karpenter_allocatable_cpu_millicores",
    "karpenter_allocatable_memory_mib",
    "karpenter_ephemeral_storage_gib",
};

void parse_instance_types(const CatalogFile& file, CatalogData& data, Diagnostics& diags)
{
  const Table t(file, k_type_required, k_type_optional, diags);
  std::map<std::string, std::uint32_t, std::less<>> seen;
  for (const auto& row : t.rows()) {
    AwsInstanceSpec s;
    s.name = t.text(row, "instance_type");
    if (s.name.empty()) {
      t.error(row, "instance_type", "empty instance_type (expected a name such as m5.large)");
      continue;
    }
    if (auto [it, fresh] = seen.emplace(s.name, row.line); !fresh) {
      t.error(row, "instance_type",
              fmt::format("duplicate instance type '{}' (first defined on line {})", s.name, it->second));
      continue;
    }
    const auto opt = [&](std::string_view col) { return t.integer(row, col, false, 0); };
    const auto count = [&](std::string_view col) { return t.integer(row, col, false, 0).value_or(0); };
    s.vcpu = t.integer(row, "vcpu", true, 1, 1 << 20).value_or(0);
    s.memory_mib = t.integer(row, "memory_mib", true, 1, std::int64_t{1} << 40).value_or(0);
    s.arch = t.text(row, "arch");
    if (s.arch != "amd64" && s.arch != "arm64") {
      t.error(row, "arch", fmt::format("arch '{}' is not supported (expected amd64 or arm64)", s.arch));
    }
    s.family = t.text(row, "family");
    s.category = t.text(row, "category");
    s.generation = opt("generation");
    s.size = t.text(row, "size");
    derive_name_parts(s);
    s.cpu_manufacturer = t.text(row, "cpu_manufacturer");
    s.cpu_sustained_clock_mhz = opt("cpu_sustained_clock_mhz");
    s.hypervisor = t.text(row, "hypervisor");
    s.bare_metal = t.boolean(row, "bare_metal", s.size.find("metal") != std::string::npos);
    s.burstable = t.boolean(row, "burstable");
    s.capability_flex = t.boolean(row, "capability_flex", s.family.find("-flex") != std::string::npos);
    s.gpu_count = count("gpu_count");
    s.gpu_name = t.text(row, "gpu_name");
    s.gpu_manufacturer = t.text(row, "gpu_manufacturer");
    s.gpu_memory_mib = opt("gpu_memory_mib");
    s.accelerator_count = count("accelerator_count");
    s.accelerator_name = t.text(row, "accelerator_name");
    s.accelerator_manufacturer = t.text(row, "accelerator_manufacturer");
    s.local_nvme_gib = opt("local_nvme_gib");
    s.network_bandwidth_mbps = opt("network_bandwidth_mbps");
    s.ebs_bandwidth_mbps = opt("ebs_bandwidth_mbps");
    s.encryption_in_transit = t.boolean(row, "encryption_in_transit");
    s.efa = count("efa_count");
    // Karpenter advertises nvidia.com/gpu from the GPU count when the maker is NVIDIA.
    s.nvidia_gpu = t.has_column("nvidia_gpu_resource") ? count("nvidia_gpu_resource")
                                                         : (s.gpu_manufacturer == "nvidia" ? s.gpu_count : 0);
    s.amd_gpu = t.has_column("amd_gpu_resource") ? count("amd_gpu_resource")
                                                   : (s.gpu_manufacturer == "amd" ? s.gpu_count : 0);
    s.neuron = count("neuron_resource");
    s.neuroncore = count("neuroncore_resource");
    s.pod_eni = count("branch_enis_pod_eni");
    s.max_enis_default_card = opt("max_enis_default_card");
    s.ipv4_per_eni = t.integer(row, "ipv4_per_eni", false, 1);
    s.max_pods_table = opt("max_pods_eni");
    s.karpenter_pods = opt("karpenter_pods");
    s.karpenter_allocatable_cpu_millis = opt("karpenter_allocatable_cpu_millicores");
    s.karpenter_allocatable_memory_mib = opt("karpenter_allocatable_memory_mib");
    s.karpenter_ephemeral_storage_gib = opt("karpenter_ephemeral_storage_gib");
    data.instance_types.push_back(std::move(s));
  }
  std::sort(data.instance_types.begin(), data.instance_types.end(),
            [](const AwsInstanceSpec& a, const AwsInstanceSpec& b) { return a.name < b.name; });
}

// The type named in `column` of `row` exists; else an error with a suggestion.
bool known_type(const Table& t, const CsvRow& row, const CatalogData& data, const std::vector<std::string>& names)
{
  const std::string name = t.text(row, "instance_type");
  if (data.find(name) != nullptr) {
    return true;
  }
  t.error(row, "instance_type",
          fmt::format("unknown instance type '{}'{} (expected a type listed in instance_types.csv)", name,
                      did_you_mean(name, names)));
  return false;
}

bool known_region(const Table& t, const CsvRow& row, const std::string& region)
{
  if (!region.empty()) {
    return true;
  }
  t.error(row, "region", "empty region (expected a region such as us-east-1)");
  return false;
}

void parse_prices(const CatalogFile& file, CatalogData& data, const std::vector<std::string>& names,
                  Diagnostics& diags)
{
  const Table t(file, {"region", "instance_type", "usd_per_hour"}, {"stale"}, diags);
  for (const auto& row : t.rows()) {
    const std::string region = t.text(row, "region");
    if (!known_region(t, row, region) || !known_type(t, row, data, names)) {
      continue;
    }
    const auto price = t.decimal(row, "usd_per_hour", "a price in USD per hour >= 0, e.g. 0.096");
    const bool stale = t.boolean(row, "stale");
    if (!price) {
      continue;
    }
    auto& by_type = data.prices[region];
    if (!by_type.emplace(t.text(row, "instance_type"), PriceRow{*price, stale}).second) {
      t.error(row, "instance_type",
              fmt::format("duplicate price for ({}, {})", region, t.text(row, "instance_type")));
    }
  }
}

void parse_spot(const CatalogFile& file, CatalogData& data, const std::vector<std::string>& names,
                Diagnostics& diags)
{
  const Table t(file, {"region", "instance_type", "savings_pct", "interruption_band"}, {}, diags);
  for (const auto& row : t.rows()) {
    const std::string region = t.text(row, "region");
    if (!known_region(t, row, region) || !known_type(t, row, data, names)) {
      continue;
    }
    const auto savings = t.integer(row, "savings_pct", true, -1000, 99);
    // An empty band is unknown (imported catalogs); a malformed one is reported by integer().
    const auto band = t.integer(row, "interruption_band", false, 0, 4);
    if (!savings) {
      continue;
    }
    const std::optional<int> row_band = band ? std::optional<int>(static_cast<int>(*band)) : std::nullopt;
    auto& by_type = data.spot[region];
    if (!by_type.emplace(t.text(row, "instance_type"), SpotRow{static_cast<int>(*savings), row_band}).second) {
      t.error(row, "instance_type",
              fmt::format("duplicate spot row for ({}, {})", region, t.text(row, "instance_type")));
    }
  }
}

void parse_zones(const CatalogFile& file, CatalogData& data, Diagnostics& diags)
{
  const Table t(file, {"region", "zone"}, {"az_id"}, diags);
  for (const auto& row : t.rows()) {
    const std::string region = t.text(row, "region");
    const std::string zone = t.text(row, "zone");
    if (!known_region(t, row, region)) {
      continue;
    }
    if (zone.empty()) {
      t.error(row, "zone", "empty zone (expected a zone name such as us-east-1a)");
      continue;
    }
    auto& zones = data.zones[region];
    if (std::find(zones.begin(), zones.end(), zone) != zones.end()) {
      t.error(row, "zone", fmt::format("duplicate zone '{}' in region {}", zone, region));
      continue;
    }
    zones.push_back(zone);
  }
}

void parse_zone_factors(const CatalogFile& file, CatalogData& data, const std::vector<std::string>& names,
                        Diagnostics& diags)
{
  const Table t(file, {"region", "instance_type", "zone", "factor"}, {"offered"}, diags);
  for (const auto& row : t.rows()) {
    const std::string region = t.text(row, "region");
    if (!known_region(t, row, region) || !known_type(t, row, data, names)) {
      continue;
    }
    const std::string zone = t.text(row, "zone");
    const auto zones = data.region_zones(region);
    if (std::find(zones.begin(), zones.end(), zone) == zones.end()) {
      t.error(row, "zone",
              fmt::format("zone '{}' is not a zone of {}{} (expected one of: {})", zone, region,
                          did_you_mean(zone, zones), fmt::join(zones, ", ")));
      continue;
    }
    const std::string type_name = t.text(row, "instance_type");
    bool duplicate = false;
    if (const auto r = data.spot_unoffered.find(region); r != data.spot_unoffered.end()) {
      if (const auto z = r->second.find(type_name); z != r->second.end()) {
        duplicate = std::binary_search(z->second.begin(), z->second.end(), zone);
      }
    }
    // offered=false: the type has no spot offering in this zone (no spot price there).
    if (!t.boolean(row, "offered", true)) {
      auto& unoffered = data.spot_unoffered[region][type_name];
      if (!t.text(row, "factor").empty()) {
        t.error(row, "factor", "factor must be empty when offered is false (expected an empty cell)");
      } else if (duplicate || data.zone_factors[region][type_name].contains(zone)) {
        t.error(row, "zone", fmt::format("duplicate factor for ({}, {}, {})", region, type_name, zone));
      } else {
        unoffered.insert(std::lower_bound(unoffered.begin(), unoffered.end(), zone), zone);
      }
      continue;
    }
    const auto factor = t.decimal(row, "factor", "a positive relative price, e.g. 1.05");
    if (!factor) {
      continue;
    }
    if (*factor <= 0) {
      t.error(row, "factor", "factor must be > 0 (expected a positive relative price, e.g. 1.05)");
      continue;
    }
    if (duplicate || !data.zone_factors[region][type_name].emplace(zone, *factor).second) {
      t.error(row, "zone", fmt::format("duplicate factor for ({}, {}, {})", region, t.text(row, "instance_type"), zone));
    }
  }
}

// The AWS label keys that Karpenter states as DoesNotExist unless the type has a value.
const std::vector<std::string> k_absent_when_missing = {
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-interruptible",
    "karpenter.k8s.aws/capacity-reservation-type",
    "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/instance-accelerator-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-capability-flex",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-cpu-manufacturer",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-network-bandwidth",
    "karpenter.k8s.aws/instance-size",
    "node.kubernetes.io/windows-build",
};

std::string read_text_file(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError({path.string()}, "cannot read the file (expected a readable catalog file)");
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace

std::vector<std::string> CatalogData::regions() const
{
  std::vector<std::string> out;
  for (const auto& [region, types] : prices) {
    if (!types.empty()) {
      out.push_back(region);
    }
  }
  return out;
}

std::vector<std::string> CatalogData::region_zones(std::string_view region) const
{
  if (auto it = zones.find(region); it != zones.end() && !it->second.empty()) {
    return it->second;
  }
  return {std::string(region) + "a", std::string(region) + "b", std::string(region) + "c"};
}

const AwsInstanceSpec* CatalogData::find(std::string_view name) const
{
  auto it = std::lower_bound(instance_types.begin(), instance_types.end(), name,
                             [](const AwsInstanceSpec& s, std::string_view n) { return s.name < n; });
  return it != instance_types.end() && it->name == name ? &*it : nullptr;
}

std::string_view interruption_band_label(int band)
{
  static constexpr std::string_view k_labels[] = {"<5%", "5-10%", "10-15%", "15-20%", ">20%"};
  return band >= 0 && band < 5 ? k_labels[band] : std::string_view();
}

CatalogData parse_catalog_data(const std::vector<CatalogFile>& files, std::string source)
{
  CatalogData data;
  data.source = std::move(source);
  Diagnostics diags;
  const CatalogFile* types = find_file(files, "instance_types.csv");
  const CatalogFile* prices = find_file(files, "prices.csv");
  if (types == nullptr || prices == nullptr) {
    diags.error({data.source}, fmt::format("missing {} (a catalog needs instance_types.csv and prices.csv; "
                                           "spot.csv, zones.csv and spot_zone_factors.csv are optional)",
                                           types == nullptr ? "instance_types.csv" : "prices.csv"));
    diags.throw_if_any();
  }
  parse_instance_types(*types, data, diags);
  std::vector<std::string> names;
  names.reserve(data.instance_types.size());
  for (const auto& s : data.instance_types) {
    names.push_back(s.name);
  }
  parse_prices(*prices, data, names, diags);
  if (const auto* f = find_file(files, "spot.csv")) {
    parse_spot(*f, data, names, diags);
  }
  if (const auto* f = find_file(files, "zones.csv")) {
    parse_zones(*f, data, diags);
  }
  if (const auto* f = find_file(files, "spot_zone_factors.csv")) {
    parse_zone_factors(*f, data, names, diags);
  }
  diags.throw_if_any();
  return data;
}

const CatalogData& embedded_catalog_data()
{
  static const CatalogData k_data = [] {
    std::vector<CatalogFile> files;
    for (const auto& f : embedded_files()) {
      files.push_back({std::string(f.name), "pricing-data/" + std::string(f.name), std::string(f.text)});
    }
    return parse_catalog_data(files, std::string(k_embedded_catalog_name));
  }();
  return k_data;
}

CatalogData read_catalog_folder(const std::string& dir)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw InputError({dir}, fs::exists(dir, ec) ? "not a folder (expected a catalog folder such as pricing-data/)"
                                                 : "catalog folder not found (expected a folder with "
                                                   "instance_types.csv and prices.csv)");
  }
  std::vector<CatalogFile> files;
  for (const auto* name : {"instance_types.csv", "prices.csv", "spot.csv", "zones.csv", "spot_zone_factors.csv"}) {
    const fs::path path = fs::path(dir) / name;
    if (!fs::exists(path, ec)) {
      continue;
    }
    files.push_back({name, path.string(), read_text_file(path)});
  }
  return parse_catalog_data(files, dir);
}

model::Labels aws_labels(const AwsInstanceSpec& s, std::string_view region)
{
  model::Labels l;
  const auto aws = [&](std::string_view key, std::string value) {
    l[fmt::format("karpenter.k8s.aws/{}", key)] = std::move(value);
  };
  const auto aws_opt = [&](std::string_view key, const std::optional<std::int64_t>& v) {
    if (v) {
      aws(key, std::to_string(*v));
    }
  };
  const auto aws_text = [&](std::string_view key, const std::string& v) {
    if (!v.empty()) {
      aws(key, v);
    }
  };
  aws_text("instance-category", s.category);
  aws_text("instance-family", s.family);
  aws_opt("instance-generation", s.generation);
  aws_text("instance-size", s.size);
  aws("instance-cpu", std::to_string(s.vcpu));
  aws_text("instance-cpu-manufacturer", s.cpu_manufacturer);
  aws_opt("instance-cpu-sustained-clock-speed-mhz", s.cpu_sustained_clock_mhz);
  aws("instance-memory", std::to_string(s.memory_mib));
  aws("instance-hypervisor", s.hypervisor); // "" on bare metal, as Karpenter sets it
  aws("instance-encryption-in-transit-supported", s.encryption_in_transit ? "true" : "false");
  aws("instance-capability-flex", s.capability_flex ? "true" : "false");
  aws_opt("instance-ebs-bandwidth", s.ebs_bandwidth_mbps);
  aws_opt("instance-network-bandwidth", s.network_bandwidth_mbps);
  aws_opt("instance-local-nvme", s.local_nvme_gib);
  if (!s.gpu_name.empty()) {
    aws("instance-gpu-name", s.gpu_name);
    aws_text("instance-gpu-manufacturer", s.gpu_manufacturer);
    aws("instance-gpu-count", std::to_string(s.gpu_count));
    aws_opt("instance-gpu-memory", s.gpu_memory_mib);
  }
  if (!s.accelerator_name.empty()) {
    aws("instance-accelerator-name", s.accelerator_name);
    aws_text("instance-accelerator-manufacturer", s.accelerator_manufacturer);
    aws("instance-accelerator-count", std::to_string(s.accelerator_count));
  }
  l[std::string(model::labels::k_arch)] = s.arch;
  l[std::string(model::labels::k_os)] = "linux";
  l[std::string(model::labels::k_instance_type)] = s.name;
  if (!region.empty()) {
    l[std::string(model::labels::k_region)] = std::string(region);
  }
  return l;
}

InstanceType aws_instance_type(const AwsInstanceSpec& spec, std::string_view region)
{
  InstanceType it;
  it.name = spec.name;
  it.labels = aws_labels(spec, region);
  for (const auto& key : k_absent_when_missing) {
    if (!it.labels.contains(key)) {
      it.absent_labels.push_back(key);
    }
  }
  const AwsResources res = aws_instance_resources(spec);
  it.capacity = res.capacity;
  it.overhead = res.overhead;
  it.aws_model = true;
  it.vcpu = static_cast<std::int32_t>(spec.vcpu);
  it.memory_mib = spec.memory_mib;
  it.arch = spec.arch;
  it.gpu_count = static_cast<std::int32_t>(spec.gpu_count);
  // Karpenter's exotic filter: a metal size, or any GPU / Neuron device resource.
  it.exotic = spec.size.find("metal") != std::string::npos || spec.nvidia_gpu > 0 || spec.amd_gpu > 0
              || spec.neuron > 0 || spec.neuroncore > 0;
  return it;
}

double round_price(double usd_per_hour)
{
  return std::round(usd_per_hour * 1e6) / 1e6;
}

Catalog build_catalog(const CatalogData& data, std::string_view region, const SourceLocation& region_location)
{
  const auto regions = data.regions();
  const auto price_it = data.prices.find(region);
  if (price_it == data.prices.end() || price_it->second.empty()) {
    throw InputError(region_location,
                     fmt::format("unknown region '{}'{} (expected one of the {} regions with prices in {}: {})", region,
                                 did_you_mean(region, regions), regions.size(), data.source, fmt::join(regions, ", ")));
  }
  const auto& prices = price_it->second;
  const auto zones = data.region_zones(region);
  static const ByName<SpotRow> k_no_spot;
  static const ByName<ByName<double>> k_no_factors;
  static const ByName<std::vector<std::string>> k_all_offered;
  const auto spot_it = data.spot.find(region);
  const auto& spot = spot_it == data.spot.end() ? k_no_spot : spot_it->second;
  const auto factors_it = data.zone_factors.find(region);
  const auto& factors = factors_it == data.zone_factors.end() ? k_no_factors : factors_it->second;
  const auto unoffered_it = data.spot_unoffered.find(region);
  const auto& unoffered = unoffered_it == data.spot_unoffered.end() ? k_all_offered : unoffered_it->second;

  std::vector<InstanceType> types;
  std::vector<std::string> unpriced;
  std::size_t stale = 0;
  for (const auto& spec : data.instance_types) {
    const auto p = prices.find(spec.name);
    if (p == prices.end()) {
      unpriced.push_back(spec.name);
      continue;
    }
    InstanceType it = aws_instance_type(spec, region);
    const PriceRow& od = p->second;
    if (od.stale) {
      ++stale;
    }
    const auto s = spot.find(spec.name);
    const auto f = factors.find(spec.name);
    const auto u = unoffered.find(spec.name);
    for (const auto& zone : zones) {
      it.offerings.push_back({.zone = zone,
                              .capacity_type = std::string(model::k_capacity_on_demand),
                              .price_per_hour = od.usd_per_hour,
                              .interruption_band = std::nullopt,
                              .available = true,
                              .stale_price = od.stale,
                              .reservation_id = {},
                              .reservation_capacity = 0});
      if (s == spot.end()
          || (u != unoffered.end() && std::binary_search(u->second.begin(), u->second.end(), zone))) {
        continue;
      }
      double factor = 1.0;
      if (f != factors.end()) {
        if (auto z = f->second.find(zone); z != f->second.end()) {
          factor = z->second;
        }
      }
      const double estimate = od.usd_per_hour * (1.0 - s->second.savings_pct / 100.0) * factor;
      it.offerings.push_back({.zone = zone,
                              .capacity_type = std::string(model::k_capacity_spot),
                              .price_per_hour = round_price(estimate),
                              .interruption_band = s->second.interruption_band,
                              .available = true,
                              .stale_price = od.stale,
                              .reservation_id = {},
                              .reservation_capacity = 0});
    }
    finalize_requirements(it);
    types.push_back(std::move(it));
  }
  Catalog catalog(std::string(region), zones, std::move(types));
  if (stale > 0) {
    catalog.add_warning(fmt::format("on-demand prices of {} instance types in {} are stale (from the July 2020 "
                                    "price table); their spot estimates derive from them",
                                    stale, region));
  }
  if (!unpriced.empty()) {
    const std::size_t shown = std::min<std::size_t>(unpriced.size(), 5);
    catalog.add_warning(fmt::format("{} instance types have no on-demand price in {} and are left out ({}{})",
                                    unpriced.size(), region,
                                    fmt::join(unpriced.begin(), unpriced.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                                    unpriced.size() > shown ? ", ..." : ""));
  }
  return catalog;
}

Catalog load_catalog(std::string_view region, std::string_view folder, const SourceLocation& region_location)
{
  if (folder.empty() || folder == "default") {
    return build_catalog(embedded_catalog_data(), region, region_location);
  }
  return build_catalog(read_catalog_folder(std::string(folder)), region, region_location);
}

} // namespace capsim::catalog
