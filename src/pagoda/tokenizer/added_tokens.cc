#include "pagoda/tokenizer/added_tokens.h"

#include <algorithm>

namespace pagoda::tokenizer {
namespace {

// The length of the UTF-8 White_Space character starting at text[pos], or 0.
size_t WhitespaceAt(std::string_view text, size_t pos) {
  const auto byte = [&](size_t i) { return i < text.size() ? static_cast<uint8_t>(text[i]) : 0; };
  const uint8_t b = byte(pos);
  if (b == ' ' || (b >= '\t' && b <= '\r')) return 1;
  if (b == 0xC2 && (byte(pos + 1) == 0x85 || byte(pos + 1) == 0xA0)) return 2;  // U+0085, U+00A0
  if (b == 0xE1 && byte(pos + 1) == 0x9A && byte(pos + 2) == 0x80) return 3;     // U+1680
  if (b == 0xE2 && byte(pos + 1) == 0x80) {
    const uint8_t c = byte(pos + 2);
    if (c <= 0x8A || c == 0xA8 || c == 0xA9 || c == 0xAF) return 3;  // U+2000..200A, U+2028, U+2029, U+202F
  }
  if (b == 0xE2 && byte(pos + 1) == 0x81 && byte(pos + 2) == 0x9F) return 3;  // U+205F
  if (b == 0xE3 && byte(pos + 1) == 0x80 && byte(pos + 2) == 0x80) return 3;  // U+3000
  return 0;
}

// Where the whitespace that ends text[floor, end) begins.
size_t WhitespaceStart(std::string_view text, size_t floor, size_t end) {
  while (end > floor) {
    size_t start = end - 1;  // back to the first byte of the character before `end`
    while (start > floor && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
    if (WhitespaceAt(text, start) != end - start) break;
    end = start;
  }
  return end;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<Entry> entries) {
  for (Entry& entry : entries) {
    if (entry.text.empty()) continue;  // cannot be found in text
    by_first_byte_[static_cast<uint8_t>(entry.text[0])].push_back(std::move(entry));
  }
  for (auto& list : by_first_byte_) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Entry& a, const Entry& b) { return a.text.size() > b.text.size(); });
  }
}

void AddedTokenMatcher::Split(std::string_view text, bool parse_special, std::vector<Segment>* out) const {
  size_t run_start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const Entry* found = nullptr;
    for (const Entry& entry : by_first_byte_[static_cast<uint8_t>(text[pos])]) {
      if (entry.special && !parse_special) continue;
      if (text.compare(pos, entry.text.size(), entry.text) == 0) {
        found = &entry;
        break;
      }
    }
    if (found == nullptr) {
      ++pos;
      continue;
    }
    const size_t run_end = found->lstrip ? WhitespaceStart(text, run_start, pos) : pos;
    if (run_end > run_start) out->push_back({text.substr(run_start, run_end - run_start), -1});
    out->push_back({text.substr(pos, found->text.size()), found->id});
    pos += found->text.size();
    if (found->rstrip) {
      while (const size_t n = WhitespaceAt(text, pos)) pos += n;
    }
    run_start = pos;
  }
  if (run_start < text.size()) out->push_back({text.substr(run_start), -1});
}

}  // namespace pagoda::tokenizer
