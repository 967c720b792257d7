// libFuzzer target for StopStringMatcher, checked against a naive reference
// that keeps the whole text and rescans it on every delta.
//
// Input: a flags byte (bit 0: include_stop_str_in_output), then segments
// separated by 0xFE or 0xFF (bytes UTF-8 never uses). The first segments,
// up to an empty one (or kMaxStops of them), are the stop strings; the rest
// are the deltas, each pushed with check_stop true when the separator before
// it is 0xFF and false when it is 0xFE (min_tokens not reached yet).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/engine/stop_string_matcher.h"

namespace {

constexpr size_t kMaxStops = 8;

struct Delta {
  std::string text;
  bool check_stop;
};

struct Case {
  bool include_stop_str_in_output = false;
  std::vector<std::string> stop;
  std::vector<Delta> deltas;
};

Case ReadCase(const uint8_t* data, size_t size) {
  Case c;
  if (size == 0) return c;
  c.include_stop_str_in_output = (data[0] & 1) != 0;
  std::vector<Delta> segments;  // each with the kind of separator before it
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  bool check_stop = true;
  size_t begin = 0;
  for (size_t i = 0; i <= rest.size(); ++i) {
    if (i < rest.size() && static_cast<uint8_t>(rest[i]) < 0xFE) continue;
    segments.push_back({std::string(rest.substr(begin, i - begin)), check_stop});
    if (i < rest.size()) check_stop = static_cast<uint8_t>(rest[i]) == 0xFF;
    begin = i + 1;
  }
  size_t next = 0;
  while (next < segments.size() && c.stop.size() < kMaxStops && !segments[next].text.empty()) {
    c.stop.push_back(segments[next++].text);
  }
  if (next < segments.size() && segments[next].text.empty()) ++next;  // the end of the stop strings
  c.deltas.assign(segments.begin() + static_cast<std::ptrdiff_t>(next), segments.end());
  return c;
}

// vLLM's rule, spelled out: at a checked delta, the stop strings in list
// order, each at its first occurrence that ends inside the new text.
struct ReferenceMatch {
  size_t index;
  size_t end;  // where the output ends
};

std::optional<ReferenceMatch> FindStop(const Case& c, const std::string& text, size_t old_size) {
  for (size_t i = 0; i < c.stop.size(); ++i) {
    const std::string& s = c.stop[i];
    for (size_t start = 0; start + s.size() <= text.size(); ++start) {
      if (start + s.size() > old_size && text.compare(start, s.size(), s) == 0) {
        return ReferenceMatch{i, c.include_stop_str_in_output ? start + s.size() : start};
      }
    }
  }
  return std::nullopt;
}

// How much of `text` may be out while no stop string matched: all of it but
// the longest suffix that a later delta could complete into a stop string
// (none of it needs holding when the stop string is output anyway).
size_t Releasable(const Case& c, const std::string& text) {
  if (c.include_stop_str_in_output) return text.size();
  size_t hold = 0;
  for (const std::string& s : c.stop) {
    for (size_t k = 1; k < s.size() && k <= text.size(); ++k) {
      if (text.compare(text.size() - k, k, s, 0, k) == 0 && k > hold) hold = k;
    }
  }
  return text.size() - hold;
}

[[noreturn]] void Fail(const char* what, const std::string& emitted, const std::string& text) {
  std::fprintf(stderr, "stop_string_fuzz: %s\n  emitted (%zu bytes): %s\n  text (%zu bytes): %s\n", what,
               emitted.size(), emitted.c_str(), text.size(), text.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Case c = ReadCase(data, size);
  pagoda::StopStringMatcher matcher(c.stop, c.include_stop_str_in_output);
  std::string text;     // everything pushed
  std::string emitted;  // everything the matcher let out
  for (const Delta& delta : c.deltas) {
    const size_t old_size = text.size();
    text += delta.text;
    const std::optional<ReferenceMatch> expected =
        delta.check_stop && !delta.text.empty() ? FindStop(c, text, old_size) : std::nullopt;
    const pagoda::StopStringMatcher::Update update = matcher.Push(delta.text, delta.check_stop);
    emitted += update.text;
    if (update.finished != expected.has_value() || matcher.finished() != update.finished) {
      Fail("matched where the reference does not, or the reverse", emitted, text);
    }
    if (expected) {
      if (update.stop_index != expected->index) Fail("matched a different stop string", emitted, text);
      if (emitted != text.substr(0, expected->end)) Fail("wrong output at the match", emitted, text);
      if (!matcher.Flush().empty()) Fail("Flush after a match is not empty", emitted, text);
      return 0;
    }
    if (emitted != text.substr(0, Releasable(c, text))) Fail("released too much or too little", emitted, text);
  }
  emitted += matcher.Flush();
  if (emitted != text) Fail("output and flushed text differ from the input", emitted, text);
  return 0;
}
