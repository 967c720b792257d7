// Where a sequence (and, summarised, a request) stands in its life, and why it
// finished, with vLLM's names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace pagoda {

enum class RequestStatus {
  kWaiting,          // queued, never scheduled
  kRunning,          // holds KV blocks and is scheduled every step
  kPreempted,        // blocks taken back; waits to recompute its context
  kFinishedStopped,  // EOS or a stop token / stop string
  kFinishedLength,   // max_tokens or max_model_len reached
  kFinishedAborted,  // cancelled by the client
};

inline bool IsFinished(RequestStatus s) { return s >= RequestStatus::kFinishedStopped; }
const char* RequestStatusName(RequestStatus s);

// OpenAI's finish_reason.
enum class FinishReason { kStop, kLength, kAbort };
const char* FinishReasonName(FinishReason r);  // "stop", "length", "abort"
FinishReason FinishReasonOf(RequestStatus finished_status);

// vLLM's stop_reason: the stop token id or stop string that ended the
// sequence; empty when it ended on EOS, length or abort.
using StopReason = std::optional<std::variant<int32_t, std::string>>;

}  // namespace pagoda
