#include "pagoda/server/json_tool_calls.h"

#include <nlohmann/json.hpp>

#include "pagoda/server/json_scan.h"

namespace pagoda::server {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr std::string_view kHermesOpen = "<tool_call>";
constexpr std::string_view kHermesClose = "</tool_call>";
constexpr std::string_view kPythonTag = "<|python_tag|>";
constexpr std::string_view kMistralCalls = "[TOOL_CALLS]";
constexpr std::string_view kMistralArgs = "[ARGS]";

struct ScannedCall {
  ParsedToolCall call;
  size_t end = npos;  // after the object; npos: unfinished
  bool malformed = false;
};

// {"name": "...", "arguments" (or "parameters"): {...}} from `start`.
ScannedCall ScanCallObject(std::string_view text, size_t start) {
  const ScannedObject object = ScanJsonObject(text, start);
  ScannedCall out;
  out.malformed = object.malformed;
  out.end = object.end;
  for (const ScannedMember& m : object.members) {
    const size_t value_end = m.value_end == npos ? text.size() : m.value_end;
    if (m.key == "name" && m.value_end != npos) {
      out.call.name = DecodeJsonString(text.substr(m.value_start, value_end - m.value_start)).value_or("");
      out.malformed = out.malformed || out.call.name.empty();
    } else if (m.key == "arguments" || m.key == "parameters") {
      out.call.arguments = std::string(text.substr(m.value_start, value_end - m.value_start));
    }
  }
  return out;
}

bool IsArgumentsObject(const std::string& arguments) {
  return nlohmann::json::parse(arguments, nullptr, /*allow_exceptions=*/false).is_object();
}

// A final output's calls must all be whole: named, with an arguments
// object (none given: {}). Else the whole text is content.
ParsedToolOutput Finish(ParsedToolOutput parsed, std::string_view text, bool complete) {
  bool valid = complete && !parsed.calls.empty();
  for (ParsedToolCall& call : parsed.calls) {
    if (call.arguments.empty()) call.arguments = "{}";
    valid = valid && !call.name.empty() && IsArgumentsObject(call.arguments);
  }
  if (valid) return parsed;
  return ParsedToolOutput{std::string(text), {}};
}

// Content before a marker, holding back what may still become it.
ParsedToolOutput ContentOnly(std::string_view text, std::string_view marker, bool final) {
  const size_t held = final ? 0 : MarkerPrefixSuffix(text, marker);
  return ParsedToolOutput{std::string(text.substr(0, text.size() - held)), {}};
}

// Call objects from `i`, each followed by `separator` before the next.
// Returns whether the list ended cleanly (its last object closed).
bool ScanCallList(std::string_view text, size_t i, char separator, ParsedToolOutput* out) {
  while (true) {
    ScannedCall scanned = ScanCallObject(text, i);
    if (scanned.malformed) return false;
    out->calls.push_back(std::move(scanned.call));
    if (scanned.end == npos) return false;
    i = SkipJsonWhitespace(text, scanned.end);
    if (i >= text.size() || text[i] != separator) return true;
    i = SkipJsonWhitespace(text, i + 1);
    if (i >= text.size()) return false;
  }
}

}  // namespace

ParsedToolOutput HermesToolCallParser::Parse(std::string_view text, bool final) const {
  size_t open = text.find(kHermesOpen);
  if (open == npos) return ContentOnly(text, kHermesOpen, final);
  ParsedToolOutput out{std::string(text.substr(0, open)), {}};
  bool complete = true;
  while (open != npos) {
    ScannedCall scanned = ScanCallObject(text, open + kHermesOpen.size());
    if (scanned.malformed) {
      complete = false;
      break;
    }
    out.calls.push_back(std::move(scanned.call));
    if (scanned.end == npos) {
      complete = false;
      break;
    }
    const size_t after = SkipJsonWhitespace(text, scanned.end);
    // The closing tag may be missing (or half there) at the very end, as
    // vLLM's pattern allows; anything else after a call is not a call list.
    const std::string_view rest = text.substr(after);
    if (!rest.starts_with(kHermesClose) && !kHermesClose.starts_with(rest)) {
      complete = false;
      break;
    }
    open = text.find(kHermesOpen, after);
  }
  return final ? Finish(std::move(out), text, complete) : out;
}

ParsedToolOutput Llama3JsonToolCallParser::Parse(std::string_view text, bool final) const {
  size_t i = SkipJsonWhitespace(text, 0);
  if (text.substr(i, kPythonTag.size()) == kPythonTag) i = SkipJsonWhitespace(text, i + kPythonTag.size());
  const bool undecided = i >= text.size() || (kPythonTag.substr(0, text.size() - i) == text.substr(i));
  if (undecided) return final ? ParsedToolOutput{std::string(text), {}} : ParsedToolOutput{};
  if (text[i] != '{') return ParsedToolOutput{std::string(text), {}};
  ParsedToolOutput out;
  const bool closed = ScanCallList(text, i, ';', &out);
  bool complete = closed;
  if (closed && !out.calls.empty()) {
    // Nothing may follow the last call but whitespace.
    complete = SkipJsonWhitespace(text, text.rfind('}') + 1) == text.size();
  }
  return final ? Finish(std::move(out), text, complete) : out;
}

ParsedToolOutput RequiredToolCallParser::Parse(std::string_view text, bool final) const {
  const size_t open = SkipJsonWhitespace(text, 0);
  if (open >= text.size() || text[open] != '[') {
    return final ? ParsedToolOutput{std::string(text), {}} : ParsedToolOutput{};
  }
  ParsedToolOutput out;
  bool complete = ScanCallList(text, open + 1, ',', &out);
  if (complete) {
    const size_t close = SkipJsonWhitespace(text, text.rfind('}') + 1);
    complete = close < text.size() && text[close] == ']' && SkipJsonWhitespace(text, close + 1) == text.size();
  }
  return final ? Finish(std::move(out), text, complete) : out;
}

ParsedToolOutput MistralToolCallParser::Parse(std::string_view text, bool final) const {
  const size_t marker = text.find(kMistralCalls);
  if (marker == npos) return ContentOnly(text, kMistralCalls, final);
  ParsedToolOutput out{std::string(text.substr(0, marker)), {}};
  size_t i = SkipJsonWhitespace(text, marker + kMistralCalls.size());
  bool complete = false;
  if (i < text.size() && text[i] == '[') {  // [TOOL_CALLS][{...}, {...}]
    complete = ScanCallList(text, i + 1, ',', &out);
    const size_t close = complete ? SkipJsonWhitespace(text, text.rfind('}') + 1) : npos;
    complete = complete && close < text.size() && text[close] == ']';
  } else if (i < text.size()) {  // [TOOL_CALLS]name[ARGS]{...}, repeated
    for (size_t at = marker; at != npos; at = text.find(kMistralCalls, at)) {
      const size_t name_start = at + kMistralCalls.size();
      const size_t args = text.find(kMistralArgs, name_start);
      if (args == npos) break;
      ParsedToolCall call{std::string(text.substr(name_start, args - name_start)), ""};
      const size_t value_start = SkipJsonWhitespace(text, args + kMistralArgs.size());
      const size_t value_end = JsonValueEnd(text, value_start);
      call.arguments = std::string(text.substr(value_start, (value_end == npos ? text.size() : value_end) - value_start));
      out.calls.push_back(std::move(call));
      complete = value_end != npos;
      at = value_end;
    }
  }
  return final ? Finish(std::move(out), text, complete) : out;
}

}  // namespace pagoda::server
