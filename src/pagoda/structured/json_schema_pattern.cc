#include "pagoda/structured/json_schema_pattern.h"

#include <memory>
#include <utility>
#include <vector>

#include "pagoda/structured/json_schema_refs.h"
#include "pagoda/structured/json_string_chars.h"
#include "pagoda/structured/regex_to_expr.h"

namespace pagoda::structured {
namespace {

// Whether the pattern has a '|' outside any group or class: then an anchor
// at its start or end belongs to one alternative only.
bool HasTopLevelAlternation(const std::string& regex) {
  int depth = 0;
  bool in_class = false;
  for (size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < regex.size() && regex[i + 1] == ']') ++i;  // "[]...]": the ']' is a member
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      return true;
    }
  }
  return false;
}

bool EndsWithAnchor(const std::string& regex) {
  if (regex.empty() || regex.back() != '$') return false;
  size_t backslashes = 0;
  for (size_t i = regex.size() - 1; i > 0 && regex[i - 1] == '\\'; --i) ++backslashes;
  return backslashes % 2 == 0;
}

// `pattern` matches anywhere in the string (JSON Schema's search), as a
// regex that matches whole strings: what the anchors leave open may hold
// anything.
StatusOr<std::string> AsWholeMatch(const std::string& regex) {
  const bool starts = !regex.empty() && regex.front() == '^';
  const bool ends = EndsWithAnchor(regex);
  if ((starts || ends) && HasTopLevelAlternation(regex)) {
    return InvalidArgumentError("anchors with top-level alternatives are not supported; group them: ^(?:a|b)$");
  }
  const std::string core = regex.substr(starts, regex.size() - starts - ends);
  constexpr const char* kAnything = "[\\s\\S]*";
  return (starts ? "" : std::string(kAnything)) + "(?:" + core + ")" + (ends ? "" : kAnything);
}

// The JSON spelling of text that `text` matches: each byte as JSON writes
// it in a string, canonically ('"', '\' and control characters escaped).
ExprPtr JsonSpelled(const ExprPtr& text) {
  switch (text->kind) {
    case Expr::Kind::kBytes: {
      ByteSet raw;
      std::vector<ExprPtr> escaped;
      for (int b = 0; b < 256; ++b) {
        const auto byte = static_cast<uint8_t>(b);
        if (!text->bytes.Contains(byte)) continue;
        if (byte >= 0x20 && byte != '"' && byte != '\\') {
          raw.Add(byte);
        } else {
          const std::string spelled = CanonicalJsonString(std::string(1, static_cast<char>(byte)));
          escaped.push_back(Literal(spelled.substr(1, spelled.size() - 2)));
        }
      }
      if (escaped.empty()) return text;
      if (!raw.Empty()) escaped.push_back(Bytes(raw));
      return Choice(std::move(escaped));
    }
    case Expr::Kind::kSequence:
    case Expr::Kind::kChoice:
    case Expr::Kind::kRepeat: {
      auto out = std::make_shared<Expr>(*text);
      for (ExprPtr& child : out->children) child = JsonSpelled(child);
      return out;
    }
    case Expr::Kind::kRule:
      break;
  }
  return text;  // RegexToExpr makes no rule references
}

}  // namespace

StatusOr<ExprPtr> PatternStringContents(const std::string& regex, const std::string& pointer) {
  StatusOr<std::string> whole = AsWholeMatch(regex);
  StatusOr<ExprPtr> text = whole.ok() ? RegexToExpr(*whole) : StatusOr<ExprPtr>(whole.status());
  if (!text.ok()) {
    return InvalidArgumentError("JSON schema: keyword 'pattern' at " + Where(pointer) + ": " + text.status().message());
  }
  return JsonSpelled(*text);
}

}  // namespace pagoda::structured
