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

namespace pagoda {

// Beam search: one beam of the next round, continuing the current sequence
// of index `parent` with `token`.
struct BeamChild {
  int32_t parent = 0;
  int32_t token = 0;
  friend bool operator==(const BeamChild&, const BeamChild&) = default;
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerConfig config);

  // Queues a request, or refuses one that can never run: an invalid id or
  // sampling parameters, a prompt of max_model_len tokens or more, more
  // sequences than max_num_seqs, or a sequence that could outgrow the whole
  // KV cache.
  Status AddRequest(std::unique_ptr<Request> request);
  // AddRequest's checks of the request itself (all but the id's uniqueness).
  // It reads only the configuration, so another thread may call it while
  // this one schedules: the engine refuses requests synchronously with it.
  Status CheckAdmissible(const Request& request) const;
  // Cancels a request wherever it is, freeing its blocks; null when unknown.
  std::unique_ptr<Request> AbortRequest(const std::string& request_id);
  // Ends one unfinished sequence as stopped, for a stop string the engine
  // matched in the text, freeing its blocks. Returns the request when that
  // was its last unfinished sequence, else null (also for unknown ones).
  std::unique_ptr<Request> StopSequence(const std::string& request_id, int32_t seq_index, StopReason reason);

  // Beam search. A beam request's sequences get no token from Update():
  // once each has computed its last token it is parked, computing nothing,
  // until the engine has every beam's candidates and ends the round here.
  // children[i] becomes sequence i (sharing its parent's blocks, copied on
  // write); the old sequences finish. An empty `children` ends the search
  // and returns the finished request (else null). `num_generated`: tokens
  // the round produced (kept beams and finished hypotheses), for stats.
  std::unique_ptr<Request> ContinueBeams(const std::string& request_id, std::span<const BeamChild> children,
                                         int64_t num_generated);

  StepPlan Schedule();
  // Applies the step: sampled[i] holds plan.seqs[i].num_samples tokens.
  // Sequences aborted since Schedule() are skipped.
  UpdateResult Update(const StepPlan& plan, std::span<const std::vector<int32_t>> sampled);

  bool has_unfinished_requests() const { return !requests_.empty(); }
  const Request* request(const std::string& id) const;
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
  // Frees a running sequence's blocks. A parked beam is suspended (its
  // candidates are known, so it waits for the round's end outside the
  // queue); any other goes back to the waiting queue to be recomputed.
  void Preempt(Sequence& seq, StepPlan& plan);
  ScheduledSequence MakeEntry(const Sequence& seq, int64_t num_new_tokens, int64_t num_cached_tokens) const;

  // What one Schedule() has left to hand out.
  struct StepBudget {
    int64_t tokens = 0;         // of max_num_batched_tokens
    int64_t chunk_cap = 0;      // the most tokens one sequence computes this step
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
  int64_t ChunkCap() const;
  void ScheduleRunning(StepPlan& plan, StepBudget& budget);
  void ScheduleWaiting(StepPlan& plan, StepBudget& budget, double now);
  // Allocates slots for running_[i], preempting from the back of running_
  // until they fit (moving i with it); false when `seq` itself was preempted.
  bool AllocateOrPreempt(Sequence& seq, int64_t num_new, size_t& i, StepPlan& plan);
  // Takes a waiting sequence (already off the queue) into running_.
  void Admit(Sequence& seq, int64_t num_new, const CachedPrefix& prefix, double now, StepPlan& plan);
  // Marks a sequence finished, frees its blocks and drops it from the queues.
  void Retire(Sequence& seq, RequestStatus status, StopReason reason);
  void AppendToken(Request& request, Sequence& seq, int32_t token, double now, UpdateResult& result);
  void TakeIfFinished(const std::string& request_id, UpdateResult& result);

  SchedulerConfig config_;
  KvCacheManager kv_;
  std::unordered_map<std::string, std::unique_ptr<Request>> requests_;
  std::unordered_map<SeqId, Sequence*> live_;  // unfinished sequences
  std::vector<Sequence*> running_;             // scheduling order; the back is preempted first
  std::deque<Sequence*> waiting_;              // the front is admitted first
  std::vector<Sequence*> suspended_;           // preempted parked beams, until their round ends
  std::vector<SeqId> finished_since_schedule_;
  int64_t num_preemptions_ = 0;
  int64_t prompt_tokens_ = 0;
  int64_t generation_tokens_ = 0;
};

}  // namespace pagoda
