// `capsim bound` output (render.hpp).
#include "core/report/format.hpp"
#include "core/report/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace capsim::report {

std::string render_bound(const RunResult& run, Format format)
{
  const std::string version = run.version.empty() ? std::string(CAPSIM_VERSION) : run.version;
  switch (format) {
  case Format::json: {
    std::string out = fmt::format("{{\n  \"capsim\": {{\"version\": \"{}\"}},\n  \"scenario\": \"{}\",\n  \"seed\": {},\n  "
                                  "\"region\": \"{}\",\n  \"duration_s\": {},\n  \"bounds\": [",
                                  json_escape(version), json_escape(run.scenario), run.seed, json_escape(run.region),
                                  seconds_text(run.duration));
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      const auto& r = run.results[i];
      out += fmt::format("{}\n    {{\"engine\": \"{}\", \"lower_bound_usd\": {}, \"total_usd\": {}, \"efficiency\": {}}}",
                         i == 0 ? "" : ",", json_escape(r.engine), fixed_number(r.lower_bound.total_usd, k_money_decimals),
                         fixed_number(r.cost.total_usd, k_money_decimals),
                         fixed_number(r.lower_bound.efficiency, k_ratio_decimals));
    }
    out += run.results.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return out;
  }
  case Format::csv: {
    std::string out = "engine,lower_bound_usd,total_usd,efficiency\n";
    for (const auto& r : run.results) {
      out += csv_field(r.engine) + "," + fixed_number(r.lower_bound.total_usd, k_money_decimals) + "," +
             fixed_number(r.cost.total_usd, k_money_decimals) + "," + fixed_number(r.lower_bound.efficiency, k_ratio_decimals) +
             "\n";
    }
    return out;
  }
  case Format::markdown: {
    std::string out = "| engine | lower bound | total cost | efficiency |\n|:--|--:|--:|--:|\n";
    for (const auto& r : run.results) {
      const int places = money_decimals({r.lower_bound.total_usd, r.cost.total_usd});
      out += "| " + markdown_escape(r.engine) + " | " + human_money(r.lower_bound.total_usd, places) + " | " +
             human_money(r.cost.total_usd, places) + " | " + human_percent(r.lower_bound.efficiency) + " |\n";
    }
    return out;
  }
  case Format::table:
  case Format::html: break;
  }
  std::vector<double> money;
  std::size_t engine_w = std::string("engine").size();
  for (const auto& r : run.results) {
    money.push_back(r.lower_bound.total_usd);
    money.push_back(r.cost.total_usd);
    engine_w = std::max(engine_w, display_width(r.engine));
  }
  const int places = money_decimals(money);
  std::vector<std::array<std::string, 3>> cells;
  std::array<std::size_t, 3> w{std::string("lower bound").size(), std::string("total cost").size(),
                               std::string("efficiency").size()};
  for (const auto& r : run.results) {
    cells.push_back({human_money(r.lower_bound.total_usd, places), human_money(r.cost.total_usd, places),
                     human_percent(r.lower_bound.efficiency)});
    for (std::size_t i = 0; i < 3; ++i) {
      w[i] = std::max(w[i], display_width(cells.back()[i]));
    }
  }
  std::string out = fmt::format("capsim {} · {} · seed {} · {} · {}\n\n", version, run.scenario, run.seed, run.region,
                                human_duration(run.duration));
  out += fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}\n", "engine", engine_w, "lower bound", w[0], "total cost", w[1],
                     "efficiency", w[2]);
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    out += fmt::format("{:<{}}  {:>{}}  {:>{}}  {:>{}}\n", run.results[i].engine, engine_w, cells[i][0], w[0], cells[i][1],
                       w[1], cells[i][2], w[2]);
  }
  out += "\nThe lower bound integrates, over time, the cheapest fractional cover of the running pods'\n"
         "summed requests by the instance types they may use: no real packing can cost less.\n";
  return out;
}

} // namespace capsim::report
