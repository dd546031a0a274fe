#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>

namespace capsim::karpenter {

// A requirement's value ids (Req::values): a vector that holds up to four ids in place. Most
// requirements name one value (a node's labels, a pod's zone or capacity type), and with a
// std::vector each of them was an allocation of its own: a node's labels alone are ~15 of them,
// and every copy of a requirement set copied each.
class ValueList
{
public:
  using value_type = std::uint32_t;
  using size_type = std::size_t;
  using iterator = value_type*;
  using const_iterator = const value_type*;
  using reference = value_type&;
  using const_reference = const value_type&;

  static constexpr std::uint32_t k_in_place = 4;

  ValueList() = default;
  ValueList(std::initializer_list<value_type> values) { assign(values.begin(), values.end()); }
  ValueList(const ValueList& other) { assign(other.begin(), other.end()); }
  ValueList(ValueList&& other) noexcept { take(other); }
  ValueList& operator=(const ValueList& other)
  {
    if (this != &other) {
      assign(other.begin(), other.end());
    }
    return *this;
  }
  ValueList& operator=(ValueList&& other) noexcept
  {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~ValueList() { release(); }

  [[nodiscard]] iterator begin() { return data(); }
  [[nodiscard]] iterator end() { return data() + m_size; }
  [[nodiscard]] const_iterator begin() const { return data(); }
  [[nodiscard]] const_iterator end() const { return data() + m_size; }
  [[nodiscard]] value_type* data() { return on_heap() ? m_heap : m_place; }
  [[nodiscard]] const value_type* data() const { return on_heap() ? m_heap : m_place; }
  [[nodiscard]] size_type size() const { return m_size; }
  [[nodiscard]] bool empty() const { return m_size == 0; }
  [[nodiscard]] value_type& operator[](size_type i) { return data()[i]; }
  [[nodiscard]] const value_type& operator[](size_type i) const { return data()[i]; }
  [[nodiscard]] value_type& front() { return data()[0]; }
  [[nodiscard]] const value_type& front() const { return data()[0]; }
  [[nodiscard]] value_type& back() { return data()[m_size - 1]; }
  [[nodiscard]] const value_type& back() const { return data()[m_size - 1]; }

  void clear() { m_size = 0; }

  void reserve(size_type n)
  {
    if (n > m_capacity) {
      grow(n);
    }
  }

  void push_back(value_type v)
  {
    if (m_size == m_capacity) {
      grow(std::max<size_type>(2 * static_cast<size_type>(m_capacity), k_in_place));
    }
    data()[m_size++] = v;
  }

  template <typename It>
  void assign(It first, It last)
  {
    const auto n = static_cast<size_type>(std::distance(first, last));
    m_size = 0;
    reserve(n);
    std::copy(first, last, data());
    m_size = static_cast<std::uint32_t>(n);
  }

  // Inserts [first, last) before `pos` (not from this list).
  template <typename It>
  iterator insert(const_iterator pos, It first, It last)
  {
    const auto at = static_cast<size_type>(pos - begin());
    const auto n = static_cast<size_type>(std::distance(first, last));
    reserve(m_size + n);
    value_type* d = data();
    std::memmove(d + at + n, d + at, (m_size - at) * sizeof(value_type));
    std::copy(first, last, d + at);
    m_size += static_cast<std::uint32_t>(n);
    return d + at;
  }

  iterator insert(const_iterator pos, value_type v) { return insert(pos, &v, &v + 1); }

  iterator erase(const_iterator first, const_iterator last)
  {
    value_type* d = data();
    const auto at = static_cast<size_type>(first - d);
    const auto n = static_cast<size_type>(last - first);
    std::memmove(d + at, d + at + n, (m_size - at - n) * sizeof(value_type));
    m_size -= static_cast<std::uint32_t>(n);
    return d + at;
  }

  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }

  bool operator==(const ValueList& other) const { return std::equal(begin(), end(), other.begin(), other.end()); }

private:
  [[nodiscard]] bool on_heap() const { return m_capacity > k_in_place; }

  void grow(size_type n)
  {
    auto* bigger = new value_type[n];
    std::copy(begin(), end(), bigger);
    release();
    m_heap = bigger;
    m_capacity = static_cast<std::uint32_t>(n);
  }

  void release()
  {
    if (on_heap()) {
      delete[] m_heap;
      m_capacity = k_in_place;
    }
  }

  // Takes `other`'s values (its allocation, or a copy of those in place) and leaves it empty.
  void take(ValueList& other) noexcept
  {
    m_size = other.m_size;
    if (other.on_heap()) {
      m_heap = other.m_heap;
      m_capacity = other.m_capacity;
      other.m_capacity = k_in_place;
    } else {
      std::copy(other.m_place, other.m_place + other.m_size, m_place);
      m_capacity = k_in_place;
    }
    other.m_size = 0;
  }

  std::uint32_t m_size = 0;
  std::uint32_t m_capacity = k_in_place; // more than k_in_place: the values are in m_heap
  union
  {
    value_type m_place[k_in_place] = {};
    value_type* m_heap;
  };
};

} // namespace capsim::karpenter
