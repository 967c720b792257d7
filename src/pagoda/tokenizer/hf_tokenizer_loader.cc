#include "pagoda/tokenizer/hf_tokenizer_loader.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pagoda::tokenizer {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// HF's own Split patterns for the families whose PCRE2 forms
// pre_tokenizer.cc holds (tokenizers' configs for Llama 3 and Qwen2).
constexpr std::string_view kLlama3Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space

StatusOr<std::string> ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read '" + path.string() + "'");
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

StatusOr<json> ReadJson(const fs::path& path) {
  PAGODA_ASSIGN_OR_RETURN(const std::string text, ReadText(path));
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    return DataLossError("'" + path.string() + "' is not valid JSON: " + e.what());
  }
}

std::string TypeOf(const json& component) {
  return component.is_object() && component.contains("type") && component["type"].is_string()
             ? component["type"].get<std::string>()
             : component.dump();
}

// The steps of a component that may be a Sequence of them.
std::vector<json> Steps(const json& component, const char* list_key) {
  if (component.is_null()) return {};
  if (TypeOf(component) == "Sequence" && component.contains(list_key) && component[list_key].is_array()) {
    return component[list_key].get<std::vector<json>>();
  }
  return {component};
}

bool IsTrue(const json& object, const char* key) {
  return object.contains(key) && object[key].is_boolean() && object[key].get<bool>();
}

std::string StringOf(const json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : std::string();
}

Status Refuse(const std::string& what, const json& component) {
  return UnimplementedError("tokenizer.json: " + what + " " + component.dump().substr(0, 300) + " is not supported");
}

class SpecBuilder {
 public:
  SpecBuilder(const json& tokenizer, const json& config) : t_(tokenizer), config_(config) {}

  StatusOr<TokenizerSpec> Build() {
    const json& model = t_.value("model", json());
    if (StringOf(model, "type") != "BPE") return Refuse("model", json(StringOf(model, "type")));
    if (!StringOf(model, "continuing_subword_prefix").empty() || !StringOf(model, "end_of_word_suffix").empty()) {
      return Refuse("BPE model with affixes", json(StringOf(model, "continuing_subword_prefix")));
    }
    PAGODA_RETURN_IF_ERROR(Vocabulary(model));
    PAGODA_ASSIGN_OR_RETURN(std::vector<std::string> merges, Merges(model));
    const bool byte_level = HasByteLevel(t_.value("pre_tokenizer", json()));
    if (byte_level) {
      PAGODA_RETURN_IF_ERROR(ByteLevelModel(model));
      spec_.merges = std::move(merges);
    } else {
      PAGODA_RETURN_IF_ERROR(SentencePieceModel(model, merges));
    }
    PAGODA_RETURN_IF_ERROR(PostProcessor());
    PAGODA_RETURN_IF_ERROR(SpecialTokens());
    return std::move(spec_);
  }

 private:
  static bool HasByteLevel(const json& pre) {
    for (const json& step : Steps(pre, "pretokenizers")) {
      if (TypeOf(step) == "ByteLevel") return true;
    }
    return false;
  }

  Status Vocabulary(const json& model) {
    const json& vocab = model.value("vocab", json());
    if (!vocab.is_object() || vocab.empty()) return DataLossError("tokenizer.json: model.vocab is missing");
    std::vector<std::pair<TokenId, std::string>> entries;
    for (const auto& [text, id] : vocab.items()) {
      if (!id.is_number_integer()) return DataLossError("tokenizer.json: vocab entry '" + text + "' has no id");
      entries.emplace_back(id.get<TokenId>(), text);
    }
    const json& added = t_.value("added_tokens", json::array());
    for (const json& a : added) {
      if (!a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") || !a["content"].is_string()) {
        return DataLossError("tokenizer.json: added token without id or content: " + a.dump());
      }
      const TokenId id = a["id"].get<TokenId>();
      entries.emplace_back(id, a["content"].get<std::string>());
      added_type_[id] = IsTrue(a, "special") ? TokenType::kControl : TokenType::kUserDefined;
      if (IsTrue(a, "lstrip")) spec_.lstrip_ids.push_back(id);
      if (IsTrue(a, "rstrip")) spec_.rstrip_ids.push_back(id);
      if (IsTrue(a, "single_word")) {
        return UnimplementedError("tokenizer.json: added token '" + a["content"].get<std::string>() +
                                  "' has single_word, which is not supported yet");
      }
    }
    TokenId max_id = -1;
    for (const auto& [id, text] : entries) {
      if (id < 0 || id > (1 << 24)) return DataLossError("tokenizer.json: token id " + std::to_string(id) + " is out of range");
      max_id = std::max(max_id, id);
    }
    spec_.tokens.assign(static_cast<size_t>(max_id) + 1, std::string());
    std::vector<bool> seen(spec_.tokens.size(), false);
    for (auto& [id, text] : entries) {
      if (seen[id] && spec_.tokens[id] != text) {
        return DataLossError("tokenizer.json: token id " + std::to_string(id) + " names both '" + spec_.tokens[id] +
                             "' and '" + text + "'");
      }
      seen[id] = true;
      spec_.tokens[id] = std::move(text);
    }
    for (size_t id = 0; id < seen.size(); ++id) {
      if (!seen[id]) return DataLossError("tokenizer.json: no token has id " + std::to_string(id));
    }
    spec_.token_types.assign(spec_.tokens.size(), TokenType::kNormal);
    for (const auto& [id, type] : added_type_) spec_.token_types[id] = type;
    return Status::Ok();
  }

  // "left right" strings, or [left, right] pairs since tokenizers 0.20.
  static StatusOr<std::vector<std::string>> Merges(const json& model) {
    std::vector<std::string> merges;
    for (const json& m : model.value("merges", json::array())) {
      if (m.is_string()) {
        merges.push_back(m.get<std::string>());
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
      } else {
        return DataLossError("tokenizer.json: malformed merge " + m.dump());
      }
    }
    return merges;
  }

  Status ByteLevelModel(const json& model) {
    spec_.model = "gpt2";
    const json& normalizer = t_.value("normalizer", json());
    if (TypeOf(normalizer) == "NFC") {
      spec_.normalize_nfc = true;
    } else if (!normalizer.is_null()) {
      return Refuse("normalizer", normalizer);
    }
    if (IsTrue(model, "byte_fallback")) return Refuse("byte-level BPE with byte_fallback", model["byte_fallback"]);
    const std::vector<json> steps = Steps(t_["pre_tokenizer"], "pretokenizers");
    const json& last = steps.back();
    if (TypeOf(last) != "ByteLevel" || IsTrue(last, "add_prefix_space")) {
      return Refuse("pre_tokenizer", t_["pre_tokenizer"]);
    }
    const bool gpt2_regex = last.value("use_regex", true);
    if (steps.size() == 1 && gpt2_regex) {
      spec_.pre = "gpt2";
    } else if (steps.size() == 2 && gpt2_regex && TypeOf(steps[0]) == "Digits" && IsTrue(steps[0], "individual_digits")) {
      spec_.pre = "smollm";
    } else if (steps.size() == 2 && !gpt2_regex && TypeOf(steps[0]) == "Split" &&
               StringOf(steps[0], "behavior") == "Isolated" && !IsTrue(steps[0], "invert") &&
               steps[0].contains("pattern") && steps[0]["pattern"].contains("Regex")) {
      const std::string regex = StringOf(steps[0]["pattern"], "Regex");
      if (regex == kLlama3Split) spec_.pre = "llama-bpe";
      if (regex == kQwen2Split) spec_.pre = "qwen2";
    }
    if (spec_.pre.empty()) return Refuse("pre_tokenizer", t_["pre_tokenizer"]);
    spec_.ignore_merges = IsTrue(model, "ignore_merges");
    return Status::Ok();
  }

  // Spaces as U+2581 (a Replace normalizer or Metaspace), a space prefix
  // (Prepend normalizer, or Metaspace with a prepend scheme), byte fallback.
  Status SentencePieceModel(const json& model, const std::vector<std::string>& merges) {
    spec_.model = "llama";
    bool spaces = false;
    bool prefix = false;
    for (const json& step : Steps(t_.value("normalizer", json()), "normalizers")) {
      const std::string type = TypeOf(step);
      if (type == "Replace" && StringOf(step.value("pattern", json()), "String") == " " &&
          StringOf(step, "content") == kSpace) {
        spaces = true;
      } else if (type == "Prepend" && StringOf(step, "prepend") == kSpace) {
        prefix = true;
      } else {
        return Refuse("normalizer", step);
      }
    }
    for (const json& step : Steps(t_.value("pre_tokenizer", json()), "pretokenizers")) {
      // Gemma's converter splits at " " after its normalizer has replaced
      // every space: nothing is left to split.
      if (spaces && TypeOf(step) == "Split" && StringOf(step.value("pattern", json()), "String") == " ") continue;
      const std::string scheme = StringOf(step, "prepend_scheme");
      if (TypeOf(step) != "Metaspace" || StringOf(step, "replacement") != kSpace || IsTrue(step, "split") ||
          (scheme != "always" && scheme != "first" && scheme != "never")) {
        return Refuse("pre_tokenizer", step);
      }
      spaces = true;
      prefix = scheme != "never";
      spec_.space_prefix_rule = scheme == "first" ? SpacePrefixRule::kTextStartUnlessSpace
                                                  : SpacePrefixRule::kEveryRunUnlessSpace;
    }
    if (!spaces) return Refuse("tokenizer without byte-level or U+2581 spaces", t_.value("normalizer", json()));
    if (!IsTrue(model, "byte_fallback")) return Refuse("SentencePiece-style BPE without byte_fallback", model);
    spec_.add_space_prefix = prefix;
    // SentencePiece merges the pair whose token scores highest; HF the pair
    // whose merge comes first. Scoring each merged token by its first merge's
    // rank makes the two agree.
    spec_.scores.assign(spec_.tokens.size(), 0.0f);
    std::vector<bool> scored(spec_.tokens.size(), false);
    std::unordered_map<std::string, TokenId> ids;
    for (size_t i = 0; i < spec_.tokens.size(); ++i) ids.emplace(spec_.tokens[i], static_cast<TokenId>(i));
    for (size_t rank = 0; rank < merges.size(); ++rank) {
      const size_t space = merges[rank].find(' ');
      if (space == std::string::npos) return DataLossError("tokenizer.json: malformed merge '" + merges[rank] + "'");
      const std::string merged = merges[rank].substr(0, space) + merges[rank].substr(space + 1);
      const auto it = ids.find(merged);
      if (it == ids.end()) return DataLossError("tokenizer.json: merge '" + merges[rank] + "' makes no token");
      if (!scored[it->second]) {
        spec_.scores[it->second] = -static_cast<float>(rank + 1);
        scored[it->second] = true;
      }
    }
    for (size_t id = 0; id < spec_.tokens.size(); ++id) {
      const std::string& s = spec_.tokens[id];
      if (s.size() == 6 && s.starts_with("<0x") && s.back() == '>' && !added_type_.contains(static_cast<TokenId>(id))) {
        spec_.token_types[id] = TokenType::kByte;
      }
    }
    if (const std::string unk = StringOf(model, "unk_token"); !unk.empty()) {
      const auto it = ids.find(unk);
      if (it == ids.end()) return DataLossError("tokenizer.json: unk_token '" + unk + "' is not in the vocabulary");
      spec_.unk_id = it->second;
      if (!added_type_.contains(it->second)) spec_.token_types[it->second] = TokenType::kUnknown;
    }
    return Status::Ok();
  }

  StatusOr<TokenId> IdOf(const std::string& text) const {
    for (size_t i = 0; i < spec_.tokens.size(); ++i) {
      if (spec_.tokens[i] == text) return static_cast<TokenId>(i);
    }
    return DataLossError("tokenizer: special token '" + text + "' is not in the vocabulary");
  }

  // TemplateProcessing's "single": special tokens before the sequence are
  // BOS, after it EOS.
  Status PostProcessor() {
    const json& post = t_.value("post_processor", json());
    for (const json& step : Steps(post, "processors")) {
      const std::string type = TypeOf(step);
      if (type == "ByteLevel") continue;  // offsets only
      if (type != "TemplateProcessing" || !step.contains("single") || !step["single"].is_array()) {
        return Refuse("post_processor", step);
      }
      bool after = false;
      for (const json& piece : step["single"]) {
        if (piece.contains("Sequence")) {
          after = true;
          continue;
        }
        if (!piece.contains("SpecialToken")) return Refuse("post_processor", step);
        PAGODA_ASSIGN_OR_RETURN(TokenId id, IdOf(StringOf(piece["SpecialToken"], "id")));
        if (after) {
          if (spec_.add_eos) return Refuse("post_processor with two EOS tokens", step);
          spec_.add_eos = true;
          spec_.eos_id = id;
        } else {
          if (spec_.add_bos) return Refuse("post_processor with two BOS tokens", step);
          spec_.add_bos = true;
          spec_.bos_id = id;
        }
      }
    }
    return Status::Ok();
  }

  // tokenizer_config.json names them as strings or as {"content": ...}.
  StatusOr<std::optional<TokenId>> ConfigToken(const char* key) const {
    if (!config_.is_object() || !config_.contains(key) || config_[key].is_null()) return std::optional<TokenId>();
    const json& v = config_[key];
    const std::string text = v.is_string() ? v.get<std::string>() : StringOf(v, "content");
    if (text.empty()) return DataLossError(std::string("tokenizer_config.json: ") + key + " is malformed");
    PAGODA_ASSIGN_OR_RETURN(TokenId id, IdOf(text));
    return std::optional<TokenId>(id);
  }

  Status SpecialTokens() {
    PAGODA_ASSIGN_OR_RETURN(std::optional<TokenId> bos, ConfigToken("bos_token"));
    PAGODA_ASSIGN_OR_RETURN(std::optional<TokenId> eos, ConfigToken("eos_token"));
    PAGODA_ASSIGN_OR_RETURN(std::optional<TokenId> pad, ConfigToken("pad_token"));
    PAGODA_ASSIGN_OR_RETURN(std::optional<TokenId> unk, ConfigToken("unk_token"));
    if (bos && !spec_.add_bos) spec_.bos_id = bos;
    if (eos) spec_.eos_id = eos;
    if (pad) spec_.pad_id = pad;
    if (unk) spec_.unk_id = unk;
    return Status::Ok();
  }

  const json& t_;
  const json& config_;
  TokenizerSpec spec_;
  std::unordered_map<TokenId, TokenType> added_type_;
};

}  // namespace

StatusOr<TokenizerSpec> TokenizerSpecFromHfJson(std::string_view tokenizer_json, std::string_view config_json) {
  json tokenizer;
  json config;
  try {
    tokenizer = json::parse(tokenizer_json);
    if (!config_json.empty()) config = json::parse(config_json);
  } catch (const json::exception& e) {
    return DataLossError(std::string("tokenizer.json or tokenizer_config.json is not valid JSON: ") + e.what());
  }
  if (!tokenizer.is_object()) return DataLossError("tokenizer.json is not a JSON object");
  try {
    return SpecBuilder(tokenizer, config).Build();
  } catch (const json::exception& e) {  // a field of an unexpected type that a check missed
    return DataLossError(std::string("tokenizer.json: ") + e.what());
  }
}

StatusOr<TokenizerSpec> TokenizerSpecFromHf(const std::string& directory) {
  const fs::path dir(directory);
  PAGODA_ASSIGN_OR_RETURN(const std::string tokenizer, ReadText(dir / "tokenizer.json"));
  std::string config;
  if (std::error_code error; fs::exists(dir / "tokenizer_config.json", error)) {
    PAGODA_ASSIGN_OR_RETURN(config, ReadText(dir / "tokenizer_config.json"));
  }
  return TokenizerSpecFromHfJson(tokenizer, config);
}

StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizerFromHf(const std::string& directory) {
  PAGODA_ASSIGN_OR_RETURN(TokenizerSpec spec, TokenizerSpecFromHf(directory));
  return Tokenizer::Create(spec);
}

StatusOr<std::optional<std::string>> ChatTemplateFromHf(const std::string& directory) {
  const fs::path dir(directory);
  std::error_code error;
  if (fs::exists(dir / "chat_template.jinja", error)) {
    std::ifstream in(dir / "chat_template.jinja", std::ios::binary);
    if (!in) return NotFoundError("cannot read '" + (dir / "chat_template.jinja").string() + "'");
    return std::optional<std::string>(std::string((std::istreambuf_iterator<char>(in)), {}));
  }
  if (!fs::exists(dir / "tokenizer_config.json", error)) return std::optional<std::string>();
  PAGODA_ASSIGN_OR_RETURN(const json config, ReadJson(dir / "tokenizer_config.json"));
  const json& chat_template = config.is_object() ? config.value("chat_template", json()) : json();
  if (chat_template.is_null()) return std::optional<std::string>();
  if (chat_template.is_string()) return std::optional<std::string>(chat_template.get<std::string>());
  if (chat_template.is_array()) {
    for (const json& named : chat_template) {
      if (StringOf(named, "name") == "default" && named.contains("template") && named["template"].is_string()) {
        return std::optional<std::string>(named["template"].get<std::string>());
      }
    }
  }
  return DataLossError("tokenizer_config.json: chat_template is neither a string nor a list with a \"default\" template");
}

}  // namespace pagoda::tokenizer
