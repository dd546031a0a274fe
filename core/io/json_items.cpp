#include "core/io/json_items.hpp"

#include <cctype>
#include <string>

namespace capsim::io {

namespace {

class JsonItemScanner
{
public:
  explicit JsonItemScanner(std::string_view text) : m_text(text) {}

  std::optional<JsonItems> scan()
  {
    JsonItems out;
    bool have_items = false;
    bool single_pod = false;
    space();
    const bool read = object(false, [&](std::string_view key) {
      if (key == "items") {
        out.items_line = m_line;
        out.items_column = m_column;
        if (have_items || !item_array(out.items)) {
          return false;
        }
        have_items = true;
        return true;
      }
      if (key == "kind" && at('"')) {
        std::string kind;
        if (!string(&kind)) {
          return false;
        }
        single_pod = kind == "Pod";
        out.kind = std::move(kind);
        return true;
      }
      return value();
    });
    space();
    if (!read || single_pod || m_pos != m_text.size() || !have_items) {
      return std::nullopt;
    }
    return out;
  }

  std::optional<JsonObjectHeader> header()
  {
    JsonObjectHeader h;
    bool kind = false;
    bool api = false;
    space();
    const bool read = object(true, [&](std::string_view key) {
      if (key == "kind" || key == "apiVersion") {
        bool& seen = key == "kind" ? kind : api;
        if (seen || !plain_string(key == "kind" ? &h.kind : &h.api_version)) {
          return false;
        }
        seen = true;
        return true;
      }
      if (key == "metadata") {
        if (h.metadata || !metadata(h)) {
          return false;
        }
        h.metadata = true;
        return true;
      }
      return value();
    });
    space();
    if (!read || m_pos != m_text.size()) {
      return std::nullopt;
    }
    return h;
  }

private:
  // An object: each member's value is read by on_member(key), which says whether it could (the
  // key is its raw text between the quotes). plain_keys: a key with an escape is refused.
  template <class OnMember>
  bool object(bool plain_keys, OnMember&& on_member)
  {
    return take('{') && elements('}', [&] {
             const std::size_t start = m_pos;
             if (!string(nullptr)) {
               return false;
             }
             const std::string_view key = m_text.substr(start + 1, m_pos - start - 2);
             if (plain_keys && key.find('\\') != std::string_view::npos) {
               return false;
             }
             space();
             if (!take(':')) {
               return false;
             }
             space();
             return on_member(key);
           });
  }

  // What follows an opening bracket: elements, each read by one(), separated by ',' up to `close`.
  template <class One>
  bool elements(char close, One&& one)
  {
    space();
    if (take(close)) {
      return true;
    }
    for (;;) {
      if (!one()) {
        return false;
      }
      space();
      if (take(close)) {
        return true;
      }
      if (!take(',')) {
        return false;
      }
      space();
    }
  }

  // metadata's name and namespace; false for anything unusual (see JsonObjectHeader).
  bool metadata(JsonObjectHeader& h)
  {
    bool name = false;
    return object(true, [&](std::string_view key) {
      if (key == "name") {
        h.name_line = m_line;
        h.name_column = m_column;
        if (name || !plain_string(&h.name)) {
          return false;
        }
        name = true;
        return true;
      }
      if (key == "namespace") {
        return !h.namespace_ && plain_string(&h.namespace_.emplace());
      }
      return value(1);
    });
  }

  // A string without escapes (its text is its value).
  bool plain_string(std::string* out)
  {
    const std::size_t start = m_pos;
    return string(out) && m_text.substr(start, m_pos - start).find('\\') == std::string_view::npos;
  }

  [[nodiscard]] bool at(char c) const { return m_pos < m_text.size() && m_text[m_pos] == c; }

  void advance()
  {
    if (m_text[m_pos] == '\n') {
      ++m_line;
      m_column = 0;
    } else {
      ++m_column;
    }
    ++m_pos;
  }

  bool take(char c)
  {
    if (!at(c)) {
      return false;
    }
    advance();
    return true;
  }

  void space()
  {
    while (m_pos < m_text.size()
           && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r')) {
      advance();
    }
  }

  // A string; its characters in *out, an escaped one without its backslash (\uXXXX is not
  // decoded: a key or kind spelled with one is not recognised, and the dump is read whole).
  bool string(std::string* out)
  {
    if (!take('"')) {
      return false;
    }
    while (m_pos < m_text.size()) {
      const char c = m_text[m_pos];
      if (c == '"') {
        advance();
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return false;
      }
      if (c == '\\') {
        advance();
        if (m_pos == m_text.size()) {
          return false;
        }
      }
      if (out != nullptr) {
        out->push_back(m_text[m_pos]);
      }
      advance();
    }
    return false;
  }

  // Any JSON value, skipped. Strictly JSON (no YAML anchors, aliases, tags, comments or plain
  // words), so that an item parses on its own exactly when it parses inside the whole text.
  bool value(int depth = 0)
  {
    if (depth > k_max_depth) {
      return false;
    }
    if (at('"')) {
      return string(nullptr);
    }
    if (at('{')) {
      return object(false, [&](std::string_view /*key*/) { return value(depth + 1); });
    }
    if (take('[')) {
      return elements(']', [&] { return value(depth + 1); });
    }
    return literal();
  }

  // true, false, null or a number.
  bool literal()
  {
    for (const std::string_view word : {"true", "false", "null"}) {
      if (m_text.substr(m_pos, word.size()) == word) {
        for (std::size_t i = 0; i < word.size(); ++i) {
          advance();
        }
        return !word_goes_on();
      }
    }
    const auto digits = [this] {
      const std::size_t start = m_pos;
      while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])) != 0) {
        advance();
      }
      return m_pos > start;
    };
    (void)take('-');
    if (!digits()) {
      return false;
    }
    if (take('.') && !digits()) {
      return false;
    }
    if (take('e') || take('E')) {
      if (!take('+')) {
        (void)take('-');
      }
      if (!digits()) {
        return false;
      }
    }
    return !word_goes_on();
  }

  [[nodiscard]] bool word_goes_on() const
  {
    return m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) != 0 || m_text[m_pos] == '_');
  }

  bool item_array(std::vector<JsonItem>& items)
  {
    return take('[') && elements(']', [&] {
             if (!at('{')) {
               return false;
             }
             JsonItem item{m_pos, 0, m_line, m_column};
             if (!value()) {
               return false;
             }
             item.end = m_pos;
             items.push_back(item);
             return true;
           });
  }

  static constexpr int k_max_depth = 256; // deeper: left to the whole-document reader

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_line = 0;
  int m_column = 0;
};

} // namespace

std::optional<JsonItems> scan_json_items(std::string_view text)
{
  return JsonItemScanner(text).scan();
}

std::optional<JsonObjectHeader> scan_object_header(std::string_view object)
{
  return JsonItemScanner(object).header();
}

} // namespace capsim::io
