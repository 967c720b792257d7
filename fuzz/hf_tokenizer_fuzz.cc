// libFuzzer target for the Hugging Face tokenizer loader: tokenizer.json and
// tokenizer_config.json text, as a model directory could hold them.
//
// Input: tokenizer.json's text, then optionally a NUL byte and
// tokenizer_config.json's. Loading must return a spec or an error, never
// crash; a spec that Tokenizer::Create accepts must encode a fixed text
// with ids inside its vocabulary and decode them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "pagoda/tokenizer/hf_tokenizer_loader.h"
#include "pagoda/tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view tokenizer_json = input.substr(0, nul);
  const std::string_view config_json = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  auto spec = pagoda::tokenizer::TokenizerSpecFromHfJson(tokenizer_json, config_json);
  if (!spec.ok()) return 0;
  // Vocabularies are bounded so that a fuzzed one stays small to build.
  if (spec->tokens.size() > 4096) return 0;
  auto tokenizer = pagoda::tokenizer::Tokenizer::Create(*spec);
  if (!tokenizer.ok()) return 0;
  const auto ids = (*tokenizer)->Encode("Hello, world! 123 <s> caf\xC3\xA9 \xE2\x96\x81x");
  for (int32_t id : ids) {
    if (!(*tokenizer)->IsValidId(id)) {
      std::fprintf(stderr, "encoded id %d outside the vocabulary of %d\n", id, (*tokenizer)->vocab_size());
      std::abort();
    }
  }
  if (!(*tokenizer)->Decode(ids).ok()) std::abort();
  return 0;
}
