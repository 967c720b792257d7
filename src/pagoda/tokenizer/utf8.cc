#include "pagoda/tokenizer/utf8.h"

namespace pagoda::tokenizer {
namespace {

struct LeadInfo {
  int length;          // total bytes in the sequence; 0 for a byte that cannot lead
  uint8_t second_min;  // the second byte's range is narrower than 80..BF for some
  uint8_t second_max;  // leads, which rules out overlongs, surrogates and > U+10FFFF
};

LeadInfo Lead(uint8_t b) {
  if (b < 0x80) return {1, 0, 0};
  if (b < 0xC2) return {0, 0, 0};
  if (b < 0xE0) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b < 0xF0) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b < 0xF4) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

// Length of the well-formed prefix of the sequence at `pos`: equal to the
// lead's length when complete, otherwise the maximal subpart that was valid.
int ValidPrefix(std::string_view bytes, size_t pos, const LeadInfo& lead) {
  int n = 1;
  while (n < lead.length && pos + n < bytes.size()) {
    const uint8_t c = static_cast<uint8_t>(bytes[pos + n]);
    const uint8_t lo = n == 1 ? lead.second_min : 0x80;
    const uint8_t hi = n == 1 ? lead.second_max : 0xBF;
    if (c < lo || c > hi) break;
    ++n;
  }
  return n;
}

}  // namespace

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool NextCodepoint(std::string_view text, size_t* pos, char32_t* codepoint) {
  if (*pos >= text.size()) return false;
  const uint8_t b = static_cast<uint8_t>(text[*pos]);
  const LeadInfo lead = Lead(b);
  if (lead.length == 0 || ValidPrefix(text, *pos, lead) != lead.length) return false;
  static constexpr uint8_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t cp = b & kLeadMask[lead.length];
  for (int i = 1; i < lead.length; ++i) cp = (cp << 6) | (static_cast<uint8_t>(text[*pos + i]) & 0x3F);
  *pos += lead.length;
  *codepoint = cp;
  return true;
}

bool IsValidUtf8(std::string_view text) {
  size_t pos = 0;
  char32_t cp;
  while (pos < text.size()) {
    if (!NextCodepoint(text, &pos, &cp)) return false;
  }
  return true;
}

size_t AppendUtf8Lossy(std::string_view bytes, bool at_end, std::string* out) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    const LeadInfo lead = Lead(static_cast<uint8_t>(bytes[pos]));
    if (lead.length == 0) {
      AppendUtf8(kReplacementChar, out);
      ++pos;
      continue;
    }
    const int n = ValidPrefix(bytes, pos, lead);
    if (n == lead.length) {
      out->append(bytes.substr(pos, n));
    } else if (pos + n == bytes.size() && !at_end) {
      break;  // truncated, but the next bytes may complete it
    } else {
      AppendUtf8(kReplacementChar, out);
    }
    pos += n;
  }
  return pos;
}

}  // namespace pagoda::tokenizer
