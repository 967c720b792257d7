#include "pagoda/tokenizer/gguf_tokenizer_loader.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace pagoda::tokenizer {
namespace {

StatusOr<std::optional<TokenId>> OptionalId(const gguf::GgufFile& file, const std::string& key) {
  if (file.Find(key) == nullptr) return std::optional<TokenId>();
  PAGODA_ASSIGN_OR_RETURN(uint64_t id, file.GetUint(key));
  if (id > static_cast<uint64_t>(std::numeric_limits<TokenId>::max())) {
    return InvalidArgumentError(key + " = " + std::to_string(id) + " is not a token id");
  }
  return std::optional<TokenId>(static_cast<TokenId>(id));
}

StatusOr<bool> OptionalFlag(const gguf::GgufFile& file, const std::string& key, bool absent) {
  if (file.Find(key) == nullptr) return absent;
  return file.GetBool(key);
}

}  // namespace

StatusOr<TokenizerSpec> TokenizerSpecFromGguf(const gguf::GgufFile& file) {
  TokenizerSpec spec;
  PAGODA_ASSIGN_OR_RETURN(spec.model, file.GetString("tokenizer.ggml.model"));
  // llama.cpp reads a missing pre-tokenizer name as "default"; keeping the
  // name lets Tokenizer::Create say which one is unsupported.
  if (file.Find("tokenizer.ggml.pre") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(spec.pre, file.GetString("tokenizer.ggml.pre"));
  } else {
    spec.pre = "default";
  }
  PAGODA_ASSIGN_OR_RETURN(spec.tokens, file.GetStringArray("tokenizer.ggml.tokens"));
  if (file.Find("tokenizer.ggml.token_type") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(std::vector<int64_t> types, file.GetIntArray("tokenizer.ggml.token_type"));
    spec.token_types.reserve(types.size());
    for (int64_t type : types) {
      if (type < static_cast<int64_t>(TokenType::kUndefined) || type > static_cast<int64_t>(TokenType::kByte)) {
        return InvalidArgumentError("tokenizer.ggml.token_type has unknown type " + std::to_string(type));
      }
      spec.token_types.push_back(static_cast<TokenType>(type));
    }
  }
  if (file.Find("tokenizer.ggml.merges") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(spec.merges, file.GetStringArray("tokenizer.ggml.merges"));
  }
  if (file.Find("tokenizer.ggml.scores") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(std::vector<double> scores, file.GetFloatArray("tokenizer.ggml.scores"));
    spec.scores.assign(scores.begin(), scores.end());
  }
  PAGODA_ASSIGN_OR_RETURN(spec.bos_id, OptionalId(file, "tokenizer.ggml.bos_token_id"));
  PAGODA_ASSIGN_OR_RETURN(spec.eos_id, OptionalId(file, "tokenizer.ggml.eos_token_id"));
  PAGODA_ASSIGN_OR_RETURN(spec.unk_id, OptionalId(file, "tokenizer.ggml.unknown_token_id"));
  PAGODA_ASSIGN_OR_RETURN(spec.pad_id, OptionalId(file, "tokenizer.ggml.padding_token_id"));
  // Absent flags take llama.cpp's defaults for the model: a SentencePiece
  // vocabulary adds BOS and a space prefix unless told otherwise.
  const bool spm = spec.model == "llama";
  PAGODA_ASSIGN_OR_RETURN(spec.add_bos, OptionalFlag(file, "tokenizer.ggml.add_bos_token", spm));
  PAGODA_ASSIGN_OR_RETURN(spec.add_eos, OptionalFlag(file, "tokenizer.ggml.add_eos_token", false));
  PAGODA_ASSIGN_OR_RETURN(spec.add_space_prefix, OptionalFlag(file, "tokenizer.ggml.add_space_prefix", spm));
  return spec;
}

StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizerFromGguf(const gguf::GgufFile& file) {
  PAGODA_ASSIGN_OR_RETURN(TokenizerSpec spec, TokenizerSpecFromGguf(file));
  return Tokenizer::Create(spec);
}

}  // namespace pagoda::tokenizer
