// Iteration-level scheduler (continuous batching). Each step it gives every
// running sequence its next tokens (a decode token, or the next chunk of a
// prompt or of a recomputation) within a token budget, then admits waiting
// sequences with what budget is left. There are no prefill and decode
// phases: each sequence's num_computed_tokens chases its num_tokens.
//
// When blocks run out a running sequence is preempted by recompute: its
// blocks are freed and it goes to the front of the waiting queue, to be
// recomputed, usually from its own still-cached prefix.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/kv_blocks/kv_cache_manager.h"
#include "pagoda/request/request.h"
#include "pagoda/scheduler/scheduler_config.h"
#include "pagoda/scheduler/scheduler_stats.h"
#include "pagoda/scheduler/step_plan.h"
#include "pagoda/scheduler/step_token_budget.h"

namespace pagoda {

// One sequence of a parking request's next generation: it continues the
// current sequence of index `parent` with `token`.
struct ParkedSuccessor {
  int32_t parent = 0;
  int32_t token = 0;
  friend bool operator==(const ParkedSuccessor&, const ParkedSuccessor&) = default;
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerConfig config);

  // Queues a request, giving it its handle and its sequence its id, or
  // refuses one that can never run: an invalid id or sampling parameters, a
  // prompt of max_model_len tokens or more, more sequences than
  // max_num_seqs, or a sequence that could outgrow the whole KV cache.
  Status AddRequest(std::unique_ptr<Request> request);
  // AddRequest's checks of the request itself (all but the id's uniqueness).
  // It reads only the configuration, so another thread may call it while
  // this one schedules: the engine refuses requests synchronously with it.
  Status CheckAdmissible(const Request& request) const;
  // Cancels a request wherever it is, freeing its blocks; null when unknown.
  // By string id at the API edge, by handle elsewhere.
  std::unique_ptr<Request> AbortRequest(const std::string& request_id);
  std::unique_ptr<Request> AbortRequest(RequestHandle handle);
  // Ends one unfinished sequence as stopped, for a stop string the engine
  // matched in the text, freeing its blocks. Returns the request when that
  // was its last unfinished sequence, else null (also for unknown ones).
  std::unique_ptr<Request> StopSequence(RequestHandle handle, int32_t seq_index, StopReason reason);

  // Parking requests (Request::parks()) get no token from Update(): once a
  // sequence has computed its last token it parks, computing nothing, and a
  // parked sequence that loses its blocks is suspended rather than queued,
  // until the request's driver (beam search, above the scheduler) decides:
  //  - ForkParked: successors[i] becomes sequence i, sharing its parent's
  //    blocks (copied on write) while max_num_seqs allows, else queued to
  //    be recomputed; the old sequences finish.
  //  - DropParked: every sequence finishes as stopped; returns the request.
  // `num_generated`: tokens the driver produced with this decision, for stats.
  void ForkParked(RequestHandle handle, std::span<const ParkedSuccessor> successors, int64_t num_generated);
  std::unique_ptr<Request> DropParked(RequestHandle handle, int64_t num_generated);

  StepPlan Schedule();
  // A step that computed num_batched_tokens tokens took `seconds` (sizes the
  // next budgets when the config sets a step_latency_target).
  void ObserveStep(int64_t num_batched_tokens, double seconds);
  // Tokens the next step may compute before the running decodes' floor.
  int64_t step_token_budget() const;
  // Applies the step: sampled[i] holds plan.seqs[i].num_samples tokens.
  // Sequences aborted since Schedule() are skipped.
  UpdateResult Update(const StepPlan& plan, std::span<const std::vector<int32_t>> sampled);

  bool has_unfinished_requests() const { return !handles_.empty(); }
  // A live request by string id (the API edge) or handle; null when unknown.
  const Request* request(const std::string& id) const;
  const Request* request(RequestHandle handle) const;
  SchedulerStats stats() const;
  const KvCacheManager& kv_cache() const { return kv_; }
  const SchedulerConfig& config() const { return config_; }

  // The KV manager's invariants, plus: every live sequence is in exactly one
  // queue (running, waiting or suspended), running ones hold blocks covering
  // their computed tokens, the others hold none.
  Status CheckInvariants() const;

 private:
  // CheckInvariants() after every Schedule() and Update() in debug builds.
  void DebugCheckInvariants() const;
  double Now() const;
  // Sequences a request will hold once forked (one for a forked sequence).
  int32_t SeqSlots(const Sequence& seq) const;
  bool Precedes(const Sequence& a, const Sequence& b) const;  // by the policy's waiting order
  void Enqueue(Sequence& seq, bool preempted);
  // Frees a running sequence's blocks. A parked one is suspended (its
  // logits were used, so it waits for its driver outside the queue); any
  // other goes back to the waiting queue to be recomputed.
  void Preempt(Sequence& seq, StepPlan& plan);
  ScheduledSequence MakeEntry(const Sequence& seq, int64_t num_new_tokens, int64_t num_cached_tokens) const;

  // What one Schedule() has left to hand out.
  struct StepBudget {
    int64_t tokens = 0;         // of the step's budget
    int64_t chunk_cap = 0;      // the most tokens one sequence computes this step
    int64_t reserved = 0;       // of `tokens`, kept for running decodes not yet scheduled
    int32_t long_prefills = 0;  // long prefills scheduled so far
    bool preempted = false;
  };
  bool IsLong(int64_t num_tokens_to_compute) const;
  // vLLM V0's count of the prefills that can run this step: running ones,
  // then waiting ones in order, long ones only up to the limit; at most
  // max_num_partial_prefills. A waiting prompt is judged by its whole
  // length, cached prefix included, as in vLLM.
  int32_t SchedulablePrefills() const;
  // This step's cap per sequence: the threshold and, with concurrent
  // partial prefills, each schedulable prefill's even share of the budget.
  int64_t ChunkCap(int64_t step_tokens) const;
  // This step's budget, and the decode tokens it reserves (sized steps
  // only): the measured budget, raised to fit every running decode and a
  // little prefill, at most max_num_batched_tokens.
  StepBudget OpenBudget() const;
  void ScheduleRunning(StepPlan& plan, StepBudget& budget);
  void ScheduleWaiting(StepPlan& plan, StepBudget& budget, double now);
  // Allocates slots for running_[i], preempting from the back of running_
  // until they fit (moving i with it); false when `seq` itself was preempted.
  bool AllocateOrPreempt(Sequence& seq, int64_t num_new, size_t& i, StepPlan& plan);
  // Takes a waiting sequence (already off the queue) into running_.
  void Admit(Sequence& seq, int64_t num_new, const CachedPrefix& prefix, double now, StepPlan& plan);
  // Marks a sequence finished, frees its blocks and drops it from the queues.
  void Retire(Sequence& seq, RequestStatus status, StopReason reason);
  // Retires every unfinished sequence of the request.
  void RetireAll(Request& request, RequestStatus status);
  void AppendToken(Request& request, Sequence& seq, int32_t token, double now, UpdateResult& result);
  // Removes a request from the table and hands it over.
  std::unique_ptr<Request> Take(RequestHandle handle);
  // The driver's decision for a parking request: tokens and timings.
  void RecordParkedGeneration(Request& request, int64_t num_generated);

  SchedulerConfig config_;
  KvCacheManager kv_;
  std::optional<StepTokenBudget> step_budget_;  // with a step_latency_target
  // The live requests at their handles (dense: freed handles are reused);
  // string ids map to handles only at the API edge.
  std::vector<std::unique_ptr<Request>> requests_;
  std::vector<RequestHandle> free_handles_;
  std::unordered_map<std::string, RequestHandle> handles_;
  SeqId next_seq_id_ = 0;
  std::unordered_map<SeqId, Sequence*> live_;  // unfinished sequences
  std::vector<Sequence*> running_;             // scheduling order; the back is preempted first
  std::deque<Sequence*> waiting_;              // the front is admitted first
  std::vector<Sequence*> suspended_;           // preempted parked sequences, until their driver decides
  std::vector<SeqId> finished_since_schedule_;
  int64_t num_preemptions_ = 0;
  int64_t prompt_tokens_ = 0;
  int64_t generation_tokens_ = 0;
};

}  // namespace pagoda
