#include "core/io/text_guard.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <istream>
#include <streambuf>
#include <vector>

namespace capsim::io {

namespace {

// A read-only stream over text the caller keeps alive (a scenario or dump is not copied).
class ViewBuffer : public std::streambuf
{
public:
  explicit ViewBuffer(std::string_view text)
  {
    char* begin = const_cast<char*>(text.data()); // NOLINT: read only (no putback area is used)
    setg(begin, begin, begin + text.size());
  }
};

// Remembers where the last document started; ignores everything else.
class DocumentStarts : public YAML::EventHandler
{
public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnAlias(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnScalar(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override
  {
  }
  void OnSequenceStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                       YAML::EmitterStyle::value /*style*/) override
  {
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override
  {
  }
  void OnMapEnd() override {}

  YAML::Mark start = YAML::Mark::null_mark();
};

bool is_space(char c)
{
  return c == ' ' || c == '\t';
}

// Length of the UTF-8 sequence starting at text[i], or 0 when it is not valid UTF-8.
std::size_t utf8_length(std::string_view text, std::size_t i)
{
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) {
    return 1;
  }
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0U) == 0xC0U) {
    n = 2;
    cp = b0 & 0x1FU;
  } else if ((b0 & 0xF0U) == 0xE0U) {
    n = 3;
    cp = b0 & 0x0FU;
  } else if ((b0 & 0xF8U) == 0xF0U) {
    n = 4;
    cp = b0 & 0x07U;
  } else {
    return 0;
  }
  if (i + n > text.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0U) != 0x80U) {
      return 0;
    }
    cp = (cp << 6U) | (b & 0x3FU);
  }
  const bool overlong = (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return n;
}

} // namespace

NestingReport measure_nesting(std::string_view text, int max_depth)
{
  NestingReport report;
  std::vector<std::size_t> indents; // block indentation stack
  int flow = 0;                     // open [ and {
  int flow_base = 0;                // block depth where the open flow collection started
  char quote = 0;                   // inside a quoted scalar that may span lines
  long block_scalar_indent = -1;    // inside a | or > scalar: lines indented deeper than this
  bool document_start = true;       // no content yet in the current document
  // yaml-cpp 0.7 also loops when a document's root is a quoted scalar or a flow collection
  // followed by ',' ("a", [1], ...: fuzz finding): watch the root until the next token.
  bool watch_root = false;  // the root is such a node, still open
  bool root_closed = false; // it has closed; nothing but spaces and comments since
  // ... and when a line less indented than the document's root starts with ',' ("  : \n,":
  // fuzz finding); no valid document has content left of its root.
  std::size_t root_indent = 0;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  const auto report_comma = [&](std::size_t column) {
    if (report.comma_line == 0) {
      report.comma_line = line_no;
      report.comma_column = column + 1;
    }
  };
  const auto note = [&](int depth, std::size_t column) {
    if (depth > report.max_depth) {
      report.max_depth = depth;
      if (depth > max_depth && report.line == 0) {
        report.line = line_no;
        report.column = column + 1;
      }
    }
  };
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    ++line_no;
    pos = end + 1;

    std::size_t indent = 0;
    while (indent < line.size() && line[indent] == ' ') {
      ++indent;
    }
    const bool blank = indent == line.size();
    if (block_scalar_indent >= 0) {
      if (blank || static_cast<long>(indent) > block_scalar_indent) {
        continue;
      }
      block_scalar_indent = -1;
    }
    std::size_t i = 0;
    int base = flow_base;
    bool node_start = true;
    if (quote == 0 && flow == 0) {
      if (blank || line[indent] == '#' || line[0] == '%') {
        continue;
      }
      if (line.substr(0, 3) == "---" || line.substr(0, 3) == "...") {
        indents.clear();
        document_start = true;
        root_indent = 0;
        watch_root = false;
        root_closed = false;
        i = 3;
        indent = 0;
      } else {
        if (document_start) {
          root_indent = indent;
        } else if (indent < root_indent && line[indent] == ',' && report.comma_line == 0) {
          report_comma(indent);
          report.comma_left_of_root = true;
        }
        while (!indents.empty() && indents.back() > indent) {
          indents.pop_back();
        }
        if (indents.empty() || indents.back() < indent) {
          indents.push_back(indent);
        }
        i = indent;
      }
      base = static_cast<int>(indents.size());
      // Compact nested collections on one line: "- - - x", "? - x".
      while (i < line.size() && (line[i] == '-' || line[i] == '?')
             && (i + 1 == line.size() || is_space(line[i + 1]))) {
        ++base;
        note(base, i);
        ++i;
        while (i < line.size() && is_space(line[i])) {
          ++i;
        }
      }
      note(base, i);
    } else if (quote != 0) {
      node_start = false;
    }
    for (; i < line.size(); ++i) {
      const char c = line[i];
      if (quote == '"') {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          quote = 0;
          root_closed = watch_root && flow == 0;
          watch_root = watch_root && !root_closed;
        }
        continue;
      }
      if (quote == '\'') {
        if (c == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') {
            ++i;
          } else {
            quote = 0;
            root_closed = watch_root && flow == 0;
            watch_root = watch_root && !root_closed;
          }
        }
        continue;
      }
      if (is_space(c)) {
        continue;
      }
      if (c == '#' && (i == 0 || is_space(line[i - 1]))) {
        break;
      }
      if (root_closed) {
        if (c == ',') {
          report_comma(i);
        }
        root_closed = false;
      }
      if (node_start && document_start && c != '&' && c != '!') {
        if (c == ',') {
          report_comma(i);
        }
        document_start = false;
        watch_root = c == '"' || c == '\'' || c == '[' || c == '{';
      }
      if (node_start) {
        if (c == '"' || c == '\'') {
          quote = c;
          node_start = false;
          continue;
        }
        if (c == '[' || c == '{') {
          if (flow == 0) {
            flow_base = base;
          }
          ++flow;
          note(flow_base + flow, i);
          continue;
        }
        if ((c == '|' || c == '>') && flow == 0) {
          block_scalar_indent = static_cast<long>(indent);
          break;
        }
        if (c == '&' || c == '!') {
          while (i + 1 < line.size() && !is_space(line[i + 1])) {
            ++i;
            // yaml-cpp 0.7 also loops on a document that starts with a tag or anchor holding
            // a ',' (fuzz finding): refused like a leading ','.
            if (line[i] == ',' && document_start) {
              report_comma(i);
            }
          }
          continue;
        }
        node_start = false;
      }
      if (flow > 0) {
        if (c == ',' || c == ':') {
          node_start = true;
        } else if (c == '[' || c == '{') {
          ++flow;
          note(flow_base + flow, i);
          node_start = true;
        } else if (c == ']' || c == '}') {
          --flow;
          root_closed = watch_root && flow == 0;
          watch_root = watch_root && !root_closed;
        }
      } else if (c == ':' && (i + 1 == line.size() || is_space(line[i + 1]))) {
        node_start = true;
      }
    }
    if (end == text.size()) {
      break;
    }
  }
  return report;
}

void check_text(std::string_view text, const std::string& file, int max_depth)
{
  if (text.size() > k_max_document_bytes) {
    throw InputError(SourceLocation{file, 0, 0},
                     fmt::format("file is too large ({} bytes; at most {} are read)", text.size(), k_max_document_bytes));
  }
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\0') {
      throw InputError(SourceLocation{file, static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(i - line_start + 1)},
                       "file contains a NUL byte: it looks binary (expected YAML or JSON text)");
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      throw InputError(SourceLocation{file, static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(i - line_start + 1)},
                       "file is not valid UTF-8 text (expected YAML or JSON)");
    }
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += n;
  }
  const NestingReport r = measure_nesting(text, max_depth);
  if (r.comma_line > 0 && r.comma_left_of_root) {
    throw InputError(SourceLocation{file, static_cast<std::uint32_t>(r.comma_line), static_cast<std::uint32_t>(r.comma_column)},
                     "a line left of its document's root cannot start with ',' (expected a mapping such as "
                     "'apiVersion: ...')");
  }
  if (r.comma_line > 0) {
    throw InputError(SourceLocation{file, static_cast<std::uint32_t>(r.comma_line), static_cast<std::uint32_t>(r.comma_column)},
                     "a document cannot start with ',', with a tag or anchor holding one, or with a quoted "
                     "or bracketed value followed by one (expected a mapping such as 'apiVersion: ...')");
  }
  if (r.max_depth > max_depth) {
    throw InputError(SourceLocation{file, static_cast<std::uint32_t>(r.line), static_cast<std::uint32_t>(r.column)},
                     fmt::format("nesting is deeper than {} levels (refused before parsing)", max_depth));
  }
}

void check_yaml_documents(std::string_view text, const std::string& file)
{
  ViewBuffer buffer(text);
  std::istream in(&buffer);
  YAML::Parser parser(in);
  DocumentStarts starts;
  // A document other than the first starts on a line of its own ('---' or '...' first).
  const auto limit = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 2;
  std::size_t documents = 0;
  int last = -1;
  try {
    for (;;) {
      starts.start = YAML::Mark::null_mark();
      if (!parser.HandleNextDocument(starts)) {
        break;
      }
      const YAML::Mark& m = starts.start;
      ++documents;
      if ((m.pos >= 0 && m.pos == last) || documents > limit) {
        const auto pos = static_cast<std::size_t>(std::max(m.pos, 0));
        const std::string token = pos < text.size() ? std::string(1, text[pos]) : std::string("end of input");
        throw InputError(SourceLocation{file, static_cast<std::uint32_t>(m.line + 1), static_cast<std::uint32_t>(m.column + 1)},
                         fmt::format("a YAML document cannot start with '{}' here (the parser would not get past "
                                     "it; expected a mapping such as 'apiVersion: ...')",
                                     token));
      }
      last = m.pos;
    }
  } catch (const YAML::Exception&) {
    // A syntax error: the caller's parse reports it, at the same position.
  }
}

YAML::Node load_yaml(std::string_view text)
{
  ViewBuffer buffer(text);
  std::istream in(&buffer);
  return YAML::Load(in);
}

std::vector<YAML::Node> load_yaml_documents(std::string_view text)
{
  ViewBuffer buffer(text);
  std::istream in(&buffer);
  return YAML::LoadAll(in);
}

} // namespace capsim::io
