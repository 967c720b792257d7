// One token sequence of a request: the prompt followed by what was sampled
// for it. A request with n > 1 (or best_of, or beams) starts with a single
// sequence, so its prompt is computed once; when the prompt's logits are
// sampled the scheduler forks it into the request's other sequences, which
// then run, stop and get preempted independently.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pagoda/request/request_status.h"

namespace pagoda {

class Request;

// Unique within one scheduler, which assigns it, so that its KV manager
// can key block tables by it.
using SeqId = int64_t;
inline constexpr SeqId kNoSeqId = -1;  // not assigned yet

class Sequence {
 public:
  // `index` is the sequence's place among its request's outputs (0..n-1).
  Sequence(const Request& request, int32_t index, SeqId id, std::vector<int32_t> token_ids,
           int64_t num_prompt_tokens);
  // Moves only: a copy would share the id.
  Sequence(Sequence&&) = default;
  Sequence& operator=(Sequence&&) = default;
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  SeqId id() const { return id_; }
  // A request's first sequence is made before any scheduler sees it: the
  // scheduler that takes the request gives it its id, once.
  void assign_id(SeqId id);
  int32_t index() const { return index_; }
  const Request& request() const { return *request_; }

  std::span<const int32_t> token_ids() const { return token_ids_; }
  std::span<const int32_t> prompt_token_ids() const { return token_ids().first(num_prompt_tokens_); }
  std::span<const int32_t> output_token_ids() const { return token_ids().subspan(num_prompt_tokens_); }
  int64_t num_tokens() const { return static_cast<int64_t>(token_ids_.size()); }
  int64_t num_prompt_tokens() const { return num_prompt_tokens_; }
  int64_t num_output_tokens() const { return num_tokens() - num_prompt_tokens_; }

  // Tokens whose K/V is in the cache; it chases num_tokens().
  int64_t num_computed_tokens() const { return num_computed_tokens_; }
  void set_num_computed_tokens(int64_t n);

  RequestStatus status() const { return status_; }
  void set_status(RequestStatus s) { status_ = s; }
  bool finished() const { return IsFinished(status_); }
  // Sets a finished status, with the stop token or string that caused it.
  void Finish(RequestStatus finished_status, StopReason stop_reason = std::nullopt);
  const StopReason& stop_reason() const { return stop_reason_; }

  void AppendToken(int32_t token) { token_ids_.push_back(token); }

  int32_t num_preemptions() const { return num_preemptions_; }
  // Back to the waiting state with nothing computed: its K/V is recomputed,
  // output tokens included, when it is scheduled again.
  void Preempt();

  // A copy with a new id and index that shares nothing but the past.
  Sequence ForkAs(int32_t index, SeqId id) const;

 private:
  const Request* request_;
  SeqId id_;
  int32_t index_;
  std::vector<int32_t> token_ids_;  // prompt then outputs, contiguous for hashing blocks
  int64_t num_prompt_tokens_;
  int64_t num_computed_tokens_ = 0;
  RequestStatus status_ = RequestStatus::kWaiting;
  StopReason stop_reason_;
  int32_t num_preemptions_ = 0;
};

}  // namespace pagoda
