#pragma once

#include <cstddef>
#include <vector>

namespace capsim {

// An append-only list read by position, kept in fixed-size chunks: growing it never moves or
// copies what it holds (a week's log of millions of entries, grown by doubling, copied tens of MB
// and faulted in twice the pages it used).
template <class T, std::size_t ChunkBits = 16>
class AppendLog
{
public:
  static constexpr std::size_t k_chunk = std::size_t{1} << ChunkBits;

  [[nodiscard]] std::size_t size() const { return m_size; }

  [[nodiscard]] bool empty() const { return m_size == 0; }

  [[nodiscard]] const T& operator[](std::size_t i) const { return m_chunks[i >> ChunkBits][i & (k_chunk - 1)]; }

  void push_back(const T& value)
  {
    if ((m_size & (k_chunk - 1)) == 0) {
      m_chunks.emplace_back().reserve(k_chunk);
    }
    m_chunks.back().push_back(value); // within the chunk's room: nothing moves
    ++m_size;
  }

private:
  std::vector<std::vector<T>> m_chunks; // each reserved to k_chunk entries
  std::size_t m_size = 0;
};

} // namespace capsim
