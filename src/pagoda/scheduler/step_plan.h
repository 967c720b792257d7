// What the scheduler hands the runner for one step, and what it hands back
// to the engine after the step's tokens are sampled.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pagoda/kv_blocks/kv_cache_manager.h"
#include "pagoda/request/request.h"

namespace pagoda {

// Views in a plan point into the scheduler's records. They stay valid until
// Update(), and the block tables for as long as their sequence neither
// allocates nor finishes.
struct ScheduledSequence {
  RequestHandle handle = -1;
  SeqId seq_id = 0;
  int32_t seq_index = 0;             // which of the request's completions
  int64_t num_computed_tokens = 0;   // position of the first token computed this step
  std::span<const int32_t> token_ids;    // the tokens computed this step (a prefill chunk, or one decode token)
  BlockTables block_tables;          // one per KV cache group, each covering num_computed_tokens + token_ids.size() tokens
  int64_t num_cached_tokens = 0;     // prefix-cache hit when admitted this step, else 0
  bool needs_logits = false;         // the chunk reaches the sequence's end: sample its next token
  int32_t num_samples = 0;           // tokens to sample from those logits (> 1 forks the sequence)
  // What the runner and the sampler read, so that nothing asks the
  // scheduler during the step: the request (its id, timings, for metrics),
  // its sampling parameters, and this sequence's prompt and output tokens
  // (penalties, bad words, prompt-logprob positions).
  const Request* request = nullptr;
  const SamplingParams* params = nullptr;
  std::span<const int32_t> prompt_token_ids;
  std::span<const int32_t> output_token_ids;
};

struct StepPlan {
  std::vector<ScheduledSequence> seqs;
  // Block copies (copy-on-write) the runner performs, in order, before the step.
  std::vector<BlockCopy> copies;
  std::vector<SeqId> preempted;  // lost their blocks this step
  std::vector<SeqId> finished;   // finished or aborted since the last step: drop their state
  int64_t num_batched_tokens = 0;

  bool empty() const { return seqs.empty(); }
};

// One sequence's progress from one step.
struct SequenceOutput {
  RequestHandle handle = -1;
  // The request's record: valid until the next call into the scheduler
  // (a finished request's, while its UpdateResult holds it).
  const Request* request = nullptr;
  SeqId seq_id = 0;
  int32_t seq_index = 0;
  std::vector<int32_t> new_token_ids;
  RequestStatus status = RequestStatus::kRunning;
  StopReason stop_reason;
};

struct UpdateResult {
  std::vector<SequenceOutput> outputs;
  // Requests whose every sequence has finished, handed over with their
  // tokens and timings; the scheduler no longer knows them.
  std::vector<std::unique_ptr<Request>> finished_requests;
};

}  // namespace pagoda
