#include "core/karpenter/disruption_budget.hpp"

#include "core/base/diagnostics.hpp"
#include "core/base/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <string>

namespace capsim::karpenter {

namespace {

constexpr std::int64_t k_max_int32 = std::numeric_limits<std::int32_t>::max();

// One cron field's range and its names (robfig/cron bounds).
struct Bounds
{
  unsigned min = 0;
  unsigned max = 0;
  const std::array<std::string_view, 12>* names = nullptr;
  unsigned name_base = 0; // value of names[0]
  std::size_t name_count = 0;
};

constexpr std::array<std::string_view, 12> k_month_names = {"jan", "feb", "mar", "apr", "may", "jun",
                                                            "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> k_day_names = {"sun", "mon", "tue", "wed", "thu", "fri", "sat",
                                                          "",    "",    "",    "",    ""};

constexpr Bounds k_minute_bounds{0, 59, nullptr, 0, 0};
constexpr Bounds k_hour_bounds{0, 23, nullptr, 0, 0};
constexpr Bounds k_dom_bounds{1, 31, nullptr, 0, 0};
constexpr Bounds k_month_bounds{1, 12, &k_month_names, 1, 12};
constexpr Bounds k_dow_bounds{0, 6, &k_day_names, 0, 7};

struct FieldBits
{
  std::uint64_t bits = 0;
  bool star = false;
};

std::string lower(std::string_view s)
{
  std::string out(s);
  for (auto& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

Expected<unsigned> parse_number(std::string_view text)
{
  unsigned v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    // (fmt, not "'" + std::string(text): GCC 12 warns -Wrestrict on that concatenation.)
    return Expected<unsigned>::failure(fmt::format("'{}' is not a number", text));
  }
  return v;
}

Expected<unsigned> parse_int_or_name(std::string_view text, const Bounds& b)
{
  if (b.names != nullptr) {
    const std::string l = lower(text);
    for (std::size_t i = 0; i < b.name_count; ++i) {
      if ((*b.names)[i] == l) {
        return static_cast<unsigned>(b.name_base + i);
      }
    }
  }
  return parse_number(text);
}

// robfig/cron getRange: "*", "?", "a", "a-b", each with an optional "/step" ("a/step" runs to
// the maximum).
Expected<FieldBits> parse_range(std::string_view expr, const Bounds& b)
{
  const auto range_and_step = split(expr, '/');
  if (range_and_step.size() > 2) {
    return Expected<FieldBits>::failure("too many slashes in '" + std::string(expr) + "'");
  }
  const auto low_high = split(range_and_step[0], '-');
  if (low_high.size() > 2) {
    return Expected<FieldBits>::failure("too many hyphens in '" + std::string(expr) + "'");
  }
  unsigned start = 0;
  unsigned end = 0;
  bool star = false;
  if (low_high[0] == "*" || low_high[0] == "?") {
    start = b.min;
    end = b.max;
    star = true;
  } else {
    const auto s = parse_int_or_name(low_high[0], b);
    if (!s) {
      return Expected<FieldBits>::failure(s.error());
    }
    start = *s;
    end = start;
    if (low_high.size() == 2) {
      const auto e = parse_int_or_name(low_high[1], b);
      if (!e) {
        return Expected<FieldBits>::failure(e.error());
      }
      end = *e;
    }
  }
  unsigned step = 1;
  if (range_and_step.size() == 2) {
    const auto st = parse_number(range_and_step[1]);
    if (!st) {
      return Expected<FieldBits>::failure(st.error());
    }
    step = *st;
    if (low_high.size() == 1) {
      end = b.max;
    }
    if (step > 1) {
      star = false;
    }
  }
  if (start < b.min) {
    return Expected<FieldBits>::failure("beginning of range (" + std::to_string(start) + ") below minimum ("
                                        + std::to_string(b.min) + ") in '" + std::string(expr) + "'");
  }
  if (end > b.max) {
    return Expected<FieldBits>::failure("end of range (" + std::to_string(end) + ") above maximum ("
                                        + std::to_string(b.max) + ") in '" + std::string(expr) + "'");
  }
  if (start > end) {
    return Expected<FieldBits>::failure("beginning of range (" + std::to_string(start) + ") beyond end of range ("
                                        + std::to_string(end) + "): " + std::string(expr));
  }
  if (step == 0) {
    return Expected<FieldBits>::failure("step of range should be a positive number in '" + std::string(expr) + "'");
  }
  FieldBits out;
  for (unsigned v = start; v <= end; v += step) {
    out.bits |= std::uint64_t{1} << v;
  }
  out.star = star;
  return out;
}

// A comma-separated list of ranges.
Expected<FieldBits> parse_field(std::string_view field, const Bounds& b)
{
  FieldBits out;
  for (const auto& part : split(field, ',')) {
    const auto r = parse_range(part, b);
    if (!r) {
      return r;
    }
    out.bits |= r.value().bits;
    out.star = out.star || r.value().star;
  }
  return out;
}

std::uint64_t all_bits(const Bounds& b)
{
  std::uint64_t bits = 0;
  for (unsigned v = b.min; v <= b.max; ++v) {
    bits |= std::uint64_t{1} << v;
  }
  return bits;
}

// Floor division for possibly negative times.
std::int64_t floor_div(std::int64_t a, std::int64_t b)
{
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil inverse).
struct CivilDay
{
  unsigned month = 1; // 1..12
  unsigned day = 1;   // 1..31
  unsigned weekday = 0; // 0 = Sunday
};

CivilDay civil_from_days(std::int64_t z)
{
  CivilDay out;
  out.weekday = static_cast<unsigned>(((z % 7) + 7 + 4) % 7); // 1970-01-01 was a Thursday
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  out.day = doy - (153 * mp + 2) / 5 + 1;
  out.month = mp < 10 ? mp + 3 : mp - 9;
  return out;
}

bool day_matches(const CronSchedule& s, std::int64_t day_index)
{
  const CivilDay c = civil_from_days(day_index);
  if ((s.months & (1U << c.month)) == 0) {
    return false;
  }
  const bool dom = (s.days & (1U << c.day)) != 0;
  const bool dow = (s.weekdays & (1U << c.weekday)) != 0;
  if (s.days_star || s.weekdays_star) {
    return dom && dow;
  }
  return dom || dow;
}

} // namespace

bool CronSchedule::matches(SimTime t) const
{
  const std::int64_t day = floor_div(t, k_day);
  const std::int64_t in_day = t - day * k_day;
  const auto minute_of_day = static_cast<unsigned>(in_day / k_minute);
  return (hours & (1U << (minute_of_day / 60))) != 0 && (minutes & (std::uint64_t{1} << (minute_of_day % 60))) != 0
         && day_matches(*this, day);
}

Expected<CronSchedule> parse_cron(std::string_view text)
{
  text = trim(text);
  if (text.substr(0, 7) == "TZ=UTC " || text.substr(0, 12) == "CRON_TZ=UTC ") {
    text = trim(text.substr(text.find(' ') + 1));
  }
  CronSchedule s;
  if (!text.empty() && text[0] == '@') {
    const std::string d = lower(text);
    s.minutes = 1;
    s.hours = 1;
    s.days = static_cast<std::uint32_t>(all_bits(k_dom_bounds));
    s.months = static_cast<std::uint32_t>(all_bits(k_month_bounds));
    s.weekdays = static_cast<std::uint32_t>(all_bits(k_dow_bounds));
    s.days_star = true;
    s.weekdays_star = true;
    if (d == "@yearly" || d == "@annually") {
      s.days = 1U << 1;
      s.months = 1U << 1;
      s.days_star = false;
    } else if (d == "@monthly") {
      s.days = 1U << 1;
      s.days_star = false;
    } else if (d == "@weekly") {
      s.weekdays = 1U << 0;
      s.weekdays_star = false;
    } else if (d == "@daily" || d == "@midnight") {
    } else if (d == "@hourly") {
      s.hours = static_cast<std::uint32_t>(all_bits(k_hour_bounds));
    } else {
      return Expected<CronSchedule>::failure("unrecognized descriptor '" + std::string(text) + "'");
    }
    return s;
  }
  std::vector<std::string> fields;
  std::string current;
  for (const char c : text) {
    if (c == ' ' || c == '\t') {
      if (!current.empty()) {
        fields.push_back(current);
        current.clear();
      }
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) {
    fields.push_back(current);
  }
  if (fields.size() != 5) {
    return Expected<CronSchedule>::failure("expected exactly 5 fields, found " + std::to_string(fields.size()) + ": '"
                                           + std::string(text) + "'");
  }
  const Bounds* bounds[] = {&k_minute_bounds, &k_hour_bounds, &k_dom_bounds, &k_month_bounds, &k_dow_bounds};
  FieldBits parsed[5];
  for (std::size_t i = 0; i < 5; ++i) {
    auto f = parse_field(fields[i], *bounds[i]);
    if (!f) {
      return Expected<CronSchedule>::failure(f.error());
    }
    parsed[i] = *f;
  }
  s.minutes = parsed[0].bits;
  s.hours = static_cast<std::uint32_t>(parsed[1].bits);
  s.days = static_cast<std::uint32_t>(parsed[2].bits);
  s.days_star = parsed[2].star;
  s.months = static_cast<std::uint32_t>(parsed[3].bits);
  s.weekdays = static_cast<std::uint32_t>(parsed[4].bits);
  s.weekdays_star = parsed[4].star;
  return s;
}

Expected<bool> budget_active(const model::DisruptionBudget& budget, SimTime now)
{
  if (!budget.schedule && !budget.duration) {
    return true;
  }
  const auto schedule = parse_cron(budget.schedule.value_or(""));
  if (!schedule) {
    return Expected<bool>::failure(schedule.error());
  }
  const Duration duration = budget.duration.value_or(0);
  if (duration <= 0) {
    return false;
  }
  // The latest scheduled minute at or before now; active when it is after now - duration.
  // Scanning is bounded: every satisfiable pattern recurs within 28 years.
  const SimTime low = duration >= k_never / 2 ? std::numeric_limits<SimTime>::min() / 2 : now - duration;
  const std::int64_t today = floor_div(now, k_day);
  const std::int64_t first_day = std::max(floor_div(low, k_day), today - 28 * 366);
  for (std::int64_t day = today; day >= first_day; --day) {
    if (!day_matches(*schedule, day)) {
      continue;
    }
    const int bound = day == today ? static_cast<int>((now - day * k_day) / k_minute) : 24 * 60 - 1;
    for (int h = bound / 60; h >= 0; --h) {
      if ((schedule.value().hours & (1U << h)) == 0) {
        continue;
      }
      for (int m = h == bound / 60 ? bound % 60 : 59; m >= 0; --m) {
        if ((schedule.value().minutes & (std::uint64_t{1} << m)) != 0) {
          const SimTime t = day * k_day + h * k_hour + m * k_minute;
          return t > low;
        }
      }
    }
  }
  return false;
}

std::int64_t budget_allowed(const model::DisruptionBudget& budget, std::int64_t num_nodes, SimTime now)
{
  const auto active = budget_active(budget, now);
  if (!active) {
    return 0; // misconfigured: fail closed
  }
  if (!*active) {
    return k_max_int32;
  }
  std::string_view nodes = trim(budget.nodes);
  const bool percent = !nodes.empty() && nodes.back() == '%';
  if (percent) {
    nodes.remove_suffix(1);
  }
  std::int64_t value = 0;
  const auto* end = nodes.data() + nodes.size();
  const auto [ptr, ec] = std::from_chars(nodes.data(), end, value);
  if (nodes.empty() || ec != std::errc() || ptr != end || value < 0) {
    return 0;
  }
  if (!percent) {
    return value;
  }
  // intstr.GetScaledValueFromIntOrPercent(..., roundUp=true)
  return (value * num_nodes + 99) / 100;
}

std::int64_t allowed_disruptions(const model::NodePool& pool, std::int64_t num_nodes, model::DisruptionReason reason,
                                 SimTime now)
{
  std::int64_t allowed = k_max_int32;
  for (const auto& b : pool.budgets) {
    if (!b.reasons.empty() && std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end()) {
      continue;
    }
    allowed = std::min(allowed, budget_allowed(b, num_nodes, now));
  }
  return allowed;
}

std::vector<PoolDisruptionCounts> pool_disruption_counts(const cluster::Cluster& cluster, std::size_t pool_count)
{
  // The counts read only what changes with a node's stamp: kept per cluster from its node log
  // (every method of a poll asks, and a walk on each node change read every live node's record).
  struct Share
  {
    std::uint32_t pool = cluster::k_none; // counted in this NodePool, or not counted
    bool disrupting = false;
  };
  struct Memo
  {
    std::uint64_t cluster = 0;
    std::size_t log_seen = 0;
    std::vector<PoolDisruptionCounts> counts;
    std::vector<Share> shares; // per node
  };
  thread_local Memo memo;
  if (memo.cluster != cluster.instance_id() || memo.counts.size() != pool_count) {
    memo = Memo{cluster.instance_id(), 0, std::vector<PoolDisruptionCounts>(pool_count), {}};
  }
  const auto& log = cluster.node_log();
  for (; memo.log_seen < log.size(); ++memo.log_seen) {
    const cluster::NodeIndex i = log[memo.log_seen];
    const auto& n = cluster.node(i);
    Share now;
    if (n.owner == cluster::NodeOwner::node_pool && n.pool < pool_count && n.alive() && n.ready_at >= 0) {
      now = {n.pool, n.lifecycle == cluster::NodeLifecycle::deleting || n.disrupted_taint};
    }
    if (memo.shares.size() <= i) {
      memo.shares.resize(static_cast<std::size_t>(i) + 1);
    }
    Share& was = memo.shares[i];
    if (was.pool != cluster::k_none) {
      --memo.counts[was.pool].nodes;
      memo.counts[was.pool].disrupting -= was.disrupting ? 1 : 0;
    }
    if (now.pool != cluster::k_none) {
      ++memo.counts[now.pool].nodes;
      memo.counts[now.pool].disrupting += now.disrupting ? 1 : 0;
    }
    was = now;
  }
#ifndef NDEBUG
  std::vector<PoolDisruptionCounts> counts(pool_count);
  for (const cluster::NodeIndex i : cluster.alive_node_indices()) {
    const auto& n = cluster.node(i);
    if (n.owner != cluster::NodeOwner::node_pool || n.pool >= pool_count || !n.alive() || n.ready_at < 0) {
      continue;
    }
    ++counts[n.pool].nodes;
    if (n.lifecycle == cluster::NodeLifecycle::deleting || n.disrupted_taint) {
      ++counts[n.pool].disrupting;
    }
  }
  CAPSIM_CHECK(std::equal(counts.begin(), counts.end(), memo.counts.begin(),
                          [](const PoolDisruptionCounts& a, const PoolDisruptionCounts& b) {
                            return a.nodes == b.nodes && a.disrupting == b.disrupting;
                          }),
               "disruption budgets: kept counts differ from a fresh count");
#endif
  return memo.counts;
}

std::vector<std::int64_t> budget_mapping(const std::vector<model::NodePool>& pools, const cluster::Cluster& cluster,
                                         model::DisruptionReason reason, SimTime now)
{
  const auto counts = pool_disruption_counts(cluster, pools.size());
  std::vector<std::int64_t> out(pools.size(), 0);
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const std::int64_t allowed = allowed_disruptions(pools[i], counts[i].nodes, reason, now);
    out[i] = std::max<std::int64_t>(allowed - counts[i].disrupting, 0);
  }
  return out;
}

std::string_view to_string(model::DisruptionReason reason)
{
  switch (reason) {
  case model::DisruptionReason::underutilized: return "Underutilized";
  case model::DisruptionReason::empty: return "Empty";
  case model::DisruptionReason::drifted: return "Drifted";
  }
  return "Unknown";
}

} // namespace capsim::karpenter
