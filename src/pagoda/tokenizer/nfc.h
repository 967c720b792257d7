// Unicode Normalization Form C, as HF tokenizers' NFC normalizer applies it
// (Qwen2's tokenizer.json has one), through ICU.
#pragma once

#include <string>
#include <string_view>

namespace pagoda::tokenizer {

// `text` in NFC. Text that is not valid UTF-8 is returned as it is: HF
// tokenizers only ever see valid text, and ill-formed bytes have no form.
std::string ToNfc(std::string_view text);

}  // namespace pagoda::tokenizer
