#include "core/io/trace.hpp"

#include "core/base/quantity.hpp"
#include "core/base/text.hpp"
#include "core/io/files.hpp"
#include "core/io/json_items.hpp"
#include "core/io/pod_template.hpp"
#include "core/io/text_guard.hpp"
#include "core/io/yaml_reader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <numeric>
#include <ostream>

namespace capsim::io {

namespace {

// ---------------------------------------------------------------------------------------------
// Input

// Reads lines from a stream in chunks, so memory stays bounded by the longest line (itself
// capped at k_max_trace_line).
class LineReader
{
public:
  LineReader(std::istream& in, const std::string& source) : m_in(in), m_source(source) {}

  // The next line without its end of line; false at the end. `number` is 1-based.
  bool next(std::string_view& line, std::size_t& number)
  {
    while (true) {
      const std::size_t nl = m_buffer.find('\n', m_pos);
      if (nl != std::string::npos) {
        line = std::string_view(m_buffer).substr(m_pos, nl - m_pos);
        m_pos = nl + 1;
        return finish(line, number);
      }
      if (m_eof) {
        if (m_pos >= m_buffer.size()) {
          return false;
        }
        line = std::string_view(m_buffer).substr(m_pos);
        m_pos = m_buffer.size();
        return finish(line, number);
      }
      if (m_buffer.size() - m_pos > k_max_trace_line) {
        throw InputError(SourceLocation{m_source, static_cast<std::uint32_t>(m_line + 1), 1},
                         fmt::format("line is longer than {} bytes (is this a trace file?)", k_max_trace_line));
      }
      m_buffer.erase(0, m_pos);
      m_pos = 0;
      char chunk[1 << 16];
      m_in.read(chunk, sizeof chunk);
      const auto got = static_cast<std::size_t>(m_in.gcount());
      m_buffer.append(chunk, got);
      if (got == 0) {
        m_eof = true;
      }
    }
  }

private:
  bool finish(std::string_view& line, std::size_t& number)
  {
    ++m_line;
    number = m_line;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (m_line == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") {
      line.remove_prefix(3); // UTF-8 byte order mark
    }
    if (line.find('\0') != std::string_view::npos) {
      throw InputError(SourceLocation{m_source, static_cast<std::uint32_t>(m_line), 1},
                       "line contains a NUL byte: the file looks binary (expected a text trace)");
    }
    return true;
  }

  std::istream& m_in;
  const std::string& m_source;
  std::string m_buffer;
  std::size_t m_pos = 0;
  std::size_t m_line = 0;
  bool m_eof = false;
};

struct Cell
{
  std::string text;
  std::size_t column = 1; // 1-based character column of the field
};

// Splits one CSV line (RFC 4180 quoting; a quoted field may not span lines). "" or an error.
std::string split_csv(std::string_view line, std::vector<Cell>& cells)
{
  cells.clear();
  std::size_t i = 0;
  while (true) {
    Cell cell;
    cell.column = i + 1;
    while (i < line.size() && line[i] == ' ') {
      ++i;
    }
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell.text += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        cell.text += line[i++];
      }
      if (!closed) {
        return fmt::format("column {}: unterminated quoted field (fields may not span lines)", cell.column);
      }
      while (i < line.size() && line[i] == ' ') {
        ++i;
      }
      if (i < line.size() && line[i] != ',') {
        return fmt::format("column {}: unexpected text after a quoted field", i + 1);
      }
    } else {
      const std::size_t end = line.find(',', i);
      const std::string_view raw = line.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i);
      cell.text = std::string(trim(raw));
      i = end == std::string_view::npos ? line.size() : end;
    }
    cells.push_back(std::move(cell));
    if (i >= line.size()) {
      break;
    }
    ++i; // the comma
    if (i == line.size()) {
      cells.push_back(Cell{"", i + 1});
      break;
    }
  }
  return {};
}

bool is_bare_number(std::string_view s)
{
  bool digit = false;
  bool dot = false;
  for (const char c : s) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digit;
}

std::optional<double> parse_double(std::string_view s)
{
  double v = 0;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// A time cell: seconds from the start, or RFC 3339 (absolute Unix ms).
struct TimeValue
{
  SimTime ms = 0;
  bool absolute = false;
};

Expected<TimeValue> parse_time_cell(std::string_view s)
{
  if (auto v = parse_double(s)) {
    if (*v < 0) {
      return Expected<TimeValue>::failure(fmt::format("'{}' must not be negative", s));
    }
    if (*v * 1000.0 > static_cast<double>(k_max_trace_time)) {
      return Expected<TimeValue>::failure(fmt::format("'{}' seconds is absurdly far in the future", s));
    }
    return TimeValue{static_cast<SimTime>(std::llround(*v * 1000.0)), false};
  }
  if (auto t = parse_rfc3339_ms(s)) {
    return TimeValue{*t, true};
  }
  return Expected<TimeValue>::failure(
      fmt::format("'{}' is not a time (expected seconds from the start such as 90 or 12.5, or RFC 3339 such as "
                  "2024-05-01T12:00:00Z)",
                  s.substr(0, 60)));
}

Expected<Duration> parse_duration_cell(std::string_view s)
{
  if (auto v = parse_double(s)) {
    if (*v < 0) {
      return Expected<Duration>::failure(fmt::format("duration '{}' must not be negative", s));
    }
    if (*v * 1000.0 > static_cast<double>(k_max_trace_time)) {
      return Expected<Duration>::failure(fmt::format("duration '{}' is absurdly long", s));
    }
    return static_cast<Duration>(std::llround(*v * 1000.0));
  }
  auto d = parse_duration(s);
  if (!d) {
    return Expected<Duration>::failure(
        fmt::format("'{}' is not a duration (expected seconds such as 90, or 90s, 10m, 1h30m)", s.substr(0, 60)));
  }
  if (*d > k_max_trace_time) {
    return Expected<Duration>::failure(fmt::format("duration '{}' is absurdly long", s));
  }
  return *d;
}

// cpu: bare number = millicores; memory: bare number = MiB; otherwise Kubernetes quantities.
Expected<std::int64_t> parse_request_cell(std::string_view s, model::ResourceId id)
{
  using E = Expected<std::int64_t>;
  std::int64_t value = 0;
  if (is_bare_number(s)) {
    const auto v = parse_double(s);
    const double scale = id == model::k_memory ? static_cast<double>(k_mib) : 1.0;
    if (!v || *v * scale > static_cast<double>(k_max_request)) {
      return E::failure(fmt::format("'{}' is absurdly large", s));
    }
    value = static_cast<std::int64_t>(std::ceil(*v * scale));
  } else {
    auto q = id == model::k_cpu ? parse_quantity_milli(s) : parse_quantity(s);
    if (!q) {
      return E::failure(q.error());
    }
    value = *q;
  }
  if (value > k_max_request) {
    return E::failure(fmt::format("'{}' is absurdly large (at most {})", s, k_max_request));
  }
  return value;
}

// Template lookup, request overrides and naming shared by the row formats.
class RowBuilder
{
public:
  RowBuilder(const TraceOptions& options, std::string source) : m_options(options), m_source(std::move(source))
  {
    if (m_options.scenario != nullptr) {
      for (const auto& w : m_options.scenario->workloads) {
        m_names.push_back(w.name);
      }
      for (const auto& p : m_options.scenario->pods) {
        m_names.push_back(p.name);
      }
    }
  }

  // The spec for `name` (or the default template) with an optional priority override; "" error.
  model::PodSpecPtr spec(std::string_view name, std::optional<std::int32_t> priority, std::string& error)
  {
    const std::string key = std::string(name.empty() ? std::string_view(m_options.default_template) : name);
    auto& slot = priority ? m_by_priority[{key, *priority}] : m_by_name[key];
    if (slot) {
      return slot;
    }
    model::PodSpecPtr base;
    if (key.empty()) {
      base = default_spec();
    } else if (m_options.scenario != nullptr) {
      base = m_options.scenario->find_template(key);
      if (!base) {
        error = fmt::format("unknown template '{}'{}", key, did_you_mean(key, m_names));
        return nullptr;
      }
    } else {
      auto s = std::make_shared<model::PodSpec>();
      s->template_name = key;
      base = s;
    }
    if (priority && base->priority != *priority) {
      auto copy = std::make_shared<model::PodSpec>(*base);
      copy->priority = *priority;
      base = copy;
    }
    slot = base;
    return slot;
  }

  std::string name_for(std::string_view name, const model::PodSpec& spec, std::size_t row)
  {
    if (!name.empty()) {
      return std::string(name);
    }
    if (!m_options.name_prefix.empty()) {
      return fmt::format("{}-{}", m_options.name_prefix, row);
    }
    return fmt::format("{}-{}", spec.template_name.empty() ? "trace" : spec.template_name, row);
  }

private:
  model::PodSpecPtr default_spec()
  {
    if (!m_default) {
      m_default = std::make_shared<const model::PodSpec>();
    }
    return m_default;
  }

  const TraceOptions& m_options;
  std::string m_source;
  std::vector<std::string> m_names;
  std::map<std::string, model::PodSpecPtr> m_by_name;
  std::map<std::pair<std::string, std::int32_t>, model::PodSpecPtr> m_by_priority;
  model::PodSpecPtr m_default;
};

// The columns of csv/jsonl rows.
enum Column : std::uint8_t { c_arrival, c_duration, c_departure, c_cpu, c_memory, c_gpu, c_template, c_name, c_priority, c_count };
constexpr std::array<std::string_view, c_count> k_columns{"arrival", "duration", "departure", "cpu", "memory",
                                                          "gpu",     "template", "name",      "priority"};

// Converts the cells of one csv/jsonl row into a pod; errors are reported through `fail`.
struct RowCells
{
  std::array<const std::string*, c_count> value{};
  std::array<std::size_t, c_count> column{};
};

class RowConverter
{
public:
  RowConverter(const TraceOptions& options, const std::string& source, Diagnostics& diagnostics)
    : m_builder(options, source), m_source(source), m_diagnostics(diagnostics)
  {
  }

  bool mixed_error = false;
  std::optional<bool> absolute; // decided by the first arrival

  void convert(const RowCells& row, std::size_t row_number, std::vector<model::Pod>& out)
  {
    bool ok = true;
    const auto fail = [&](Column c, const std::string& message) {
      m_diagnostics.error(SourceLocation{m_source, static_cast<std::uint32_t>(row_number),
                                         static_cast<std::uint32_t>(row.column[c])},
                          fmt::format("{}: {}", k_columns[c], message));
      ok = false;
    };
    const auto text = [&](Column c) -> std::string_view { return row.value[c] ? std::string_view(*row.value[c]) : ""; };
    model::Pod pod;
    const auto arrival = text(c_arrival);
    if (arrival.empty()) {
      fail(c_arrival, "every row needs an arrival time");
    } else if (auto t = parse_time_cell(arrival); !t) {
      fail(c_arrival, t.error());
    } else {
      if (!absolute) {
        absolute = t.value().absolute;
      }
      if (*absolute != t.value().absolute) {
        fail(c_arrival, "the trace mixes RFC 3339 timestamps and seconds");
      }
      pod.arrival = t.value().ms;
    }
    if (const auto d = text(c_duration); !d.empty()) {
      if (auto v = parse_duration_cell(d); !v) {
        fail(c_duration, v.error());
      } else {
        pod.runtime = *v;
      }
    }
    if (const auto d = text(c_departure); !d.empty()) {
      if (auto t = parse_time_cell(d); !t) {
        fail(c_departure, t.error());
      } else if (absolute && t.value().absolute != *absolute) {
        fail(c_departure, "departure must use the same form as arrival (seconds or RFC 3339)");
      } else if (ok && t.value().ms < pod.arrival) {
        fail(c_departure, fmt::format("departure ({}) is before arrival ({})", d, arrival));
      } else {
        pod.departure = t.value().ms;
      }
    }
    std::optional<std::int32_t> priority;
    if (const auto p = text(c_priority); !p.empty()) {
      std::int32_t v = 0;
      const auto* end = p.data() + p.size();
      if (std::from_chars(p.data(), end, v).ptr != end) {
        fail(c_priority, fmt::format("'{}' is not a 32-bit integer", p.substr(0, 60)));
      } else {
        priority = v;
      }
    }
    std::string error;
    auto spec = m_builder.spec(text(c_template), priority, error);
    if (!spec) {
      fail(c_template, error);
    }
    if (!ok) {
      return;
    }
    pod.requests = spec->requests;
    const auto request = [&](Column c, model::ResourceId id) {
      if (const auto s = text(c); !s.empty()) {
        if (auto v = parse_request_cell(s, id); !v) {
          fail(c, v.error());
        } else {
          pod.requests[id] = *v;
        }
      }
    };
    request(c_cpu, model::k_cpu);
    request(c_memory, model::k_memory);
    if (const auto g = text(c_gpu); !g.empty()) {
      if (auto v = parse_quantity(g); !v || *v > 1'000'000) {
        fail(c_gpu, v ? fmt::format("'{}' GPUs is absurd", g) : v.error());
      } else {
        pod.requests[model::k_nvidia_gpu] = *v;
      }
    }
    if (!ok) {
      return;
    }
    pod.name = m_builder.name_for(text(c_name), *spec, row_number);
    pod.spec = std::move(spec);
    out.push_back(std::move(pod));
  }

private:
  RowBuilder m_builder;
  const std::string& m_source;
  Diagnostics& m_diagnostics;
};

void stop_if_full(const Diagnostics& diagnostics)
{
  if (diagnostics.size() >= Diagnostics::k_max_errors) {
    diagnostics.throw_if_any();
  }
}

// Makes RFC 3339 arrivals relative to the earliest one.
void rebase(std::vector<model::Pod>& pods, bool absolute)
{
  if (!absolute || pods.empty()) {
    return;
  }
  SimTime start = pods.front().arrival;
  for (const auto& p : pods) {
    start = std::min(start, p.arrival);
  }
  for (auto& p : pods) {
    p.arrival -= start;
    if (p.departure >= 0) {
      p.departure -= start;
    }
  }
}

void read_csv(std::istream& in, const std::string& source, const TraceOptions& options, std::vector<model::Pod>& out,
              Diagnostics& diagnostics)
{
  LineReader lines(in, source);
  std::string_view line;
  std::size_t number = 0;
  std::vector<Cell> cells;
  std::array<int, c_count> index{};
  index.fill(-1);
  std::size_t header_size = 0;
  bool have_header = false;
  RowConverter converter(options, source, diagnostics);
  RowCells row;
  while (lines.next(line, number)) {
    if (trim(line).empty() || line.front() == '#') {
      continue;
    }
    if (const std::string e = split_csv(line, cells); !e.empty()) {
      diagnostics.error(SourceLocation{source, static_cast<std::uint32_t>(number), 1}, e);
      stop_if_full(diagnostics);
      if (!have_header) {
        break;
      }
      continue;
    }
    if (!have_header) {
      have_header = true;
      header_size = cells.size();
      const std::vector<std::string> names(k_columns.begin(), k_columns.end());
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::string& name = cells[i].text;
        const auto it = std::find(k_columns.begin(), k_columns.end(), name);
        const SourceLocation at{source, static_cast<std::uint32_t>(number), static_cast<std::uint32_t>(cells[i].column)};
        if (it == k_columns.end()) {
          diagnostics.error(at, fmt::format("unknown column '{}'{} (columns: {})", name.substr(0, 60),
                                            did_you_mean(name, names), fmt::join(k_columns, ", ")));
          continue;
        }
        const auto c = static_cast<std::size_t>(it - k_columns.begin());
        if (index[c] >= 0) {
          diagnostics.error(at, fmt::format("column '{}' appears twice", name));
          continue;
        }
        index[c] = static_cast<int>(i);
      }
      if (index[c_arrival] < 0) {
        diagnostics.error(SourceLocation{source, static_cast<std::uint32_t>(number), 1},
                          "the header has no 'arrival' column (the first row must name the columns: arrival, "
                          "duration or departure, cpu, memory, ...)");
      }
      if (!diagnostics.empty()) {
        diagnostics.throw_if_any();
      }
      continue;
    }
    if (cells.size() != header_size) {
      diagnostics.error(SourceLocation{source, static_cast<std::uint32_t>(number), 1},
                        fmt::format("the row has {} fields but the header has {}", cells.size(), header_size));
      stop_if_full(diagnostics);
      continue;
    }
    for (std::size_t c = 0; c < c_count; ++c) {
      if (index[c] >= 0) {
        const auto& cell = cells[static_cast<std::size_t>(index[c])];
        row.value[c] = &cell.text;
        row.column[c] = cell.column;
      } else {
        row.value[c] = nullptr;
        row.column[c] = 1;
      }
    }
    converter.convert(row, number, out);
    stop_if_full(diagnostics);
  }
  if (!have_header && diagnostics.empty()) {
    diagnostics.error(SourceLocation{source, 1, 1}, "the trace is empty (expected a header row: arrival, duration, "
                                                    "cpu, memory, ...)");
  }
  diagnostics.throw_if_any();
  rebase(out, converter.absolute.value_or(false));
}

void read_jsonl(std::istream& in, const std::string& source, const TraceOptions& options,
                std::vector<model::Pod>& out, Diagnostics& diagnostics)
{
  LineReader lines(in, source);
  std::string_view line;
  std::size_t number = 0;
  RowConverter converter(options, source, diagnostics);
  std::array<std::string, c_count> values;
  RowCells row;
  const std::vector<std::string> names(k_columns.begin(), k_columns.end());
  bool any = false;
  while (lines.next(line, number)) {
    if (trim(line).empty()) {
      continue;
    }
    any = true;
    const auto at = [&](std::size_t col) {
      return SourceLocation{source, static_cast<std::uint32_t>(number), static_cast<std::uint32_t>(col)};
    };
    nlohmann::json obj;
    try {
      obj = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      diagnostics.error(at(std::min<std::size_t>(e.byte == 0 ? 1 : e.byte, line.size() + 1)),
                        fmt::format("invalid JSON: {}", std::string(e.what()).substr(0, 200)));
      stop_if_full(diagnostics);
      continue;
    } catch (const nlohmann::json::exception& e) {
      // e.g. out_of_range for a number such as 1e999999
      diagnostics.error(at(1), fmt::format("invalid JSON: {}", std::string(e.what()).substr(0, 200)));
      stop_if_full(diagnostics);
      continue;
    }
    if (!obj.is_object()) {
      diagnostics.error(at(1), "each line must be a JSON object such as {\"arrival\": 0, \"cpu\": \"250m\"}");
      stop_if_full(diagnostics);
      continue;
    }
    row.value.fill(nullptr);
    row.column.fill(1);
    bool ok = true;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const auto found = std::find(k_columns.begin(), k_columns.end(), it.key());
      // Column of the key in the line (for messages): its first occurrence as "key".
      const std::size_t key_pos = line.find(fmt::format("\"{}\"", it.key()));
      const std::size_t col = key_pos == std::string_view::npos ? 1 : key_pos + 1;
      if (found == k_columns.end()) {
        diagnostics.error(at(col), fmt::format("unknown key '{}'{} (keys: {})", it.key().substr(0, 60),
                                               did_you_mean(it.key(), names), fmt::join(k_columns, ", ")));
        ok = false;
        continue;
      }
      const auto c = static_cast<std::size_t>(found - k_columns.begin());
      const auto& v = it.value();
      if (v.is_null()) {
        continue;
      }
      if (v.is_string()) {
        values[c] = v.get<std::string>();
      } else if (v.is_number()) {
        values[c] = v.dump();
        if (v.is_number_float()) {
          // dump() may use an exponent (1e-05): spell it as a plain decimal.
          const double d = v.get<double>();
          values[c] = fmt::format("{:.6f}", d);
        }
      } else {
        diagnostics.error(at(col), fmt::format("'{}' must be a string or a number", it.key()));
        ok = false;
        continue;
      }
      row.value[c] = &values[c];
      row.column[c] = col;
    }
    if (ok) {
      converter.convert(row, number, out);
    }
    stop_if_full(diagnostics);
  }
  if (!any && diagnostics.empty()) {
    diagnostics.error(SourceLocation{source, 1, 1}, "the trace is empty (expected one JSON object per line)");
  }
  diagnostics.throw_if_any();
  rebase(out, converter.absolute.value_or(false));
}

void read_openb(std::istream& in, const std::string& source, const TraceOptions& options,
                std::vector<model::Pod>& out, Diagnostics& diagnostics)
{
  LineReader lines(in, source);
  std::string_view line;
  std::size_t number = 0;
  std::vector<Cell> cells;
  static constexpr std::array<std::string_view, 11> k_openb{"name",      "cpu_milli",   "memory_mib",    "num_gpu",
                                                            "gpu_milli", "gpu_spec",    "qos",           "pod_phase",
                                                            "creation_time", "deletion_time", "scheduled_time"};
  enum : std::uint8_t { o_name, o_cpu, o_mem, o_gpu, o_gpu_milli, o_spec, o_qos, o_phase, o_creation, o_deletion, o_scheduled };
  std::array<int, k_openb.size()> index{};
  index.fill(-1);
  std::size_t header_size = 0;
  bool have_header = false;
  RowBuilder builder(options, source);
  while (lines.next(line, number)) {
    if (trim(line).empty()) {
      continue;
    }
    const auto at = [&](std::size_t col) {
      return SourceLocation{source, static_cast<std::uint32_t>(number), static_cast<std::uint32_t>(col)};
    };
    if (const std::string e = split_csv(line, cells); !e.empty()) {
      diagnostics.error(at(1), e);
      stop_if_full(diagnostics);
      if (!have_header) {
        break;
      }
      continue;
    }
    if (!have_header) {
      have_header = true;
      header_size = cells.size();
      const std::vector<std::string> names(k_openb.begin(), k_openb.end());
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto it = std::find(k_openb.begin(), k_openb.end(), cells[i].text);
        if (it == k_openb.end()) {
          if (!(i == 0 && cells[i].text.empty())) { // a pandas index column has no name
            diagnostics.error(at(cells[i].column), fmt::format("unknown openb column '{}'{}", cells[i].text.substr(0, 60),
                                                               did_you_mean(cells[i].text, names)));
          }
          continue;
        }
        index[static_cast<std::size_t>(it - k_openb.begin())] = static_cast<int>(i);
      }
      for (const auto required : {o_name, o_cpu, o_mem, o_creation}) {
        if (index[required] < 0) {
          diagnostics.error(at(1), fmt::format("the openb header has no '{}' column", k_openb[required]));
        }
      }
      diagnostics.throw_if_any();
      continue;
    }
    if (cells.size() != header_size) {
      diagnostics.error(at(1), fmt::format("the row has {} fields but the header has {}", cells.size(), header_size));
      stop_if_full(diagnostics);
      continue;
    }
    const auto cell = [&](std::size_t c) -> const Cell* {
      return index[c] >= 0 ? &cells[static_cast<std::size_t>(index[c])] : nullptr;
    };
    const auto integer = [&](std::size_t c, bool required, std::int64_t max) -> std::optional<std::int64_t> {
      const Cell* x = cell(c);
      if (x == nullptr || x->text.empty() || x->text == "nan") {
        if (required) {
          diagnostics.error(at(x == nullptr ? 1 : x->column), fmt::format("{}: a value is required", k_openb[c]));
        }
        return std::nullopt;
      }
      const auto v = parse_double(x->text);
      if (!v || *v < 0 || *v > static_cast<double>(max)) {
        diagnostics.error(at(x->column), fmt::format("{}: '{}' is not a number between 0 and {}", k_openb[c],
                                                     x->text.substr(0, 60), max));
        return std::nullopt;
      }
      return static_cast<std::int64_t>(std::ceil(*v));
    };
    const std::size_t errors = diagnostics.size();
    const auto cpu = integer(o_cpu, true, k_max_request);
    const auto mem = integer(o_mem, true, k_max_request / k_mib);
    const auto gpus = integer(o_gpu, false, 1'000'000);
    const auto gpu_milli = integer(o_gpu_milli, false, 1'000'000'000);
    const auto creation = integer(o_creation, true, k_max_trace_time / k_second);
    const auto deletion = integer(o_deletion, false, k_max_trace_time / k_second);
    const auto scheduled = integer(o_scheduled, false, k_max_trace_time / k_second);
    if (diagnostics.size() != errors) {
      stop_if_full(diagnostics);
      continue;
    }
    std::string error;
    auto spec = builder.spec("", std::nullopt, error);
    if (!spec) {
      diagnostics.error(at(1), error);
      stop_if_full(diagnostics);
      continue;
    }
    model::Pod pod;
    pod.requests = spec->requests;
    pod.requests[model::k_cpu] = *cpu;
    pod.requests[model::k_memory] = *mem * k_mib;
    std::int64_t gpu = gpus.value_or(0);
    if (gpu == 0 && gpu_milli.value_or(0) > 0) {
      gpu = 1; // a GPU share still occupies one whole GPU here
    }
    pod.requests[model::k_nvidia_gpu] = gpu;
    pod.arrival = *creation * k_second;
    if (deletion) {
      if (*deletion < *creation) {
        diagnostics.error(at(cell(o_deletion)->column), "deletion_time is before creation_time");
        stop_if_full(diagnostics);
        continue;
      }
      if (scheduled && *scheduled >= *creation && *scheduled <= *deletion) {
        pod.runtime = (*deletion - *scheduled) * k_second; // running time, kept when replayed
      } else {
        pod.departure = *deletion * k_second; // deleted while pending
      }
    }
    const Cell* name = cell(o_name);
    pod.name = builder.name_for(name != nullptr ? std::string_view(name->text) : "", *spec, number);
    pod.spec = std::move(spec);
    out.push_back(std::move(pod));
  }
  if (!have_header && diagnostics.empty()) {
    diagnostics.error(SourceLocation{source, 1, 1}, "the trace is empty (expected the openb header row)");
  }
  diagnostics.throw_if_any();
}

std::optional<std::int64_t> yaml_time(const YAML::Node& node)
{
  if (!present(node) || !node.IsScalar()) {
    return std::nullopt;
  }
  return parse_rfc3339_ms(node.Scalar());
}

// The specs of a dump's controllers: the pods of one ReplicaSet share their spec, as the pods
// of a scenario's workload do, and a controller's other specs (a StatefulSet's pods carry their
// own names as labels) count with its first, so that kube-scheduler's default spreading and
// Cluster Autoscaler see a controller's pods together. (A spec per pod also made every per-spec
// cache of the engines a per-pod one.)
class ControllerSpecs
{
public:
  // `owner`: "namespace/kind/name" of the pod's controller.
  model::PodSpecPtr share(model::PodSpec spec, const std::string& owner)
  {
    auto& specs = m_by_owner[owner];
    // The last few distinct specs only: a controller whose every pod differs costs no more.
    constexpr std::size_t k_compared = 8;
    for (std::size_t i = 0; i < std::min(specs.size(), k_compared); ++i) {
      const auto& s = specs[specs.size() - 1 - i];
      spec.counted_with = s->counted_with;
      if (*s == spec) {
        return s;
      }
    }
    spec.counted_with = specs.empty() ? nullptr : specs.front();
    specs.push_back(std::make_shared<const model::PodSpec>(std::move(spec)));
    return specs.back();
  }

private:
  std::map<std::string, std::vector<model::PodSpecPtr>> m_by_owner;
};

void read_kubectl(std::istream& in, const std::string& source, const TraceOptions& options,
                  std::vector<model::Pod>& out, Diagnostics& diagnostics)
{
  std::string text;
  {
    char chunk[1 << 16];
    while (in) {
      in.read(chunk, sizeof chunk);
      text.append(chunk, static_cast<std::size_t>(in.gcount()));
      if (text.size() > k_max_document_bytes) {
        throw InputError(SourceLocation{source, 0, 0}, "the kubectl dump is too large (at most 256 MiB)");
      }
    }
  }
  check_text(text, source, 64);
  YamlReader whole(source, diagnostics);
  std::vector<model::Pod> pods;
  std::optional<std::int64_t> earliest;
  std::size_t index = 0;
  ControllerSpecs shared;
  Diagnostics found; // the item-by-item reading's, kept unless the dump is read whole after all
  YamlReader by_item(source, found);
  YamlReader* reader = &whole; // the reader of the item being read
  // One item: false once the errors are too many to go on.
  const auto read_item = [&](const YAML::Node& item) {
    auto& r = *reader;
    ++index;
    if (!item.IsMap()) {
      r.error(item, "each item must be a Pod object");
      return true;
    }
    const auto k = child(item, "kind");
    if (present(k) && k.IsScalar() && k.Scalar() != "Pod") {
      r.error(k, fmt::format("items must be Pods (got kind '{}')", k.Scalar()));
      return true;
    }
    const auto md = child(item, "metadata");
    const auto status = child(item, "status");
    const std::string name = present(child(md, "name")) && child(md, "name").IsScalar() ? child(md, "name").Scalar()
                                                                                        : fmt::format("pod-{}", index);
    PodContext ctx;
    ctx.admitted = true;
    auto t = read_pod_template(r, item, md, child(item, "spec"), fmt::format("Pod/{}.spec", name), ctx);
    if (t.daemon_owned || t.mirror) {
      return true; // DaemonSet and static pods follow nodes; model them with DaemonSets
    }
    const auto created = yaml_time(child(md, "creationTimestamp"));
    if (!created) {
      r.error(present(md) ? md : item, fmt::format("Pod/{}: metadata.creationTimestamp is missing or not RFC 3339", name));
      return true;
    }
    model::Pod pod;
    pod.arrival = *created;
    if (const auto deleted = yaml_time(child(md, "deletionTimestamp"))) {
      pod.departure = std::max(*deleted, *created);
    }
    const auto phase = child(status, "phase");
    const std::string ph = present(phase) && phase.IsScalar() ? phase.Scalar() : "";
    if (ph == "Succeeded" || ph == "Failed") {
      // Finished: replay its running time (latest container finish - start).
      const auto started = yaml_time(child(status, "startTime"));
      std::optional<std::int64_t> finished;
      if (const auto statuses = child(status, "containerStatuses"); statuses.IsSequence()) {
        for (const auto& cs : statuses) {
          if (auto f = yaml_time(child(child(child(cs, "state"), "terminated"), "finishedAt"))) {
            finished = finished ? std::max(*finished, *f) : *f;
          }
        }
      }
      if (!started || !finished) {
        return true; // no timing: nothing to replay
      }
      pod.runtime = std::max<std::int64_t>(0, *finished - *started);
    }
    pod.name = name;
    pod.requests = t.spec.requests;
    t.spec.annotations.clear(); // read above; a dump's pods carry their own (IPs, hashes)
    if (t.owner_name.empty()) {
      t.spec.template_name = name;
      pod.spec = std::make_shared<const model::PodSpec>(std::move(t.spec));
    } else {
      t.spec.template_name = t.owner_name;
      const std::string owner = fmt::format("{}/{}/{}", t.spec.namespace_, t.owner_kind, t.owner_name);
      pod.spec = shared.share(std::move(t.spec), owner);
    }
    earliest = earliest ? std::min(*earliest, pod.arrival) : pod.arrival;
    pods.push_back(std::move(pod));
    return r.diagnostics().size() < Diagnostics::k_max_errors;
  };
  try {
    // The items one by one; an item the scan cut where a YAML parser would not (flow YAML that
    // only looks like JSON) sends the dump to the whole-document reader.
    bool read = false;
    if (const auto items = scan_json_items(text)) {
      reader = &by_item;
      read = true;
      for (const auto& piece : items->items) {
        by_item.set_origin(piece.line, piece.column);
        YAML::Node item;
        try {
          item = load_yaml(std::string_view(text).substr(piece.begin, piece.end - piece.begin));
        } catch (const YAML::Exception&) {
          read = false;
          break;
        }
        if (!within_node_budget(item, 50'000'000, 128)) {
          throw InputError(by_item.location(item), "the dump is too large or too deep once YAML aliases are expanded");
        }
        if (!read_item(item)) {
          break;
        }
      }
      reader = &whole;
      if (read) {
        for (const auto& d : found.items()) {
          diagnostics.error(d.location, d.message);
        }
      } else {
        pods.clear();
        earliest.reset();
        index = 0;
        shared = ControllerSpecs{};
      }
    }
    if (!read) {
      auto& r = whole;
      YAML::Node root;
      try {
        root = load_yaml(text);
      } catch (const YAML::Exception& e) {
        throw InputError(r.location(e.mark), fmt::format("invalid JSON/YAML: {}", e.msg));
      }
      if (!within_node_budget(root, 50'000'000, 128)) {
        throw InputError(SourceLocation{source, 1, 1}, "the dump is too large or too deep once YAML aliases are expanded");
      }
      if (!present(root) || !root.IsMap()) {
        throw InputError(SourceLocation{source, 1, 1},
                         "expected the output of `kubectl get pods -A -o json` (an object with 'items')");
      }
      const auto kind = child(root, "kind");
      if (present(kind) && kind.IsScalar() && kind.Scalar() == "Pod") {
        (void)read_item(root);
      } else {
        const auto list = child(root, "items");
        if (!present(list) || !list.IsSequence()) {
          throw InputError(r.location(root),
                           "expected the output of `kubectl get pods -A -o json` (an object with 'items')");
        }
        for (const auto& item : list) {
          if (!read_item(item)) {
            break;
          }
        }
      }
    }
    diagnostics.throw_if_any();
    (void)options;
    for (auto& p : pods) {
      p.arrival -= *earliest;
      if (p.departure >= 0) {
        p.departure -= *earliest;
      }
    }
    out = std::move(pods);
  } catch (const YAML::Exception& e) {
    if (reader == &by_item) {
      for (const auto& d : found.items()) {
        diagnostics.error(d.location, d.message);
      }
    }
    diagnostics.error(reader->location(e.mark), fmt::format("unexpected structure: {}", e.msg));
    diagnostics.throw_if_any();
  }
}

// Upper bound of the rows of a file (its line count), to reserve the vector once.
std::size_t count_lines(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  std::size_t lines = 1;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    const auto got = static_cast<std::size_t>(in.gcount());
    lines += static_cast<std::size_t>(std::count(chunk, chunk + got, '\n'));
  }
  return lines;
}

} // namespace

std::optional<TraceFormat> parse_trace_format(std::string_view text)
{
  if (text == "csv") {
    return TraceFormat::csv;
  }
  if (text == "jsonl") {
    return TraceFormat::jsonl;
  }
  if (text == "openb") {
    return TraceFormat::openb;
  }
  if (text == "kubectl") {
    return TraceFormat::kubectl;
  }
  return std::nullopt;
}

std::string_view to_string(TraceFormat format)
{
  switch (format) {
  case TraceFormat::csv: return "csv";
  case TraceFormat::jsonl: return "jsonl";
  case TraceFormat::openb: return "openb";
  case TraceFormat::kubectl: return "kubectl";
  }
  return "?";
}

TraceFormat guess_trace_format(std::string_view path)
{
  const std::string ext = std::filesystem::path(std::string(path)).extension().string();
  if (ext == ".jsonl") {
    return TraceFormat::jsonl;
  }
  if (ext == ".json" || ext == ".yaml" || ext == ".yml") {
    return TraceFormat::kubectl;
  }
  return TraceFormat::csv;
}

std::optional<std::int64_t> parse_rfc3339_ms(std::string_view s)
{
  // YYYY-MM-DD[Tt ]HH:MM:SS[.frac](Z|z|+HH:MM|-HH:MM)?
  const auto digits = [&](std::size_t pos, std::size_t n) -> std::optional<int> {
    if (pos + n > s.size()) {
      return std::nullopt;
    }
    int v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') {
        return std::nullopt;
      }
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':'
      || s[16] != ':') {
    return std::nullopt;
  }
  const auto y = digits(0, 4);
  const auto mo = digits(5, 2);
  const auto d = digits(8, 2);
  const auto h = digits(11, 2);
  const auto mi = digits(14, 2);
  const auto sec = digits(17, 2);
  if (!y || !mo || !d || !h || !mi || !sec || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59
      || *sec > 60) {
    return std::nullopt;
  }
  std::size_t i = 19;
  std::int64_t ms = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int scale = 100;
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ms += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == start) {
      return std::nullopt;
    }
  }
  std::int64_t offset_min = 0;
  if (i < s.size()) {
    if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == s.size()) {
      ++i;
    } else if ((s[i] == '+' || s[i] == '-') && i + 6 == s.size() && s[i + 3] == ':') {
      const auto oh = digits(i + 1, 2);
      const auto om = digits(i + 4, 2);
      if (!oh || !om || *oh > 23 || *om > 59) {
        return std::nullopt;
      }
      offset_min = (*oh * 60 + *om) * (s[i] == '-' ? -1 : 1);
      i = s.size();
    } else {
      return std::nullopt;
    }
  }
  // Days from the civil date (proleptic Gregorian), Howard Hinnant's algorithm.
  const std::int64_t yy = *y - (*mo <= 2 ? 1 : 0);
  const std::int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  const std::int64_t yoe = yy - era * 400;
  const std::int64_t mp = (*mo + 9) % 12;
  const std::int64_t doy = (153 * mp + 2) / 5 + *d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = era * 146097 + doe - 719468;
  const std::int64_t seconds = days * 86400 + *h * 3600 + *mi * 60 + *sec - offset_min * 60;
  return seconds * 1000 + ms;
}

std::string format_seconds(SimTime ms)
{
  const bool negative = ms < 0;
  const std::uint64_t a = negative ? static_cast<std::uint64_t>(-(ms + 1)) + 1 : static_cast<std::uint64_t>(ms);
  std::string out = fmt::format("{}{}", negative ? "-" : "", a / 1000);
  if (const auto frac = a % 1000; frac != 0) {
    std::string f = fmt::format("{:03}", frac);
    while (f.back() == '0') {
      f.pop_back();
    }
    out += "." + f;
  }
  return out;
}

void sort_by_arrival(std::vector<model::Pod>& pods)
{
  const bool sorted = std::is_sorted(pods.begin(), pods.end(),
                                     [](const model::Pod& a, const model::Pod& b) { return a.arrival < b.arrival; });
  if (sorted) {
    return;
  }
  std::vector<std::uint32_t> order(pods.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return pods[a].arrival != pods[b].arrival ? pods[a].arrival < pods[b].arrival : a < b;
  });
  // Apply the permutation in place, cycle by cycle: position i receives pods[order[i]].
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] == i || order[i] == UINT32_MAX) {
      continue;
    }
    model::Pod held = std::move(pods[i]);
    std::size_t j = i;
    while (true) {
      const std::size_t from = order[j];
      order[j] = UINT32_MAX;
      if (from == i) {
        pods[j] = std::move(held);
        break;
      }
      pods[j] = std::move(pods[from]);
      j = from;
    }
  }
}

namespace {

// Reads into `pods` (which may have been reserved), then sorts and checks arrival times.
void read_into(std::istream& in, TraceFormat format, const std::string& source_name, const TraceOptions& options,
               std::vector<model::Pod>& pods)
{
  Diagnostics diagnostics;
  switch (format) {
  case TraceFormat::csv: read_csv(in, source_name, options, pods, diagnostics); break;
  case TraceFormat::jsonl: read_jsonl(in, source_name, options, pods, diagnostics); break;
  case TraceFormat::openb: read_openb(in, source_name, options, pods, diagnostics); break;
  case TraceFormat::kubectl: read_kubectl(in, source_name, options, pods, diagnostics); break;
  }
  sort_by_arrival(pods);
  for (const auto& p : pods) {
    if (p.arrival > k_max_trace_time) {
      throw InputError(SourceLocation{source_name, 0, 0},
                       fmt::format("pod '{}' arrives {} after the start of the trace: absurdly late", p.name,
                                   format_duration(p.arrival)));
    }
  }
}

} // namespace

std::vector<model::Pod> read_trace(std::istream& in, TraceFormat format, const std::string& source_name,
                                   const TraceOptions& options)
{
  std::vector<model::Pod> pods;
  read_into(in, format, source_name, options, pods);
  return pods;
}

std::vector<model::Pod> read_trace(const std::string& path, TraceFormat format, const TraceOptions& options)
{
  std::ifstream in = open_input(path, options.referenced_from);
  std::vector<model::Pod> pods;
  if (format != TraceFormat::kubectl) {
    pods.reserve(count_lines(path)); // one allocation of the final size, no doubling
  }
  read_into(in, format, path, options, pods);
  return pods;
}

void write_trace(std::ostream& out, const std::vector<model::Pod>& pods, TraceFormat format)
{
  bool gpu = false;
  bool priority = false;
  bool duration = false;
  bool departure = false;
  for (const auto& p : pods) {
    gpu = gpu || p.requests[model::k_nvidia_gpu] != 0;
    priority = priority || (p.spec && p.spec->priority != 0);
    duration = duration || p.runtime >= 0;
    departure = departure || p.departure >= 0;
  }
  const auto memory_text = [](std::int64_t bytes) {
    if (bytes % k_mib == 0) {
      return fmt::format("{}Mi", bytes / k_mib);
    }
    if (bytes % k_kib == 0) {
      return fmt::format("{}Ki", bytes / k_kib);
    }
    return fmt::format("{}e0", bytes); // a bare number would mean MiB
  };
  const auto csv_text = [](const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
      return s;
    }
    std::string q = "\"";
    for (const char c : s) {
      if (c == '"') {
        q += '"';
      }
      q += c;
    }
    return q + "\"";
  };
  if (format == TraceFormat::csv) {
    std::string header = "arrival";
    if (duration) {
      header += ",duration";
    }
    if (departure) {
      header += ",departure";
    }
    header += ",cpu,memory";
    if (gpu) {
      header += ",gpu";
    }
    header += ",template,name";
    if (priority) {
      header += ",priority";
    }
    out << header << '\n';
    std::string line;
    for (const auto& p : pods) {
      line = format_seconds(p.arrival);
      if (duration) {
        line += ',';
        line += p.runtime >= 0 ? format_seconds(p.runtime) : "";
      }
      if (departure) {
        line += ',';
        line += p.departure >= 0 ? format_seconds(p.departure) : "";
      }
      line += fmt::format(",{}m,{}", p.requests.cpu(), memory_text(p.requests.memory()));
      if (gpu) {
        line += fmt::format(",{}", p.requests[model::k_nvidia_gpu]);
      }
      line += ',';
      line += csv_text(p.spec ? p.spec->template_name : "");
      line += ',';
      line += csv_text(p.name);
      if (priority) {
        line += fmt::format(",{}", p.spec ? p.spec->priority : 0);
      }
      line += '\n';
      out << line;
    }
    return;
  }
  CAPSIM_CHECK(format == TraceFormat::jsonl, "write_trace writes csv or jsonl");
  for (const auto& p : pods) {
    nlohmann::ordered_json row;
    row["arrival"] = format_seconds(p.arrival);
    if (p.runtime >= 0) {
      row["duration"] = format_seconds(p.runtime);
    }
    if (p.departure >= 0) {
      row["departure"] = format_seconds(p.departure);
    }
    row["cpu"] = fmt::format("{}m", p.requests.cpu());
    row["memory"] = memory_text(p.requests.memory());
    if (p.requests[model::k_nvidia_gpu] != 0) {
      row["gpu"] = p.requests[model::k_nvidia_gpu];
    }
    if (p.spec && !p.spec->template_name.empty()) {
      row["template"] = p.spec->template_name;
    }
    row["name"] = p.name;
    if (p.spec && p.spec->priority != 0) {
      row["priority"] = p.spec->priority;
    }
    out << row.dump() << '\n';
  }
}

} // namespace capsim::io
