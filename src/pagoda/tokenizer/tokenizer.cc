#include "pagoda/tokenizer/tokenizer.h"

#include <algorithm>

#include "pagoda/base/check.h"
#include "pagoda/tokenizer/byte_level.h"
#include "pagoda/tokenizer/nfc.h"
#include "pagoda/tokenizer/spm_text.h"
#include "pagoda/tokenizer/utf8.h"

namespace pagoda::tokenizer {
namespace {

constexpr std::string_view kEscapedSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space

bool IsSpecialType(TokenType type) { return type == TokenType::kControl || type == TokenType::kUnknown; }

bool IsAddedType(TokenType type) { return IsSpecialType(type) || type == TokenType::kUserDefined; }

Status CheckOptionalId(const char* what, const std::optional<TokenId>& id, size_t vocab_size) {
  if (id && (*id < 0 || static_cast<size_t>(*id) >= vocab_size)) {
    return InvalidArgumentError(std::string(what) + " id " + std::to_string(*id) + " is outside the vocabulary of " +
                                std::to_string(vocab_size));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::Create(const TokenizerSpec& spec) {
  const bool spm = spec.model == "llama";
  if (spec.model != "gpt2" && !spm) {
    return UnimplementedError("unsupported tokenizer model \"" + spec.model +
                              "\" (supported: \"gpt2\", byte-level BPE; \"llama\", SentencePiece BPE)");
  }
  if (spec.tokens.empty()) return InvalidArgumentError("tokenizer has an empty vocabulary");
  if (!spec.token_types.empty() && spec.token_types.size() != spec.tokens.size()) {
    return InvalidArgumentError("tokenizer has " + std::to_string(spec.token_types.size()) + " token types for " +
                                std::to_string(spec.tokens.size()) + " tokens");
  }
  const size_t n = spec.tokens.size();
  PAGODA_RETURN_IF_ERROR(CheckOptionalId("BOS", spec.bos_id, n));
  PAGODA_RETURN_IF_ERROR(CheckOptionalId("EOS", spec.eos_id, n));
  PAGODA_RETURN_IF_ERROR(CheckOptionalId("UNK", spec.unk_id, n));
  PAGODA_RETURN_IF_ERROR(CheckOptionalId("PAD", spec.pad_id, n));
  if (spec.add_bos && !spec.bos_id) return InvalidArgumentError("tokenizer adds BOS but has no BOS token");
  if (spec.add_eos && !spec.eos_id) return InvalidArgumentError("tokenizer adds EOS but has no EOS token");

  // SentencePiece has no pre-tokenizer: llama.cpp ignores spec.pre for it.
  std::unique_ptr<PreTokenizer> pre;
  if (!spm) {
    PAGODA_ASSIGN_OR_RETURN(pre, PreTokenizer::Create(spec.pre));
  }

  std::unordered_map<std::string, TokenId> vocab;
  vocab.reserve(n);
  std::vector<std::string> pieces(n);
  std::vector<AddedTokenMatcher::Entry> added;
  for (size_t i = 0; i < n; ++i) {
    const std::string& text = spec.tokens[i];
    const auto id = static_cast<TokenId>(i);
    // A text listed twice keeps its first id, so lookups are deterministic.
    vocab.emplace(text, id);
    const TokenType type = spec.token_types.empty() ? TokenType::kNormal : spec.token_types[i];
    if (spm) {
      pieces[i] = SpmTokenPiece(text, type);
    } else {
      std::optional<std::string> bytes = VocabTextToBytes(text);
      pieces[i] = bytes ? std::move(*bytes) : text;
    }
    if (IsAddedType(type)) {
      const auto listed = [&](const std::vector<TokenId>& ids) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
      added.push_back({text, id, IsSpecialType(type), listed(spec.lstrip_ids), listed(spec.rstrip_ids)});
    }
  }
  std::optional<BpeModel> bpe;
  std::optional<SpmModel> spm_model;
  if (spm) {
    PAGODA_ASSIGN_OR_RETURN(spm_model, SpmModel::Create(spec.tokens, spec.token_types, spec.scores, spec.unk_id));
  } else {
    PAGODA_ASSIGN_OR_RETURN(bpe, BpeModel::Create(vocab, spec.merges));
  }
  return std::unique_ptr<Tokenizer>(new Tokenizer(spec, std::move(vocab), std::move(bpe), std::move(pre),
                                                  std::move(spm_model), std::move(pieces), std::move(added)));
}

Tokenizer::Tokenizer(const TokenizerSpec& spec, std::unordered_map<std::string, TokenId> vocab,
                     std::optional<BpeModel> bpe, std::unique_ptr<PreTokenizer> pre, std::optional<SpmModel> spm,
                     std::vector<std::string> pieces, std::vector<AddedTokenMatcher::Entry> added)
    : tokens_(spec.tokens),
      types_(spec.token_types.empty() ? std::vector<TokenType>(spec.tokens.size(), TokenType::kNormal)
                                      : spec.token_types),
      pieces_(std::move(pieces)),
      vocab_(std::move(vocab)),
      bpe_(std::move(bpe)),
      pre_(std::move(pre)),
      spm_(std::move(spm)),
      space_prefix_(spm_ && spec.add_space_prefix),
      space_prefix_rule_(spec.space_prefix_rule),
      normalize_nfc_(spec.normalize_nfc),
      ignore_merges_(pre_ != nullptr && spec.ignore_merges.value_or(pre_->ignore_merges())),
      added_(std::move(added)),
      bos_id_(spec.bos_id),
      eos_id_(spec.eos_id),
      unk_id_(spec.unk_id),
      pad_id_(spec.pad_id),
      add_bos_(spec.add_bos),
      add_eos_(spec.add_eos) {}

std::vector<TokenId> Tokenizer::Encode(std::string_view text, const EncodeOptions& options) const {
  std::vector<TokenId> out;
  out.reserve(text.size() / 3 + 2);
  if (options.add_special && add_bos_) out.push_back(*bos_id_);
  std::vector<AddedTokenMatcher::Segment> segments;
  added_.Split(text, options.parse_special, &segments);
  // HF normalizes the text between added tokens, never the tokens themselves.
  std::vector<std::string> normalized;
  if (normalize_nfc_) {
    normalized.reserve(segments.size());
    for (AddedTokenMatcher::Segment& segment : segments) {
      if (segment.id < 0) segment.text = normalized.emplace_back(ToNfc(segment.text));
    }
  }
  if (spm_) {
    EncodeSpmSegments(segments, &out);
  } else {
    BpeModel::Scratch scratch;
    std::vector<std::string_view> words;
    for (const AddedTokenMatcher::Segment& segment : segments) {
      if (segment.id >= 0) {
        out.push_back(segment.id);
      } else {
        EncodeBpeText(segment.text, &scratch, &words, &out);
      }
    }
  }
  if (options.add_special && add_eos_) out.push_back(*eos_id_);
  return out;
}

void Tokenizer::EncodeSpmSegments(const std::vector<AddedTokenMatcher::Segment>& segments,
                                  std::vector<TokenId>* out) const {
  SpmModel::Scratch scratch;
  std::string escaped;
  // llama.cpp prefixes the first run and every run after an added token;
  // HF's legacy Llama tokenizer agrees (SentencePiece itself prefixes only
  // the start of the text). HF's Metaspace prefixes no run that already
  // starts with a space, and with prepend_scheme "first" only the text's start.
  bool after_added = true;
  for (size_t i = 0; i < segments.size(); ++i) {
    const AddedTokenMatcher::Segment& segment = segments[i];
    if (segment.id >= 0) {
      out->push_back(segment.id);
      after_added = true;
      continue;
    }
    escaped.clear();
    const bool starts_with_space = segment.text.starts_with(' ') || segment.text.starts_with(kEscapedSpace);
    bool prefix = space_prefix_ && after_added;
    if (space_prefix_rule_ == SpacePrefixRule::kTextStartUnlessSpace) prefix = prefix && i == 0 && !starts_with_space;
    if (space_prefix_rule_ == SpacePrefixRule::kEveryRunUnlessSpace) prefix = prefix && !starts_with_space;
    if (prefix) AppendEscapedSpaces(" ", &escaped);
    AppendEscapedSpaces(segment.text, &escaped);
    spm_->Encode(escaped, &scratch, out);
    after_added = false;
  }
}

void Tokenizer::EncodeBpeText(std::string_view text, BpeModel::Scratch* scratch, std::vector<std::string_view>* words,
                              std::vector<TokenId>* out) const {
  words->clear();
  pre_->Split(text, words);
  for (std::string_view word : *words) {
    if (ignore_merges_) {
      const auto it = vocab_.find(BytesToVocabText(word));
      if (it != vocab_.end()) {
        out->push_back(it->second);
        continue;
      }
    }
    bpe_->Encode(word, scratch, out);
  }
}

StatusOr<std::string> Tokenizer::Decode(std::span<const TokenId> ids, bool skip_special_tokens) const {
  std::string bytes;
  for (TokenId id : ids) {
    if (!IsValidId(id)) {
      return OutOfRangeError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                             std::to_string(vocab_size()));
    }
    if (skip_special_tokens && IsSpecial(id)) continue;
    bytes += pieces_[id];
  }
  std::string text;
  text.reserve(bytes.size());
  AppendUtf8Lossy(bytes, /*at_end=*/true, &text);
  if (space_prefix_ && text.starts_with(' ')) text.erase(0, 1);
  return text;
}

StatusOr<std::string_view> Tokenizer::TokenToPiece(TokenId id) const {
  if (!IsValidId(id)) {
    return OutOfRangeError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                           std::to_string(vocab_size()));
  }
  return std::string_view(pieces_[id]);
}

const std::string& Tokenizer::TokenText(TokenId id) const {
  PAGODA_CHECK(IsValidId(id));
  return tokens_[id];
}

TokenType Tokenizer::GetTokenType(TokenId id) const {
  PAGODA_CHECK(IsValidId(id));
  return types_[id];
}

bool Tokenizer::IsSpecial(TokenId id) const { return IsSpecialType(GetTokenType(id)); }

std::optional<TokenId> Tokenizer::FindToken(std::string_view vocab_text) const {
  const auto it = vocab_.find(std::string(vocab_text));
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

}  // namespace pagoda::tokenizer
