#include "core/report/json_text.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace capsim::report::json {

namespace {

constexpr int k_max_depth = 200;

// Recursive-descent reader over the whole text, tracking line and column.
class Parser
{
public:
  Parser(std::string_view text, const std::string& source) : m_text(text), m_source(source) {}

  Value parse_document()
  {
    skip_space();
    Value v = parse_value(0);
    skip_space();
    if (m_pos < m_text.size()) {
      fail("unexpected text after the JSON value");
    }
    return v;
  }

private:
  [[noreturn]] void fail(const std::string& what) const { fail_at(m_line, m_column, what); }

  [[noreturn]] void fail_at(std::uint32_t line, std::uint32_t column, const std::string& what) const
  {
    throw InputError(SourceLocation{m_source, line, column}, what);
  }

  [[nodiscard]] bool at_end() const { return m_pos >= m_text.size(); }

  [[nodiscard]] char peek() const { return at_end() ? '\0' : m_text[m_pos]; }

  char next()
  {
    const char c = m_text[m_pos++];
    if (c == '\n') {
      ++m_line;
      m_column = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) {
      ++m_column; // count code points, not bytes
    }
    return c;
  }

  void skip_space()
  {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
      next();
    }
  }

  void expect_word(std::string_view word)
  {
    if (m_text.substr(m_pos, word.size()) != word) {
      fail("invalid JSON value (expected a string, number, object, array, true, false or null)");
    }
    for (std::size_t i = 0; i < word.size(); ++i) {
      next();
    }
  }

  Value parse_value(int depth)
  {
    if (depth > k_max_depth) {
      fail("JSON nested too deeply (more than 200 levels)");
    }
    Value v;
    v.line = m_line;
    v.column = m_column;
    if (at_end()) {
      fail("unexpected end of file (expected a JSON value)");
    }
    const char c = peek();
    if (c == '{') {
      v.type = Value::Type::object;
      parse_object(v, depth);
    } else if (c == '[') {
      v.type = Value::Type::array;
      parse_array(v, depth);
    } else if (c == '"') {
      v.type = Value::Type::string;
      v.text = parse_string();
    } else if (c == 't') {
      expect_word("true");
      v.type = Value::Type::boolean;
      v.boolean = true;
    } else if (c == 'f') {
      expect_word("false");
      v.type = Value::Type::boolean;
    } else if (c == 'n') {
      expect_word("null");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.type = Value::Type::number;
      v.text = parse_number();
    } else {
      fail(std::string("unexpected character '") + c + "' (expected a JSON value)");
    }
    return v;
  }

  void parse_object(Value& v, int depth)
  {
    next(); // {
    skip_space();
    if (peek() == '}') {
      next();
      return;
    }
    while (true) {
      skip_space();
      if (peek() != '"') {
        fail(at_end() ? "unexpected end of file inside an object (expected a key)"
                      : "expected a quoted key in the object");
      }
      const auto key_line = m_line;
      const auto key_column = m_column;
      std::string key = parse_string();
      if (v.find(key) != nullptr) {
        fail_at(key_line, key_column, "duplicate key \"" + key + "\"");
      }
      skip_space();
      if (peek() != ':') {
        fail("expected ':' after the key \"" + key + "\"");
      }
      next();
      skip_space();
      Value member = parse_value(depth + 1);
      v.members.emplace_back(std::move(key), std::move(member));
      skip_space();
      if (peek() == ',') {
        next();
        continue;
      }
      if (peek() == '}') {
        next();
        return;
      }
      fail(at_end() ? "unexpected end of file inside an object (expected ',' or '}')"
                    : "expected ',' or '}' in the object");
    }
  }

  void parse_array(Value& v, int depth)
  {
    next(); // [
    skip_space();
    if (peek() == ']') {
      next();
      return;
    }
    while (true) {
      skip_space();
      v.items.push_back(parse_value(depth + 1));
      skip_space();
      if (peek() == ',') {
        next();
        continue;
      }
      if (peek() == ']') {
        next();
        return;
      }
      fail(at_end() ? "unexpected end of file inside an array (expected ',' or ']')"
                    : "expected ',' or ']' in the array");
    }
  }

  unsigned parse_hex4()
  {
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = peek();
      unsigned digit = 0;
      if (h >= '0' && h <= '9') {
        digit = static_cast<unsigned>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        digit = static_cast<unsigned>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        digit = static_cast<unsigned>(h - 'A' + 10);
      } else {
        fail("invalid \\u escape (expected 4 hex digits)");
      }
      next();
      value = value * 16 + digit;
    }
    return value;
  }

  static void append_utf8(std::string& out, unsigned cp)
  {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  std::string parse_string()
  {
    next(); // opening quote
    std::string out;
    while (true) {
      if (at_end()) {
        fail("unexpected end of file inside a string (expected a closing '\"')");
      }
      const char c = peek();
      if (c == '"') {
        next();
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        fail("control character inside a string (escape it, e.g. \\n)");
      }
      if (c != '\\') {
        out.push_back(next());
        continue;
      }
      next();
      if (at_end()) {
        fail("unexpected end of file after '\\'");
      }
      const char e = next();
      switch (e) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        unsigned cp = parse_hex4();
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (m_text.substr(m_pos, 2) != "\\u") {
            fail("unpaired UTF-16 surrogate in \\u escape");
          }
          next();
          next();
          const unsigned low = parse_hex4();
          if (low < 0xDC00 || low > 0xDFFF) {
            fail("unpaired UTF-16 surrogate in \\u escape");
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail("unpaired UTF-16 surrogate in \\u escape");
        }
        append_utf8(out, cp);
        break;
      }
      default: fail(std::string("invalid escape '\\") + e + "' in a string");
      }
    }
  }

  std::string parse_number()
  {
    const std::size_t start = m_pos;
    const auto digits = [&] {
      std::size_t n = 0;
      while (!at_end() && peek() >= '0' && peek() <= '9') {
        next();
        ++n;
      }
      return n;
    };
    if (peek() == '-') {
      next();
    }
    if (peek() == '0') {
      next();
      if (peek() >= '0' && peek() <= '9') {
        fail("invalid number (no leading zeros in JSON)");
      }
    } else if (digits() == 0) {
      fail("invalid number (expected digits)");
    }
    if (peek() == '.') {
      next();
      if (digits() == 0) {
        fail("invalid number (expected digits after '.')");
      }
    }
    if (peek() == 'e' || peek() == 'E') {
      next();
      if (peek() == '+' || peek() == '-') {
        next();
      }
      if (digits() == 0) {
        fail("invalid number (expected digits in the exponent)");
      }
    }
    return std::string(m_text.substr(start, m_pos - start));
  }

  std::string_view m_text;
  const std::string& m_source;
  std::size_t m_pos = 0;
  std::uint32_t m_line = 1;
  std::uint32_t m_column = 1;
};

} // namespace

const Value* Value::find(std::string_view key) const
{
  for (const auto& [k, v] : members) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

double Value::number() const
{
  double out = 0;
  const auto* begin = text.data();
  const auto [ptr, ec] = std::from_chars(begin, begin + text.size(), out);
  if (ec == std::errc::result_out_of_range) {
    return text.starts_with('-') ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  return ec == std::errc() ? out : 0.0;
}

std::optional<std::int64_t> Value::integer() const
{
  std::int64_t out = 0;
  const auto* begin = text.data();
  const auto [ptr, ec] = std::from_chars(begin, begin + text.size(), out);
  if (ec == std::errc() && ptr == begin + text.size()) {
    return out;
  }
  // 2.0 or 1e3 are whole numbers too.
  const double d = number();
  if (std::isfinite(d) && std::floor(d) == d && std::abs(d) < 9.0e15) {
    return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> Value::unsigned_integer() const
{
  std::uint64_t out = 0;
  const auto* begin = text.data();
  const auto [ptr, ec] = std::from_chars(begin, begin + text.size(), out);
  if (ec == std::errc() && ptr == begin + text.size()) {
    return out;
  }
  const auto i = integer();
  if (i && *i >= 0) {
    return static_cast<std::uint64_t>(*i);
  }
  return std::nullopt;
}

std::string Value::type_name() const
{
  switch (type) {
  case Type::null: return "null";
  case Type::boolean: return "a boolean";
  case Type::number: return "a number";
  case Type::string: return "a string";
  case Type::array: return "an array";
  case Type::object: return "an object";
  }
  return "a value";
}

Value parse(std::string_view text, const std::string& source)
{
  Parser parser(text, source);
  return parser.parse_document();
}

} // namespace capsim::report::json
