#include "pagoda/scheduler/stop_checker.h"

#include <algorithm>

#include "pagoda/base/check.h"
#include "pagoda/request/request.h"

namespace pagoda {

std::optional<StopDecision> CheckStop(const Sequence& seq, std::optional<int32_t> eos_token_id, int64_t max_model_len) {
  PAGODA_CHECK(seq.num_output_tokens() > 0);
  const SamplingParams& p = seq.request().params();
  const int32_t last = seq.output_token_ids().back();
  if (seq.num_output_tokens() >= p.min_tokens) {
    if (!p.ignore_eos && eos_token_id && last == *eos_token_id)
      return StopDecision{RequestStatus::kFinishedStopped, {}};
    if (std::find(p.stop_token_ids.begin(), p.stop_token_ids.end(), last) != p.stop_token_ids.end()) {
      return StopDecision{RequestStatus::kFinishedStopped, StopReason(last)};
    }
  }
  if (seq.num_tokens() >= max_model_len || (p.max_tokens && seq.num_output_tokens() >= *p.max_tokens)) {
    return StopDecision{RequestStatus::kFinishedLength, {}};
  }
  return std::nullopt;
}

}  // namespace pagoda
