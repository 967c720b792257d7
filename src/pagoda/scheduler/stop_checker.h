// Whether a sequence that just received a token is done, in vLLM's order:
// EOS and stop tokens only after min_tokens outputs, then the length limits.
// Stop strings need text and are the engine's business.
#pragma once

#include <cstdint>
#include <optional>

#include "pagoda/request/sequence.h"

namespace pagoda {

struct StopDecision {
  RequestStatus status;  // kFinishedStopped or kFinishedLength
  StopReason stop_reason;
};

std::optional<StopDecision> CheckStop(const Sequence& seq, std::optional<int32_t> eos_token_id, int64_t max_model_len);

}  // namespace pagoda
