#include "pagoda/server/pythonic_tool_calls.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <optional>

#include "pagoda/server/json_scan.h"

namespace pagoda::server {
namespace {

using Json = nlohmann::ordered_json;

// A recursive-descent reader of the Python subset; every method returns
// nullopt (or false) on anything outside it.
class PythonReader {
 public:
  explicit PythonReader(std::string_view text) : text_(text) {}

  std::optional<std::vector<ParsedToolCall>> Calls() {
    if (!Eat('[')) return std::nullopt;
    std::vector<ParsedToolCall> calls;
    while (!Eat(']')) {
      if (!calls.empty() && !Eat(',')) return std::nullopt;
      if (Eat(']')) break;  // a trailing comma
      std::optional<ParsedToolCall> call = Call();
      if (!call) return std::nullopt;
      calls.push_back(std::move(*call));
    }
    Skip();
    if (pos_ != text_.size() || calls.empty()) return std::nullopt;
    return calls;
  }

 private:
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string Name() {
    Skip();
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                   (text_[pos_] == '.' && pos_ > start))) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::optional<ParsedToolCall> Call() {
    ParsedToolCall call{Name(), ""};
    if (call.name.empty() || !Eat('(')) return std::nullopt;
    Json arguments = Json::object();
    while (!Eat(')')) {
      if (!arguments.empty() && !Eat(',')) return std::nullopt;
      if (Eat(')')) break;
      const std::string key = Name();
      std::optional<Json> value;
      if (key.empty() || !Eat('=') || !(value = Value())) return std::nullopt;
      arguments[key] = std::move(*value);
    }
    call.arguments = arguments.dump();
    return call;
  }

  std::optional<Json> Value() {
    Skip();
    if (pos_ >= text_.size()) return std::nullopt;
    const char c = text_[pos_];
    if (c == '"' || c == '\'') return String(c);
    if (c == '[' || c == '(') return List(c == '[' ? ']' : ')');
    if (c == '{') return Dict();
    const std::string word = Name();
    if (word == "True") return Json(true);
    if (word == "False") return Json(false);
    if (word == "None") return Json(nullptr);
    pos_ -= word.size();
    return Number();
  }

  std::optional<Json> Number() {
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) ||
                                   std::string_view("+-.eE").find(text_[pos_]) != std::string_view::npos)) {
      ++pos_;
    }
    Json number = Json::parse(text_.substr(start, pos_ - start), nullptr, /*allow_exceptions=*/false);
    if (!number.is_number()) return std::nullopt;
    return number;
  }

  // A quoted string with Python's common escapes, as UTF-8.
  std::optional<Json> String(char quote) {
    std::string out;
    for (++pos_; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (c == quote) {
        ++pos_;
        return Json(out);
      }
      if (c == '\\' && ++pos_ < text_.size()) {
        c = text_[pos_];
        static constexpr std::string_view kFrom = "ntr0", kTo = "\n\t\r";
        const size_t k = kFrom.find(c);
        out += k == std::string_view::npos ? c : k < 3 ? kTo[k] : '\0';
        continue;
      }
      out += c;
    }
    return std::nullopt;
  }

  std::optional<Json> List(char close) {
    ++pos_;
    Json list = Json::array();
    while (!Eat(close)) {
      if (!list.empty() && !Eat(',')) return std::nullopt;
      if (Eat(close)) break;
      std::optional<Json> value = Value();
      if (!value) return std::nullopt;
      list.push_back(std::move(*value));
    }
    return list;
  }

  std::optional<Json> Dict() {
    ++pos_;
    Json dict = Json::object();
    while (!Eat('}')) {
      if (!dict.empty() && !Eat(',')) return std::nullopt;
      if (Eat('}')) break;
      std::optional<Json> key = Value();
      std::optional<Json> value;
      if (!key || !key->is_string() || !Eat(':') || !(value = Value())) return std::nullopt;
      dict[key->get<std::string>()] = std::move(*value);
    }
    return dict;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

ParsedToolOutput PythonicToolCallParser::Parse(std::string_view text, bool final) const {
  const size_t first = SkipJsonWhitespace(text, 0);
  const bool may_be_calls = first >= text.size() || text[first] == '[';
  if (!may_be_calls) return ParsedToolOutput{std::string(text), {}};
  if (!final) return ParsedToolOutput{};
  if (auto calls = PythonReader(text).Calls()) return ParsedToolOutput{"", std::move(*calls)};
  return ParsedToolOutput{std::string(text), {}};
}

}  // namespace pagoda::server
