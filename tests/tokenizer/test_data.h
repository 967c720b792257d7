// Shared by the tokenizer tests: the committed fixtures and the default
// model's tokenizer.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "pagoda/tokenizer/tokenizer.h"
#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer::testing {

// tests/fixtures/tokenizer/<name>.
std::string FixturePath(const std::string& name);

// tests/fixtures/tokenizer_spm/<name>: the SentencePiece fixtures.
std::string SpmFixturePath(const std::string& name);

// tests/fixtures/tokenizer_bpe/<name>: the byte-level BPE family fixtures.
std::string BpeFixturePath(const std::string& name);

// One JSON value per line of a fixture; aborts the test binary if the file is
// missing or malformed, since every test reading it would be meaningless.
std::vector<nlohmann::json> ReadJsonLinesAt(const std::string& path);
// The same for tests/fixtures/tokenizer/<name>.
std::vector<nlohmann::json> ReadJsonLines(const std::string& name);

// corpus.jsonl decoded; index i is file line i + 1.
const std::vector<std::string>& Corpus();

// The default model's tokenizer spec and tokenizer, loaded once; nullptr
// when the model file is not installed.
const TokenizerSpec* ModelSpec();
const Tokenizer* ModelTokenizer();

// `text` with bytes outside printable ASCII escaped, for failure messages.
std::string Escape(const std::string& text, size_t max_bytes = 200);

std::string IdsToString(const std::vector<TokenId>& ids);

// Streams `ids` through the incremental detokenizer: every delta must be
// whole UTF-8, and all of them together Decode's text. Adds a failure for
// each of the first `max_reported` problems; counts them all in *mismatches.
void ExpectStreamMatchesDecode(const Tokenizer& tok, const std::vector<TokenId>& ids, bool skip_special,
                               int* mismatches, int max_reported = 10);

// `text` without the bytes `tok` has no token for: what decoding its
// encoding gives back.
std::string WithoutUncoveredBytes(const Tokenizer& tok, const std::string& text);

// All 256 byte tokens (id = byte value) followed by `extra` tokens: a small
// byte-level vocabulary for hand-checked BPE tests.
TokenizerSpec ToySpec(const std::vector<std::string>& extra, const std::vector<std::string>& merges,
                      const std::string& pre = "gpt2");

}  // namespace pagoda::tokenizer::testing

// Skips a test that needs the default model when it is not installed.
#define PAGODA_REQUIRE_MODEL_TOKENIZER()                                     \
  if (::pagoda::tokenizer::testing::ModelTokenizer() == nullptr) {          \
    GTEST_SKIP() << "model not installed: " << PAGODA_TEST_MODEL;           \
  }
