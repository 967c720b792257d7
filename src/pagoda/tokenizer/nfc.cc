#include "pagoda/tokenizer/nfc.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "pagoda/base/check.h"
#include "pagoda/tokenizer/utf8.h"

namespace pagoda::tokenizer {

std::string ToNfc(std::string_view text) {
  if (!IsValidUtf8(text)) return std::string(text);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  PAGODA_CHECK_MSG(U_SUCCESS(status), "ICU has no NFC data");
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  if (nfc->isNormalized(in, status) && U_SUCCESS(status)) return std::string(text);
  status = U_ZERO_ERROR;
  const icu::UnicodeString out = nfc->normalize(in, status);
  PAGODA_CHECK_MSG(U_SUCCESS(status), "ICU NFC normalization failed");
  std::string result;
  out.toUTF8String(result);
  return result;
}

}  // namespace pagoda::tokenizer
