#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace capsim::cli {

// --progress auto|always|never.
enum class ProgressMode { automatic, always, never };

[[nodiscard]] std::optional<ProgressMode> parse_progress_mode(std::string_view text);

// A progress bar on stderr (never stdout, so machine output stays clean).
// - never: nothing.
// - automatic: only when `out` is a terminal, and only once the work has lasted about a
//   second (quick runs print nothing); redrawn in place with '\r' and erased at the end.
// - always: from the first update; on a terminal redrawn in place, elsewhere (logs) one line
//   per 10% step.
class ProgressBar
{
public:
  ProgressBar(ProgressMode mode, std::string label, std::FILE* out = stderr);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // fraction in [0, 1] of the work done (values outside are clamped). Redraws at most every
  // 100 ms on a terminal.
  void update(double fraction);

  // Erases the bar (terminal) or prints the last line (logs). Idempotent.
  void finish();

  [[nodiscard]] bool enabled() const { return m_enabled; }

  // Delay before the bar appears in automatic mode.
  static constexpr std::chrono::milliseconds k_delay{1000};

private:
  void draw(double fraction);

  std::FILE* m_out;
  std::string m_label;
  bool m_enabled = false;
  bool m_terminal = false;
  bool m_delayed = false;
  bool m_drawn = false;
  bool m_finished = false;
  int m_last_decile = -1;
  double m_last_fraction = 0;
  std::chrono::steady_clock::time_point m_start;
  std::chrono::steady_clock::time_point m_last_draw;
};

} // namespace capsim::cli
