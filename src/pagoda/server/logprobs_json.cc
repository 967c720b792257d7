#include "pagoda/server/logprobs_json.h"

#include <fmt/format.h>

#include <algorithm>

namespace pagoda::server {
namespace {

// JSON has no -inf; OpenAI and vLLM report masked tokens as -9999.
double Finite(float logprob) { return std::max(static_cast<double>(logprob), -9999.0); }

nlohmann::json Bytes(const std::string& text) {
  nlohmann::json bytes = nlohmann::json::array();
  for (unsigned char c : text) bytes.push_back(static_cast<int>(c));
  return bytes;
}

}  // namespace

std::string TokenName(int32_t token_id, const std::string& text, bool as_ids) {
  return as_ids ? fmt::format("token_id:{}", token_id) : text;
}

void AppendCompletionLogprobs(nlohmann::json& logprobs, std::span<const std::optional<PositionLogprobs>> positions,
                              const UnsetToken& unset, size_t& text_offset, bool as_ids) {
  if (logprobs.is_null()) {
    logprobs = {{"text_offset", nlohmann::json::array()},
                {"token_logprobs", nlohmann::json::array()},
                {"tokens", nlohmann::json::array()},
                {"top_logprobs", nlohmann::json::array()}};
  }
  for (const std::optional<PositionLogprobs>& position : positions) {
    const Logprob* chosen = position ? &position->front() : nullptr;
    const std::string& text = chosen ? chosen->decoded_token : unset.text;
    logprobs["text_offset"].push_back(text_offset);
    logprobs["tokens"].push_back(TokenName(chosen ? chosen->token_id : unset.id, text, as_ids));
    text_offset += text.size();
    if (!position) {
      logprobs["token_logprobs"].push_back(nullptr);
      logprobs["top_logprobs"].push_back(nullptr);
      continue;
    }
    logprobs["token_logprobs"].push_back(Finite(position->front().logprob));
    // The chosen token and the top N, as vLLM's dict has them.
    nlohmann::json top = nlohmann::json::object();
    for (const Logprob& entry : *position) {
      top[TokenName(entry.token_id, entry.decoded_token, as_ids)] = Finite(entry.logprob);
    }
    logprobs["top_logprobs"].push_back(std::move(top));
  }
}

nlohmann::json PromptLogprobsJson(std::span<const std::optional<PositionLogprobs>> positions) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::optional<PositionLogprobs>& position : positions) {
    if (!position) {
      out.push_back(nullptr);
      continue;
    }
    nlohmann::json entry = nlohmann::json::object();
    for (const Logprob& l : *position) {
      entry[std::to_string(l.token_id)] = {
          {"logprob", Finite(l.logprob)}, {"rank", l.rank}, {"decoded_token", l.decoded_token}};
    }
    out.push_back(std::move(entry));
  }
  return out;
}

nlohmann::json ChatLogprobs(std::span<const PositionLogprobs> positions, int32_t num_top, bool as_ids) {
  nlohmann::json content = nlohmann::json::array();
  for (const PositionLogprobs& position : positions) {
    const Logprob& chosen = position.front();
    std::vector<const Logprob*> by_rank;
    for (const Logprob& entry : position) by_rank.push_back(&entry);
    std::stable_sort(by_rank.begin(), by_rank.end(), [](const Logprob* a, const Logprob* b) { return a->rank < b->rank; });
    nlohmann::json top = nlohmann::json::array();
    for (size_t i = 0; i < by_rank.size() && static_cast<int32_t>(i) < num_top; ++i) {
      const std::string token = TokenName(by_rank[i]->token_id, by_rank[i]->decoded_token, as_ids);
      top.push_back({{"token", token}, {"logprob", Finite(by_rank[i]->logprob)}, {"bytes", Bytes(token)}});
    }
    const std::string token = TokenName(chosen.token_id, chosen.decoded_token, as_ids);
    content.push_back({{"token", token},
                       {"logprob", Finite(chosen.logprob)},
                       {"bytes", Bytes(token)},
                       {"top_logprobs", std::move(top)}});
  }
  return {{"content", std::move(content)}};
}

}  // namespace pagoda::server
