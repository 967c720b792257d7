// libFuzzer target for the default model's tokenizer and the incremental
// detokenizer.
//
// Input: a mode byte, then the payload.
//   bit 0 clear: the payload is text to encode, with parse_special (bit 1)
//     and add_special (bit 2). Every id must be in the vocabulary, and
//     valid UTF-8 encoded without BOS/EOS must decode back to itself when
//     the vocabulary has a token for each of its bytes (bytes without one
//     are dropped, as Hugging Face drops them; SmolLM2 lacks a few control
//     bytes). Control tokens decode to their text.
//   bit 0 set: the payload is token ids, two bytes each (little-endian v:
//     v - 32 modulo the vocabulary size plus 64, so some ids are negative or
//     past the end; 0xFFFF and 0xFFFE are INT32_MAX and INT32_MIN). Decoding
//     them must fail exactly when one is out of range.
// Either way the ids (the valid ones) also go through the incremental
// detokenizer, with skip_special_tokens from bit 3: each delta must be valid
// UTF-8 and all of them together the full decode.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "model_assets.h"
#include "pagoda/tokenizer/byte_level.h"
#include "pagoda/tokenizer/incremental_detokenizer.h"
#include "pagoda/tokenizer/tokenizer.h"
#include "pagoda/tokenizer/utf8.h"

namespace {

using pagoda::StatusOr;
using pagoda::tokenizer::IncrementalDetokenizer;
using pagoda::tokenizer::IsValidUtf8;
using pagoda::tokenizer::TokenId;
using pagoda::tokenizer::Tokenizer;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "tokenizer_fuzz: %s\n", what);
  __builtin_trap();
}

// C-escaped, for messages.
std::string Escape(std::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  return out + "\"";
}

std::vector<TokenId> ReadIds(std::string_view payload, int vocab_size) {
  std::vector<TokenId> ids;
  for (size_t i = 0; i + 1 < payload.size(); i += 2) {
    const unsigned v = static_cast<uint8_t>(payload[i]) | static_cast<unsigned>(static_cast<uint8_t>(payload[i + 1])) << 8;
    if (v == 0xFFFF) {
      ids.push_back(std::numeric_limits<TokenId>::max());
    } else if (v == 0xFFFE) {
      ids.push_back(std::numeric_limits<TokenId>::min());
    } else {
      ids.push_back(static_cast<TokenId>(v % static_cast<unsigned>(vocab_size + 64)) - 32);
    }
  }
  return ids;
}

// Decoding succeeds exactly when every id is in range, and gives valid UTF-8.
void CheckDecode(const Tokenizer& tok, const std::vector<TokenId>& ids, bool skip_special) {
  bool all_valid = true;
  for (TokenId id : ids) {
    const bool valid = tok.IsValidId(id);
    all_valid = all_valid && valid;
    if (tok.TokenToPiece(id).ok() != valid) Fail("TokenToPiece's status disagrees with IsValidId");
  }
  const StatusOr<std::string> text = tok.Decode(ids, skip_special);
  if (text.ok() != all_valid) Fail("Decode's status disagrees with the ids' validity");
  if (text.ok() && !IsValidUtf8(*text)) Fail("Decode gave invalid UTF-8");
}

// Streams the ids; out-of-range ones are refused without changing the state.
void CheckIncremental(const Tokenizer& tok, const std::vector<TokenId>& ids, bool skip_special) {
  IncrementalDetokenizer detok(tok, skip_special);
  std::vector<TokenId> valid_ids;
  std::string streamed;
  for (TokenId id : ids) {
    const size_t pending = detok.pending_bytes();
    const StatusOr<std::string> delta = detok.Push(id);
    if (delta.ok() != tok.IsValidId(id)) Fail("Push's status disagrees with IsValidId");
    if (!delta.ok()) {
      if (detok.pending_bytes() != pending) Fail("a refused id changed the detokenizer's state");
      continue;
    }
    if (!IsValidUtf8(*delta)) Fail("a streamed delta is invalid UTF-8");
    if (detok.pending_bytes() > 3) Fail("more than 3 bytes held back");
    valid_ids.push_back(id);
    streamed += *delta;
  }
  const std::string rest = detok.Finish();
  if (!IsValidUtf8(rest)) Fail("Finish gave invalid UTF-8");
  if (detok.pending_bytes() != 0) Fail("bytes still held back after Finish");
  streamed += rest;
  const StatusOr<std::string> full = tok.Decode(valid_ids, skip_special);
  if (!full.ok() || *full != streamed) Fail("the streamed deltas differ from the full decode");
}

// Whether the vocabulary has a token for every byte of `text`.
bool EveryByteHasAToken(const Tokenizer& tok, std::string_view text) {
  static const std::vector<bool> has_token = [&tok] {
    std::vector<bool> has(256);
    for (int b = 0; b < 256; ++b) {
      const char byte = static_cast<char>(b);
      has[b] = tok.FindToken(pagoda::tokenizer::BytesToVocabText(std::string_view(&byte, 1))).has_value();
    }
    return has;
  }();
  for (unsigned char c : text) {
    if (!has_token[c]) return false;
  }
  return true;
}

// The ids, checked.
std::vector<TokenId> CheckEncode(const Tokenizer& tok, std::string_view text, bool parse_special, bool add_special) {
  const std::vector<TokenId> ids = tok.Encode(text, {.add_special = add_special, .parse_special = parse_special});
  for (TokenId id : ids) {
    if (!tok.IsValidId(id)) Fail("Encode gave an id outside the vocabulary");
  }
  const StatusOr<std::string> decoded = tok.Decode(ids);
  if (!decoded.ok()) Fail("the ids Encode gave do not decode");
  if (!add_special && IsValidUtf8(text) && EveryByteHasAToken(tok, text) && *decoded != text) {
    std::fprintf(stderr, "tokenizer_fuzz: text %s\n  decodes to %s\n  ids:", Escape(text).c_str(),
                 Escape(*decoded).c_str());
    for (TokenId id : ids) std::fprintf(stderr, " %d", id);
    Fail("\nDecode(Encode(text)) != text");
  }
  return ids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Tokenizer& tok = *pagoda::fuzz::DefaultModelAssets().tokenizer;
  const uint8_t mode = data[0];
  const std::string_view payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool skip_special = (mode & 8) != 0;
  std::vector<TokenId> ids;
  if ((mode & 1) == 0) {
    ids = CheckEncode(tok, payload, (mode & 2) != 0, (mode & 4) != 0);
  } else {
    ids = ReadIds(payload, tok.vocab_size());
    CheckDecode(tok, ids, skip_special);
  }
  CheckIncremental(tok, ids, skip_special);
  return 0;
}
