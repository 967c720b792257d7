#include "pagoda/tokenizer/unicode_classes.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <unicode/uchar.h>
#include <unicode/uset.h>
#include <unicode/ustring.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace pagoda::tokenizer {
namespace {

Status IcuError(const std::string& what, UErrorCode status) {
  return InternalError("ICU: " + what + ": " + u_errorName(status));
}

// Takes out of `set` every code point of PCRE2's Unicode version or older
// (ICU's Age property, which counts those assigned up to that version). On
// those, PCRE2 and ICU agree (unicode_classes_test checks every code point).
Status RemoveWhatPcre2Knows(USet* set) {
  char version[32];
  if (pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, version) < 0) return InternalError("PCRE2 has no Unicode version");
  UChar version16[32];
  u_charsToUChars(version, version16, static_cast<int32_t>(strlen(version)) + 1);
  UErrorCode status = U_ZERO_ERROR;
  icu::LocalUSetPointer known(uset_openEmpty());
  uset_applyPropertyAlias(known.getAlias(), u"Age", -1, version16, -1, &status);
  if (U_FAILURE(status)) return IcuError(std::string("code points of Unicode ") + version, status);
  uset_removeAll(set, known.getAlias());
  return Status::Ok();
}

// PCRE2 class items ("\x{A}-\x{B}\x{C}") for the code points of `set`.
std::string ClassItems(const USet* set) {
  std::string items;
  for (int32_t i = 0; i < uset_getRangeCount(set); ++i) {
    UChar32 first = 0;
    UChar32 last = 0;
    UErrorCode status = U_ZERO_ERROR;
    uset_getItem(set, i, &first, &last, nullptr, 0, &status);
    char item[32];
    if (first == last) {
      snprintf(item, sizeof(item), "\\x{%X}", static_cast<unsigned>(first));
    } else {
      snprintf(item, sizeof(item), "\\x{%X}-\\x{%X}", static_cast<unsigned>(first), static_cast<unsigned>(last));
    }
    items += item;
  }
  return items;
}

// The class items of the code points ICU puts in general category `name`
// and PCRE2 does not know; empty when there are none.
StatusOr<std::string> ComputeNewerCodePoints(const std::string& name) {
  const int32_t mask = u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY_MASK, name.c_str());
  if (mask == UCHAR_INVALID_CODE) return InternalError("\\p{" + name + "} is not a Unicode general category");
  UErrorCode status = U_ZERO_ERROR;
  icu::LocalUSetPointer set(uset_openEmpty());
  uset_applyIntPropertyValue(set.getAlias(), UCHAR_GENERAL_CATEGORY_MASK, mask, &status);
  if (U_FAILURE(status)) return IcuError("code points of \\p{" + name + "}", status);
  PAGODA_RETURN_IF_ERROR(RemoveWhatPcre2Knows(set.getAlias()));
  return ClassItems(set.getAlias());
}

// ComputeNewerCodePoints, once per category and process.
StatusOr<std::string> NewerCodePoints(std::string_view name) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, std::string, std::less<>>;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache->find(name); it != cache->end()) return it->second;
  PAGODA_ASSIGN_OR_RETURN(std::string items, ComputeNewerCodePoints(std::string(name)));
  return cache->emplace(name, std::move(items)).first->second;
}

}  // namespace

StatusOr<std::string> WithIcuGeneralCategories(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (pattern.substr(i, 3) == "\\p{") {
      const size_t close = pattern.find('}', i);
      if (close == std::string_view::npos) return InternalError("unterminated \\p{ in pre-tokenizer regex");
      const std::string_view escape = pattern.substr(i, close + 1 - i);
      PAGODA_ASSIGN_OR_RETURN(const std::string newer, NewerCodePoints(escape.substr(3, escape.size() - 4)));
      if (newer.empty() || in_class) {
        out.append(escape).append(newer);
      } else {
        out.append("[").append(escape).append(newer).append("]");
      }
      i = close;
    } else if (c == '\\') {
      out.append(pattern.substr(i, 2));  // an escaped character, such as \[, is never a class bracket
      ++i;
    } else {
      if (c == '[') in_class = true;
      if (c == ']') in_class = false;
      out += c;
    }
  }
  return out;
}

}  // namespace pagoda::tokenizer
