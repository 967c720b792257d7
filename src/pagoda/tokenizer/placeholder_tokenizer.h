// A tokenizer for a model that comes with none: --load-format dummy from a
// config.json alone (random weights have no vocabulary to speak of).
#pragma once

#include <memory>

#include "pagoda/base/status.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::tokenizer {

// Byte-level, with `vocab_size` tokens (at least 256): the 256 bytes, which
// spell any text, then placeholders "<|dummy_N|>" for ids 256 on, which
// only sampling produces. No merges, no BOS or EOS.
StatusOr<std::unique_ptr<Tokenizer>> PlaceholderTokenizer(int64_t vocab_size);

}  // namespace pagoda::tokenizer
