#include "pagoda/server/prompt_input.h"

#include <fmt/format.h>

#include "pagoda/server/token_id.h"

namespace pagoda::server {
namespace {

bool IsTokenList(const nlohmann::json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const nlohmann::json& e : v) {
    if (!e.is_number_integer()) return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<PromptInput>> ReadPrompts(FieldReader& r, const tokenizer::Tokenizer& tokenizer,
                                                    bool add_special_tokens) {
  const nlohmann::json& v = r.Raw("prompt");
  std::vector<nlohmann::json> items;
  if (v.is_string() || IsTokenList(v)) {
    items.push_back(v);
  } else if (v.is_array() && !v.empty()) {
    items.assign(v.begin(), v.end());
  } else {
    r.Fail("prompt", "'prompt' must be a string, a list of strings, a list of token ids or a list of such lists");
    return std::nullopt;
  }
  std::vector<PromptInput> prompts;
  const tokenizer::EncodeOptions options{.add_special = add_special_tokens, .parse_special = true};
  for (const nlohmann::json& item : items) {
    PromptInput p;
    if (item.is_string()) {
      p.text = item.get<std::string>();
      p.token_ids = tokenizer.Encode(p.text, options);
    } else if (IsTokenList(item)) {
      for (const nlohmann::json& e : item) {
        const std::optional<int32_t> id = TokenIdFromJson(e, tokenizer.vocab_size());
        if (!id) {
          r.Fail("prompt", fmt::format("prompt token id {} is outside the vocabulary [0, {})", e.dump(),
                                       tokenizer.vocab_size()));
          return std::nullopt;
        }
        p.token_ids.push_back(*id);
      }
      StatusOr<std::string> text = tokenizer.Decode(p.token_ids);
      if (text.ok()) p.text = std::move(*text);
    } else {
      r.Fail("prompt", "each prompt must be a string or a non-empty list of token ids");
      return std::nullopt;
    }
    if (p.token_ids.empty()) {
      r.Fail("prompt", "the prompt is empty");
      return std::nullopt;
    }
    prompts.push_back(std::move(p));
  }
  return prompts;
}

}  // namespace pagoda::server
