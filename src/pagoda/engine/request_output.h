// What a request's output stream carries, with vLLM's RequestOutput and
// CompletionOutput fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/request/request_status.h"

namespace pagoda {

// One candidate token at one position, from the raw logits (vLLM's Logprob).
struct Logprob {
  int32_t token_id = 0;
  float logprob = 0;
  int32_t rank = 0;  // 1 = the most likely token
  std::string decoded_token;
};

// One position: the sampled (or, for prompt logprobs, actual) token first,
// then the requested top-N that are not it, best first: the entries of
// vLLM's {token_id: Logprob} dict.
using PositionLogprobs = std::vector<Logprob>;

struct CompletionOutput {
  int32_t index = 0;  // 0..n-1
  std::string text;
  std::vector<int32_t> token_ids;
  // Sum of the raw logprobs of token_ids; set when logprobs were requested (as in vLLM V1).
  std::optional<double> cumulative_logprob;
  std::optional<std::vector<PositionLogprobs>> logprobs;  // one per token, when requested
  std::optional<FinishReason> finish_reason;             // set once this completion finished
  StopReason stop_reason;

  bool finished() const { return finish_reason.has_value(); }
};

// Seconds on the engine's monotonic clock; unset until the event happens.
struct RequestMetrics {
  double arrival_time = 0;
  std::optional<double> first_scheduled_time;
  std::optional<double> first_token_time;
  std::optional<double> last_token_time;
  std::optional<double> finished_time;
};

struct RequestOutput {
  std::string request_id;
  std::optional<std::string> prompt;  // unset when the prompt was given as token ids
  std::vector<int32_t> prompt_token_ids;
  // One entry per prompt token, the first unset (nothing predicts it).
  std::optional<std::vector<std::optional<PositionLogprobs>>> prompt_logprobs;
  // Cumulative: all completions; delta: those with something new.
  std::vector<CompletionOutput> outputs;
  bool finished = false;
  int64_t num_cached_tokens = 0;  // prompt tokens found in the prefix cache
  RequestMetrics metrics;
};

}  // namespace pagoda
