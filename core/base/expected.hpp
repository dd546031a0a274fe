#pragma once

#include <string>
#include <utility>
#include <variant>

namespace capsim {

// A value or an error message, for parsers of small value types (C++20 has no
// std::expected). The message says what is wrong without a location; callers add one.
template <typename T>
class Expected
{
public:
  Expected(T value) : m_state(std::move(value)) {}

  static Expected failure(std::string message)
  {
    Expected e{Tag{}};
    e.m_state = Error{std::move(message)};
    return e;
  }

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(m_state); }

  explicit operator bool() const { return ok(); }

  [[nodiscard]] const T& value() const { return std::get<T>(m_state); }

  [[nodiscard]] T& value() { return std::get<T>(m_state); }

  [[nodiscard]] const T& operator*() const { return value(); }

  [[nodiscard]] const std::string& error() const { return std::get<Error>(m_state).message; }

private:
  struct Error
  {
    std::string message;
  };

  struct Tag
  {
  };

  explicit Expected(Tag) : m_state(Error{}) {}

  std::variant<T, Error> m_state;
};

} // namespace capsim
