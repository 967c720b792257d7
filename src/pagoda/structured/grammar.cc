#include "pagoda/structured/grammar.h"

#include <cstdio>

namespace pagoda::structured {
namespace {

std::string ByteName(int byte) {
  if (byte >= 0x21 && byte <= 0x7E && byte != '\\' && byte != ']' && byte != '-' && byte != '^') {
    return std::string(1, static_cast<char>(byte));
  }
  char hex[8];
  snprintf(hex, sizeof(hex), "\\x%02X", byte);
  return hex;
}

std::string ByteSetString(const ByteSet& set) {
  std::string out = "[";
  for (int b = 0; b < 256;) {
    if (!set.Contains(static_cast<uint8_t>(b))) {
      ++b;
      continue;
    }
    int last = b;
    while (last + 1 < 256 && set.Contains(static_cast<uint8_t>(last + 1))) ++last;
    out += ByteName(b);
    if (last > b) {
      out += '-';
      out += ByteName(last);
    }
    b = last + 1;
  }
  return out + "]";
}

}  // namespace

size_t Grammar::NumSymbols() const {
  size_t count = 0;
  for (const Rule& rule : rules) {
    for (const Alternative& alternative : rule.alternatives) count += alternative.size();
  }
  return count;
}

std::string Grammar::ToString() const {
  std::string out;
  for (const Rule& rule : rules) {
    out += rule.name + " ::=";
    for (size_t a = 0; a < rule.alternatives.size(); ++a) {
      if (a > 0) out += " |";
      if (rule.alternatives[a].empty()) out += " \"\"";
      for (Symbol symbol : rule.alternatives[a]) {
        out += " " + (symbol.is_rule() ? rules[symbol.rule()].name : ByteSetString(byte_sets[symbol.byte_set()]));
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace pagoda::structured
