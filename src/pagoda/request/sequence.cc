#include "pagoda/request/sequence.h"

#include "pagoda/base/check.h"

namespace pagoda {
Sequence::Sequence(const Request& request, int32_t index, SeqId id, std::vector<int32_t> token_ids,
                   int64_t num_prompt_tokens)
    : request_(&request),
      id_(id),
      index_(index),
      token_ids_(std::move(token_ids)),
      num_prompt_tokens_(num_prompt_tokens) {
  PAGODA_CHECK(num_prompt_tokens_ >= 0 && num_prompt_tokens_ <= num_tokens());
}

void Sequence::assign_id(SeqId id) {
  PAGODA_CHECK_MSG(id_ == kNoSeqId && id != kNoSeqId, "a sequence's id is assigned once");
  id_ = id;
}

void Sequence::set_num_computed_tokens(int64_t n) {
  PAGODA_CHECK_MSG(n >= 0 && n <= num_tokens(), "computed tokens beyond the sequence");
  num_computed_tokens_ = n;
}

void Sequence::Finish(RequestStatus finished_status, StopReason stop_reason) {
  PAGODA_CHECK(IsFinished(finished_status));
  status_ = finished_status;
  stop_reason_ = std::move(stop_reason);
}

void Sequence::Preempt() {
  PAGODA_CHECK(status_ == RequestStatus::kRunning);
  status_ = RequestStatus::kPreempted;
  num_computed_tokens_ = 0;
  ++num_preemptions_;
}

Sequence Sequence::ForkAs(int32_t index, SeqId id) const {
  Sequence child(*request_, index, id, token_ids_, num_prompt_tokens_);
  child.num_computed_tokens_ = num_computed_tokens_;
  child.status_ = status_;
  return child;
}

}  // namespace pagoda
