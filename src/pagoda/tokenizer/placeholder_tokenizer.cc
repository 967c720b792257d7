#include "pagoda/tokenizer/placeholder_tokenizer.h"

#include <string>

#include "pagoda/tokenizer/byte_level.h"
#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

StatusOr<std::unique_ptr<Tokenizer>> PlaceholderTokenizer(int64_t vocab_size) {
  if (vocab_size < 256) {
    return InvalidArgumentError("a placeholder tokenizer needs a vocabulary of at least 256 tokens, not " +
                                std::to_string(vocab_size));
  }
  TokenizerSpec spec;
  spec.model = "gpt2";
  spec.pre = "gpt2";
  spec.tokens.reserve(static_cast<size_t>(vocab_size));
  for (int byte = 0; byte < 256; ++byte) spec.tokens.push_back(BytesToVocabText(std::string(1, static_cast<char>(byte))));
  for (int64_t id = 256; id < vocab_size; ++id) spec.tokens.push_back("<|dummy_" + std::to_string(id) + "|>");
  return Tokenizer::Create(spec);
}

}  // namespace pagoda::tokenizer
