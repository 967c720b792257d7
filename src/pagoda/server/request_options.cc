#include "pagoda/server/request_options.h"

#include <fmt/format.h>

#include "pagoda/server/responses.h"

namespace pagoda::server {

RequestOptions ReadRequestOptions(FieldReader& r, std::string_view id_prefix) {
  RequestOptions out;
  const std::optional<std::string> request_id = r.String("request_id");
  out.id = request_id && !request_id->empty() ? fmt::format("{}-{}", id_prefix, *request_id) : NewRequestId(id_prefix);
  out.return_token_ids = r.Bool("return_token_ids").value_or(false);
  out.tokens_as_ids = r.Bool("return_tokens_as_token_ids").value_or(false);
  const std::optional<int64_t> k = r.Int("truncate_prompt_tokens");
  if (k && *k < -1) {
    r.Fail("truncate_prompt_tokens", "'truncate_prompt_tokens' must be -1 or at least 0");
  } else {
    out.truncate_prompt_tokens = k;
  }
  return out;
}

std::optional<ApiError> TruncatePrompt(std::vector<int32_t>& token_ids, const RequestOptions& options,
                                       std::optional<int64_t> max_tokens, const ServingLimits& limits) {
  if (!options.truncate_prompt_tokens) return std::nullopt;
  const int64_t room = limits.max_model_len - max_tokens.value_or(0);
  const int64_t keep = *options.truncate_prompt_tokens == -1 ? room : *options.truncate_prompt_tokens;
  // max_tokens past the context: FitToContext says so.
  if (keep < 0) return std::nullopt;
  if (keep > room) {
    return BadRequest(fmt::format("truncate_prompt_tokens={} cannot be greater than max_model_len - max_tokens = {}. "
                                  "Please request a smaller truncation size.",
                                  keep, room),
                      "truncate_prompt_tokens");
  }
  if (keep == 0) return BadRequest("truncate_prompt_tokens=0 leaves no prompt", "truncate_prompt_tokens");
  if (static_cast<int64_t>(token_ids.size()) > keep) token_ids.erase(token_ids.begin(), token_ids.end() - keep);
  return std::nullopt;
}

}  // namespace pagoda::server
