// The default model's tokenizer and chat template, loaded once for the
// targets that need them. A missing or broken model aborts the fuzzer at
// start-up: without it those targets would test nothing.
#pragma once

#include <string>

#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::fuzz {

struct ModelAssets {
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::string chat_template;  // tokenizer.chat_template's source
};

const ModelAssets& DefaultModelAssets();

}  // namespace pagoda::fuzz
