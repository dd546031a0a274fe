#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace capsim::scheduling {

// The NodeResourcesFit and NodeResourcesBalancedAllocation scores of nodes for request shapes
// seen, by position in kube-scheduler's node list (a node's are forgotten whenever it changes): a
// node keeps its room for many scheduling cycles, and the pods of a workload ask the same, so most
// scores are found here instead of divided out again. Direct-mapped by shape id (one compare per
// lookup), so a trace with up to 16 shapes never evicts. Kept slot by slot, each slot's entries in
// position order: the scan reads one slot's entries of 64 positions at a time (best_key).
class ScoreMemos
{
public:
  static constexpr std::size_t k_slots = 16;

  struct Entry
  {
    std::uint16_t shape = 0; // the shape's id (ids start at 1); 0: empty
    std::uint8_t fit = 0;    // scores are 0..100
    std::uint8_t balanced = 0;
    bool operator==(const Entry&) const = default;
  };
  using Entries = std::array<Entry, k_slots>;

  [[nodiscard]] static std::size_t slot_of(std::uint32_t shape) { return shape % k_slots; }

  [[nodiscard]] std::size_t size() const { return m_size; }
  // Sized for `positions`: the kept positions keep their entries, new ones are empty.
  void resize(std::size_t positions);
  void clear();
  void forget(std::size_t pos);
  void forget_all();

  [[nodiscard]] Entry get(std::size_t slot, std::size_t pos) const
  {
    const std::size_t i = slot * m_stride + pos;
    return {m_shape[i], m_fit[i], m_balanced[i]};
  }
  void set(std::size_t slot, std::size_t pos, Entry e)
  {
    const std::size_t i = slot * m_stride + pos;
    m_shape[i] = e.shape;
    m_fit[i] = e.fit;
    m_balanced[i] = e.balanced;
  }
  [[nodiscard]] Entries entries(std::size_t pos) const;
  void set_entries(std::size_t pos, const Entries& entries);

  // This table made of `from`'s positions [first, last), at positions 0.. .
  void assign_range(const ScoreMemos& from, std::size_t first, std::size_t last);
  // Positions [to, to + n) take the entries of `from`'s positions [at, at + n).
  void copy_range(std::size_t to, const ScoreMemos& from, std::size_t at, std::size_t n);
  // Positions [to, to + n) take the entries of positions [at, at + n) of this table (the ranges
  // may overlap, as with memmove).
  void move_range(std::size_t to, std::size_t at, std::size_t n);

  // The higher of `above` and the best key (total << 32) | ~node of the positions base + j for the
  // set bits j of `nodes` (all below size(), each holding `shape` in its slot): total =
  // fit_weight * fit + balanced_weight * balanced, node = order[base + j]. The highest total wins,
  // then the lowest node index. Weights are 0..k_max_weight.
  static constexpr std::int64_t k_max_weight = 100;
  [[nodiscard]] std::uint64_t best_key(std::uint32_t shape, std::size_t base, std::uint64_t nodes,
                                       std::int64_t fit_weight, std::int64_t balanced_weight,
                                       const std::uint32_t* order, std::uint64_t above) const;
  // The bits j of 64 positions from `base` whose slot holds `shape`.
  [[nodiscard]] std::uint64_t holding(std::uint32_t shape, std::size_t base) const;

private:
  std::size_t m_size = 0;
  // Entries per slot, at least m_size + 64: 64 entries read from any position stay in the slot.
  // Those at or past m_size are empty.
  std::size_t m_stride = 0;
  std::vector<std::uint16_t> m_shape;
  std::vector<std::uint8_t> m_fit;
  std::vector<std::uint8_t> m_balanced;
};

} // namespace capsim::scheduling
