// Plain-text and Markdown renderers (render.hpp).
#include "core/report/format.hpp"
#include "core/report/render.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace capsim::report {

namespace {

// One cell of a text grid.
struct Cell
{
  std::string text;
  bool right = false;
  const char* ansi = nullptr; // color escape, or nullptr
};

using Grid = std::vector<std::vector<Cell>>;

// Lays out `rows` with two spaces between columns; trailing spaces are trimmed.
std::string render_grid(const Grid& rows, const std::string& indent = "")
{
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) {
      width.resize(row.size(), 0);
    }
    for (std::size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], display_width(row[c].text));
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) {
        line += "  ";
      }
      const auto& cell = row[c];
      const std::string pad(width[c] - display_width(cell.text), ' ');
      const std::string text = cell.ansi != nullptr && !cell.text.empty() ? std::string(cell.ansi) + cell.text + "\x1b[0m"
                                                                          : cell.text;
      line += cell.right ? pad + text : text + pad;
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  return out;
}

std::string header_line(const Comparison& cmp)
{
  if (cmp.designs.empty()) {
    return fmt::format("capsim {}\n", CAPSIM_VERSION);
  }
  const auto& first = cmp.designs.front().result;
  const std::string version = first.version.empty() ? std::string(CAPSIM_VERSION) : first.version;
  std::string what;
  if (cmp.designs.size() == 1) {
    what = first.scenario;
  } else {
    what = "compare";
    for (std::size_t i = 0; i < cmp.designs.size(); ++i) {
      what += (i == 0 ? " " : ", ") + cmp.designs[i].name;
    }
  }
  return fmt::format("capsim {} · {} · seed {} · {} · {}\n", version, what, first.seed, first.region,
                     human_duration(first.duration));
}

std::string cores(std::int64_t millis)
{
  return fmt::format("{:.2f}", static_cast<double>(millis) / 1000.0);
}

std::string gib(std::int64_t bytes)
{
  return fmt::format("{:.1f}Gi", static_cast<double>(bytes) / static_cast<double>(k_gib));
}

std::string timeline_table(const EngineResult& r)
{
  std::vector<double> rates;
  std::vector<double> cumulative;
  for (const auto& t : r.timeline) {
    rates.push_back(t.cost_rate_per_hour);
    cumulative.push_back(t.cost_cumulative);
  }
  const int rate_places = money_decimals(rates);
  const int cumulative_places = money_decimals(cumulative);
  Grid g;
  g.push_back({{"t"}, {"nodes", true}, {"$/h", true}, {"cost", true}, {"pending", true}, {"cpu req", true},
               {"cpu alloc", true}, {"mem req", true}, {"mem alloc", true}});
  for (const auto& t : r.timeline) {
    g.push_back({{human_duration(t.t)},
                 {std::to_string(t.nodes), true},
                 {human_money(t.cost_rate_per_hour, rate_places), true},
                 {human_money(t.cost_cumulative, cumulative_places), true},
                 {std::to_string(t.pending), true},
                 {cores(t.cpu_requested_m), true},
                 {cores(t.cpu_allocatable_m), true},
                 {gib(t.memory_requested), true},
                 {gib(t.memory_allocatable), true}});
  }
  return render_grid(g, "  ");
}

} // namespace

std::string render_decisions(const EngineResult& result)
{
  std::vector<double> savings;
  for (const auto& d : result.decisions) {
    savings.push_back(d.saving_per_hour);
  }
  const int places = money_decimals(savings);
  Grid g;
  g.push_back({{"t"}, {"method"}, {"action"}, {"candidate"}, {"detail"}, {"saving/h", true}});
  for (const auto& d : result.decisions) {
    g.push_back({{human_duration(d.t)},
                 {d.method},
                 {d.action},
                 {d.candidate},
                 {d.detail},
                 {d.saving_per_hour != 0.0 ? human_money(d.saving_per_hour, places) : "", true}});
  }
  return render_grid(g, "  ");
}

std::string render_table(const Comparison& cmp, const RenderOptions& options)
{
  const auto columns = columns_of(cmp);
  const auto rows = summary_rows(columns);
  const bool deltas = options.deltas && columns.size() > 1;
  Grid g;
  std::vector<Cell> head{{""}};
  for (std::size_t c = 0; c < columns.size(); ++c) {
    head.push_back({columns[c].label, true});
    if (deltas && columns[c].baseline) {
      head.push_back({"Δ vs " + columns[*columns[c].baseline].label});
    }
  }
  g.push_back(head);
  std::string section;
  for (const auto& row : rows) {
    if (row.section != section) {
      section = row.section;
      g.push_back({{section}});
    }
    const int places = money_decimals(row.values);
    std::vector<Cell> line{{"  " + row.label}};
    for (std::size_t c = 0; c < columns.size(); ++c) {
      line.push_back({human_value(row.values[c], row.kind, places), true});
      if (deltas && columns[c].baseline) {
        const auto d = compute_delta(row.values[*columns[c].baseline], row.values[c], row.kind, row.better);
        const char* ansi = !options.color ? nullptr : d.worse ? "\x1b[31m" : d.better ? "\x1b[32m" : nullptr;
        line.push_back({d.sign == 0 ? "" : human_delta(d, row.kind, places), false, ansi});
      }
    }
    g.push_back(std::move(line));
  }
  std::string out = header_line(cmp) + "\n" + render_grid(g);
  for (const auto& c : columns) {
    for (const auto& w : c.result->warnings) {
      out += "warning: " + c.label + ": " + w + "\n";
    }
  }
  for (const auto& c : columns) {
    if (!c.result->timeline.empty()) {
      out += "\nTimeline: " + c.label + "\n" + timeline_table(*c.result);
    }
  }
  for (const auto& c : columns) {
    if (!c.result->decisions.empty()) {
      out += "\nDecisions: " + c.label + "\n" + render_decisions(*c.result);
    }
  }
  return out;
}

std::string render_markdown(const Comparison& cmp, const RenderOptions& options)
{
  const auto columns = columns_of(cmp);
  const auto rows = summary_rows(columns);
  const bool deltas = options.deltas && columns.size() > 1;
  std::string out;
  if (!cmp.designs.empty()) {
    const auto& first = cmp.designs.front().result;
    const std::string version = first.version.empty() ? std::string(CAPSIM_VERSION) : first.version;
    if (cmp.designs.size() == 1) {
      out += "### capsim: " + markdown_escape(first.scenario) + "\n\n";
    } else {
      out += "### capsim compare:";
      for (std::size_t i = 0; i < cmp.designs.size(); ++i) {
        out += (i == 0 ? " " : ", ") + markdown_escape(cmp.designs[i].name);
      }
      out += "\n\n";
    }
    out += fmt::format("seed {} · {} · {} · capsim {}\n\n", first.seed, markdown_escape(first.region),
                       human_duration(first.duration), markdown_escape(version));
  }
  out += "| metric |";
  std::string rule = "|:--|";
  for (const auto& c : columns) {
    out += " " + markdown_escape(c.label) + " |";
    rule += "--:|";
  }
  out += "\n" + rule + "\n";
  std::string section;
  for (const auto& row : rows) {
    if (row.section != section) {
      section = row.section;
      out += "| **" + markdown_escape(section) + "** |";
      for (std::size_t c = 0; c < columns.size(); ++c) {
        out += " |";
      }
      out += "\n";
    }
    out += "| " + markdown_escape(row.label) + " |";
    const int places = money_decimals(row.values);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::string cell = human_value(row.values[c], row.kind, places);
      if (deltas && columns[c].baseline) {
        const auto d = compute_delta(row.values[*columns[c].baseline], row.values[c], row.kind, row.better);
        if (d.sign != 0) {
          const std::string text = human_delta(d, row.kind, places);
          cell += d.worse ? " **" + text + "**" : " " + text;
        }
      }
      out += " " + cell + " |";
    }
    out += "\n";
  }
  if (deltas) {
    out += "\nDeltas are against **" + markdown_escape(columns[0].design) + "**; worse changes are in bold.\n";
  }
  bool any_warning = false;
  for (const auto& c : columns) {
    for (const auto& w : c.result->warnings) {
      if (!any_warning) {
        out += "\n";
        any_warning = true;
      }
      out += "- ⚠️ " + markdown_escape(c.label) + ": " + markdown_escape(w) + "\n";
    }
  }
  for (const auto& c : columns) {
    if (c.result->decisions.empty()) {
      continue;
    }
    out += "\n<details><summary>Decisions: " + html_escape(c.label) + " (" + std::to_string(c.result->decisions.size()) +
           ")</summary>\n\n| t | method | action | candidate | detail | saving/h |\n|:--|:--|:--|:--|:--|--:|\n";
    for (const auto& d : c.result->decisions) {
      out += "| " + human_duration(d.t) + " | " + markdown_escape(d.method) + " | " + markdown_escape(d.action) + " | " +
             markdown_escape(d.candidate) + " | " + markdown_escape(d.detail) + " | " +
             (d.saving_per_hour != 0.0 ? human_money(d.saving_per_hour) : "") + " |\n";
    }
    out += "\n</details>\n";
  }
  return out;
}

} // namespace capsim::report
