#include "cli/output/progress.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace capsim::cli {

std::optional<ProgressMode> parse_progress_mode(std::string_view text)
{
  if (text == "auto") {
    return ProgressMode::automatic;
  }
  if (text == "always") {
    return ProgressMode::always;
  }
  if (text == "never") {
    return ProgressMode::never;
  }
  return std::nullopt;
}

ProgressBar::ProgressBar(ProgressMode mode, std::string label, std::FILE* out)
  : m_out(out), m_label(std::move(label)), m_start(std::chrono::steady_clock::now())
{
  m_terminal = out != nullptr && ::isatty(::fileno(out)) == 1;
  m_enabled = out != nullptr && (mode == ProgressMode::always || (mode == ProgressMode::automatic && m_terminal));
  m_delayed = mode == ProgressMode::automatic;
}

ProgressBar::~ProgressBar()
{
  finish();
}

void ProgressBar::update(double fraction)
{
  if (!m_enabled || m_finished) {
    return;
  }
  fraction = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.0;
  m_last_fraction = fraction;
  const auto now = std::chrono::steady_clock::now();
  if (m_delayed && now - m_start < k_delay) {
    return;
  }
  if (m_terminal) {
    if (m_drawn && now - m_last_draw < std::chrono::milliseconds(100) && fraction < 1.0) {
      return;
    }
    m_last_draw = now;
    draw(fraction);
    return;
  }
  const int decile = static_cast<int>(std::floor(fraction * 10.0));
  if (decile > m_last_decile) {
    m_last_decile = decile;
    draw(fraction);
  }
}

void ProgressBar::draw(double fraction)
{
  if (m_terminal) {
    constexpr int k_cells = 30;
    const int full = static_cast<int>(std::lround(fraction * k_cells));
    const std::string bar = std::string(static_cast<std::size_t>(full), '#') + std::string(static_cast<std::size_t>(k_cells - full), '-');
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    fmt::print(m_out, "\r{} [{}] {:3.0f}% {:.1f}s\x1b[K", m_label, bar, fraction * 100.0, elapsed);
  } else {
    fmt::print(m_out, "{}: {:.0f}%\n", m_label, fraction * 100.0);
  }
  std::fflush(m_out);
  m_drawn = true;
}

void ProgressBar::finish()
{
  if (m_finished) {
    return;
  }
  m_finished = true;
  if (!m_enabled || !m_drawn) {
    return;
  }
  if (m_terminal) {
    fmt::print(m_out, "\r\x1b[K"); // erase the bar; logs keep their lines
    std::fflush(m_out);
  }
}

} // namespace capsim::cli
