#include "core/scheduling/score_memos.hpp"

#include <algorithm>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace capsim::scheduling {

void ScoreMemos::resize(std::size_t positions)
{
  constexpr std::size_t k_block = 64;
  if (positions + k_block > m_stride) {
    // Laid out anew with room to grow (doubling: the list grows by a node at a time).
    const std::size_t stride = std::max(positions + k_block, 2 * m_stride);
    std::vector<std::uint16_t> shape(k_slots * stride, 0);
    std::vector<std::uint8_t> fit(k_slots * stride, 0);
    std::vector<std::uint8_t> balanced(k_slots * stride, 0);
    const std::size_t kept = std::min(m_size, positions);
    for (std::size_t s = 0; s < k_slots; ++s) {
      std::copy_n(m_shape.begin() + static_cast<std::ptrdiff_t>(s * m_stride), kept,
                  shape.begin() + static_cast<std::ptrdiff_t>(s * stride));
      std::copy_n(m_fit.begin() + static_cast<std::ptrdiff_t>(s * m_stride), kept,
                  fit.begin() + static_cast<std::ptrdiff_t>(s * stride));
      std::copy_n(m_balanced.begin() + static_cast<std::ptrdiff_t>(s * m_stride), kept,
                  balanced.begin() + static_cast<std::ptrdiff_t>(s * stride));
    }
    m_shape.swap(shape);
    m_fit.swap(fit);
    m_balanced.swap(balanced);
    m_stride = stride;
  } else if (positions < m_size) {
    for (std::size_t s = 0; s < k_slots; ++s) { // what is past the end stays empty
      std::fill_n(m_shape.begin() + static_cast<std::ptrdiff_t>(s * m_stride + positions), m_size - positions, 0);
    }
  }
  m_size = positions;
}

void ScoreMemos::clear()
{
  m_size = 0;
  m_stride = 0;
  m_shape.clear();
  m_fit.clear();
  m_balanced.clear();
}

void ScoreMemos::forget(std::size_t pos)
{
  for (std::size_t s = 0; s < k_slots; ++s) {
    m_shape[s * m_stride + pos] = 0;
  }
}

void ScoreMemos::forget_all()
{
  std::fill(m_shape.begin(), m_shape.end(), 0);
}

ScoreMemos::Entries ScoreMemos::entries(std::size_t pos) const
{
  Entries out;
  for (std::size_t s = 0; s < k_slots; ++s) {
    out[s] = get(s, pos);
  }
  return out;
}

void ScoreMemos::set_entries(std::size_t pos, const Entries& entries)
{
  for (std::size_t s = 0; s < k_slots; ++s) {
    set(s, pos, entries[s]);
  }
}

void ScoreMemos::assign_range(const ScoreMemos& from, std::size_t first, std::size_t last)
{
  resize(last - first);
  for (std::size_t s = 0; s < k_slots; ++s) {
    const auto at = static_cast<std::ptrdiff_t>(s * from.m_stride + first);
    const auto to = static_cast<std::ptrdiff_t>(s * m_stride);
    const auto n = static_cast<std::ptrdiff_t>(last - first);
    std::copy(from.m_shape.begin() + at, from.m_shape.begin() + at + n, m_shape.begin() + to);
    std::copy(from.m_fit.begin() + at, from.m_fit.begin() + at + n, m_fit.begin() + to);
    std::copy(from.m_balanced.begin() + at, from.m_balanced.begin() + at + n, m_balanced.begin() + to);
  }
}

void ScoreMemos::copy_range(std::size_t to, const ScoreMemos& from, std::size_t at, std::size_t n)
{
  if (n == 1) { // (most runs: a call to memmove per array would cost more than the entries)
    // (Through local pointers: a byte stored through a member's data() could alias the members,
    // which would be read again after each store.)
    std::uint16_t* const shape = m_shape.data();
    std::uint8_t* const fit = m_fit.data();
    std::uint8_t* const balanced = m_balanced.data();
    const std::uint16_t* const from_shape = from.m_shape.data();
    const std::uint8_t* const from_fit = from.m_fit.data();
    const std::uint8_t* const from_balanced = from.m_balanced.data();
    const std::size_t stride = m_stride;
    const std::size_t from_stride = from.m_stride;
    for (std::size_t s = 0, i = to, j = at; s < k_slots; ++s, i += stride, j += from_stride) {
      shape[i] = from_shape[j];
      fit[i] = from_fit[j];
      balanced[i] = from_balanced[j];
    }
    return;
  }
  for (std::size_t s = 0; s < k_slots; ++s) {
    const auto i = static_cast<std::ptrdiff_t>(s * m_stride + to);
    const auto j = static_cast<std::ptrdiff_t>(s * from.m_stride + at);
    std::copy_n(from.m_shape.begin() + j, n, m_shape.begin() + i);
    std::copy_n(from.m_fit.begin() + j, n, m_fit.begin() + i);
    std::copy_n(from.m_balanced.begin() + j, n, m_balanced.begin() + i);
  }
}

void ScoreMemos::move_range(std::size_t to, std::size_t at, std::size_t n)
{
  if (n == 1) { // (most moves: a call to memmove per array would cost more than the entries)
    std::uint16_t* const shape = m_shape.data(); // (local pointers: see copy_range)
    std::uint8_t* const fit = m_fit.data();
    std::uint8_t* const balanced = m_balanced.data();
    const std::size_t stride = m_stride;
    for (std::size_t s = 0, i = to, j = at; s < k_slots; ++s, i += stride, j += stride) {
      shape[i] = shape[j];
      fit[i] = fit[j];
      balanced[i] = balanced[j];
    }
    return;
  }
  const auto move = [&](auto& entries, std::size_t slot) {
    const auto from = entries.begin() + static_cast<std::ptrdiff_t>(slot * m_stride + at);
    const auto dest = entries.begin() + static_cast<std::ptrdiff_t>(slot * m_stride + to);
    const auto count = static_cast<std::ptrdiff_t>(n);
    if (at > to) {
      std::copy(from, from + count, dest);
    } else {
      std::copy_backward(from, from + count, dest + count);
    }
  };
  for (std::size_t s = 0; s < k_slots; ++s) {
    move(m_shape, s);
    move(m_fit, s);
    move(m_balanced, s);
  }
}

std::uint64_t ScoreMemos::holding(std::uint32_t shape, std::size_t base) const
{
  const std::uint16_t* ids = m_shape.data() + slot_of(shape) * m_stride + base;
  std::uint64_t out = 0;
  std::size_t j = 0;
#if defined(__SSE2__)
  const __m128i want = _mm_set1_epi16(static_cast<short>(shape));
  for (; j < 64; j += 16) {
    const __m128i lo = _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ids + j)), want);
    const __m128i hi = _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ids + j + 8)), want);
    out |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)))) << j;
  }
#endif
  for (; j < 64; ++j) {
    out |= static_cast<std::uint64_t>(ids[j] == shape) << j;
  }
  return out;
}

std::uint64_t ScoreMemos::best_key(std::uint32_t shape, std::size_t base, std::uint64_t nodes,
                                   std::int64_t fit_weight, std::int64_t balanced_weight,
                                   const std::uint32_t* order, std::uint64_t above) const
{
  if (nodes == 0) {
    return above;
  }
  const std::size_t first = slot_of(shape) * m_stride + base;
  const std::uint8_t* fit = m_fit.data() + first;
  const std::uint8_t* balanced = m_balanced.data() + first;
  // The highest total of the marked positions, then the lowest node among those with it.
  std::int64_t top = -1;
  std::uint32_t lowest = ~std::uint32_t{0};
#if defined(__SSE2__)
  // Eight positions to a vector of 16-bit totals plus one (at most 2 * 100 * 100 + 1), zero where
  // the position is not marked; the lane masks come from the bits of `nodes`.
  const __m128i lane_bits = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
  const __m128i fw = _mm_set1_epi16(static_cast<short>(fit_weight));
  const __m128i bw = _mm_set1_epi16(static_cast<short>(balanced_weight));
  const __m128i one = _mm_set1_epi16(1);
  const __m128i zero = _mm_setzero_si128();
  __m128i totals[8]; // (a std::array would drop the type's alignment attribute)
  __m128i best = zero;
  for (std::size_t q = 0; q < 4; ++q) {
    const auto marked = static_cast<unsigned>((nodes >> (16 * q)) & 0xFFFFU);
    if (marked == 0) {
      totals[2 * q] = zero;
      totals[2 * q + 1] = zero;
      continue;
    }
    const __m128i f = _mm_loadu_si128(reinterpret_cast<const __m128i*>(fit + 16 * q));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(balanced + 16 * q));
    for (std::size_t half = 0; half < 2; ++half) {
      const __m128i fits = half == 0 ? _mm_unpacklo_epi8(f, zero) : _mm_unpackhi_epi8(f, zero);
      const __m128i bals = half == 0 ? _mm_unpacklo_epi8(b, zero) : _mm_unpackhi_epi8(b, zero);
      const __m128i total = _mm_add_epi16(_mm_add_epi16(_mm_mullo_epi16(fits, fw), _mm_mullo_epi16(bals, bw)), one);
      const __m128i bits = _mm_set1_epi16(static_cast<short>((marked >> (8 * half)) & 0xFFU));
      const __m128i mask = _mm_cmpeq_epi16(_mm_and_si128(bits, lane_bits), lane_bits);
      totals[2 * q + half] = _mm_and_si128(total, mask);
      best = _mm_max_epi16(best, totals[2 * q + half]);
    }
  }
  best = _mm_max_epi16(best, _mm_srli_si128(best, 8));
  best = _mm_max_epi16(best, _mm_srli_si128(best, 4));
  best = _mm_max_epi16(best, _mm_srli_si128(best, 2));
  const auto top_plus_one = static_cast<std::uint16_t>(_mm_cvtsi128_si32(best));
  top = static_cast<std::int64_t>(top_plus_one) - 1;
  if (top < static_cast<std::int64_t>(above >> 32U)) {
    return above; // (ties with `above` may still win on the node)
  }
  const __m128i want = _mm_set1_epi16(static_cast<short>(top_plus_one));
  std::uint64_t ties = 0;
  for (std::size_t q = 0; q < 4; ++q) {
    const __m128i packed =
        _mm_packs_epi16(_mm_cmpeq_epi16(totals[2 * q], want), _mm_cmpeq_epi16(totals[2 * q + 1], want));
    ties |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(packed))) << (16 * q);
  }
  for (; ties != 0; ties &= ties - 1) {
    lowest = std::min(lowest, order[base + static_cast<std::size_t>(std::countr_zero(ties))]);
  }
#else
  for (std::uint64_t left = nodes; left != 0; left &= left - 1) {
    const auto j = static_cast<std::size_t>(std::countr_zero(left));
    const auto total = static_cast<std::int64_t>(fit_weight * fit[j] + balanced_weight * balanced[j]);
    if (total > top || (total == top && order[base + j] < lowest)) {
      top = total;
      lowest = order[base + j];
    }
  }
#endif
  return std::max(above, (static_cast<std::uint64_t>(top) << 32U) | static_cast<std::uint32_t>(~lowest));
}

} // namespace capsim::scheduling
