#include "pagoda/scheduler/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <tuple>

#include "pagoda/base/check.h"
#include "pagoda/scheduler/stop_checker.h"

namespace pagoda {

namespace {

// A sized step's floor beyond its decodes: prompts keep moving, if slowly,
// however many decodes run.
constexpr int32_t kMinPrefillTokens = 16;
// A sized budget's first guess, before any step was measured.
constexpr int32_t kInitialStepTokens = 256;

}  // namespace

Scheduler::Scheduler(SchedulerConfig config) : config_(std::move(config)), kv_(config_.kv) {
  PAGODA_CHECK(config_.max_num_batched_tokens > 0 && config_.max_num_seqs > 0 && config_.max_model_len > 0);
  PAGODA_CHECK(config_.step_latency_target >= 0);
  if (config_.step_latency_target > 0) {
    const int32_t most = config_.max_num_batched_tokens;
    step_budget_.emplace(StepTokenBudget::Options{.target_seconds = config_.step_latency_target,
                                                  .initial_tokens = std::min(kInitialStepTokens, most),
                                                  .min_tokens = std::min(kMinPrefillTokens, most),
                                                  .max_tokens = most});
  }
  PAGODA_CHECK(config_.long_prefill_token_threshold >= 0 && config_.max_num_partial_prefills > 0 &&
               config_.max_long_partial_prefills > 0 &&
               config_.max_long_partial_prefills <= config_.max_num_partial_prefills);
}

double Scheduler::Now() const {
  if (config_.clock) return config_.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status Scheduler::AddRequest(std::unique_ptr<Request> request) {
  PAGODA_CHECK(request != nullptr && request->num_sequences() == 1);
  const Request& r = *request;
  if (handles_.contains(r.id())) return InvalidArgumentError(fmt::format("request id '{}' is already in use", r.id()));
  PAGODA_RETURN_IF_ERROR(CheckAdmissible(r));
  RequestHandle handle = static_cast<RequestHandle>(requests_.size());
  if (!free_handles_.empty()) {
    handle = free_handles_.back();
    free_handles_.pop_back();
  } else {
    requests_.emplace_back();
  }
  request->set_handle(handle);
  Sequence& seq = request->sequence(0);
  seq.assign_id(next_seq_id_++);
  live_.emplace(seq.id(), &seq);
  handles_.emplace(r.id(), handle);
  requests_[handle] = std::move(request);
  Enqueue(seq, /*preempted=*/false);
  return Status::Ok();
}

Status Scheduler::CheckAdmissible(const Request& r) const {
  PAGODA_RETURN_IF_ERROR(r.params().Validate());
  if (r.num_prompt_tokens() == 0) return InvalidArgumentError("the prompt is empty");
  if (r.num_prompt_tokens() >= config_.max_model_len) {
    return InvalidArgumentError(fmt::format("the prompt has {} tokens, but max_model_len is {}: no room to generate",
                                            r.num_prompt_tokens(), config_.max_model_len));
  }
  if (r.params().num_sequences() > config_.max_num_seqs) {
    return InvalidArgumentError(fmt::format("the request generates {} sequences, but max_num_seqs is {}",
                                            r.params().num_sequences(), config_.max_num_seqs));
  }
  // Each sequence must fit alone, or preempting every other one would not
  // let it finish.
  int64_t longest = config_.max_model_len;
  if (r.params().max_tokens) longest = std::min(longest, r.num_prompt_tokens() + *r.params().max_tokens);
  const int64_t needed = kv_.MaxBlocksPerSequence(longest, config_.max_num_batched_tokens);
  if (needed > kv_.num_blocks()) {
    if (kv_.num_groups() == 1 && kv_.group(0).sliding_window == 0) {
      return ResourceExhaustedError(fmt::format(
          "a sequence of this request can reach {} tokens, more than the whole KV cache holds ({} tokens)", longest,
          int64_t{kv_.num_blocks()} * kv_.block_size()));
    }
    return ResourceExhaustedError(
        fmt::format("a sequence of this request can reach {} tokens, which needs {} KV cache blocks at once (over "
                    "all layer groups), more than the whole KV cache holds ({} blocks)",
                    longest, needed, kv_.num_blocks()));
  }
  return Status::Ok();
}

bool Scheduler::Precedes(const Sequence& a, const Sequence& b) const {
  auto key = [&](const Sequence& s) {
    const Request& r = s.request();
    const int32_t priority = config_.policy == SchedulingPolicy::kPriority ? r.priority() : 0;
    return std::make_tuple(priority, r.timing().arrival, r.sequence(0).id(), s.index());
  };
  return key(a) < key(b);
}

void Scheduler::Enqueue(Sequence& seq, bool preempted) {
  if (config_.policy == SchedulingPolicy::kFcfs) {
    // A preempted sequence was admitted before everything still waiting.
    if (preempted) {
      waiting_.push_front(&seq);
    } else {
      waiting_.push_back(&seq);
    }
    return;
  }
  auto pos = std::upper_bound(waiting_.begin(), waiting_.end(), &seq,
                              [&](const Sequence* a, const Sequence* b) { return Precedes(*a, *b); });
  waiting_.insert(pos, &seq);
}

int32_t Scheduler::SeqSlots(const Sequence& seq) const {
  const Request& r = seq.request();
  return r.needs_fork() ? r.params().num_sequences() : 1;
}

void Scheduler::Preempt(Sequence& seq, StepPlan& plan) {
  const bool parked = seq.num_computed_tokens() == seq.num_tokens();
  kv_.Free(seq);
  seq.Preempt();
  if (parked) {
    suspended_.push_back(&seq);
  } else {
    Enqueue(seq, /*preempted=*/true);
  }
  plan.preempted.push_back(seq.id());
  ++num_preemptions_;
}

ScheduledSequence Scheduler::MakeEntry(const Sequence& seq, int64_t num_new_tokens, int64_t num_cached_tokens) const {
  ScheduledSequence e;
  e.handle = seq.request().handle();
  e.request = &seq.request();
  e.params = &seq.request().params();
  e.prompt_token_ids = seq.prompt_token_ids();
  e.output_token_ids = seq.output_token_ids();
  e.seq_id = seq.id();
  e.seq_index = seq.index();
  e.num_computed_tokens = seq.num_computed_tokens();
  e.token_ids = seq.token_ids().subspan(e.num_computed_tokens, num_new_tokens);
  e.block_tables = kv_.block_tables(seq.id());
  e.num_cached_tokens = num_cached_tokens;
  e.needs_logits = e.num_computed_tokens + num_new_tokens == seq.num_tokens();
  // A parking request's sequences get their tokens from its driver (ForkParked).
  e.num_samples = e.needs_logits && !seq.request().parks() ? SeqSlots(seq) : 0;
  return e;
}

bool Scheduler::IsLong(int64_t num_tokens_to_compute) const {
  return config_.long_prefill_token_threshold > 0 && num_tokens_to_compute > config_.long_prefill_token_threshold;
}

int32_t Scheduler::SchedulablePrefills() const {
  const int32_t max_prefills = config_.max_num_partial_prefills;
  int32_t prefills = 0, long_prefills = 0;
  for (const Sequence* s : running_) {
    const int64_t left = s->num_tokens() - s->num_computed_tokens();
    if (left > 1) {  // not a decode, nor a parked sequence
      ++prefills;
      long_prefills += IsLong(left);
    }
  }
  for (const Sequence* s : waiting_) {
    if (prefills >= max_prefills) break;
    if (IsLong(s->num_tokens())) {
      if (long_prefills >= config_.max_long_partial_prefills) continue;
      ++long_prefills;
    }
    ++prefills;
  }
  return std::min(prefills, max_prefills);
}

int64_t Scheduler::ChunkCap(int64_t step_tokens) const {
  int64_t cap = step_tokens;
  if (config_.long_prefill_token_threshold > 0) cap = std::min<int64_t>(cap, config_.long_prefill_token_threshold);
  if (config_.max_num_partial_prefills > 1) {
    const int32_t prefills = SchedulablePrefills();
    if (prefills > 1) cap = std::min<int64_t>(cap, std::max<int64_t>(1, step_tokens / prefills));
  }
  return cap;
}

Scheduler::StepBudget Scheduler::OpenBudget() const {
  StepBudget budget;
  if (!step_budget_) {
    budget.tokens = config_.max_num_batched_tokens;
  } else {
    for (const Sequence* s : running_) budget.reserved += s->num_tokens() - s->num_computed_tokens() == 1;
    budget.tokens = std::min<int64_t>(config_.max_num_batched_tokens,
                                      std::max<int64_t>(step_budget_->Budget(), budget.reserved + kMinPrefillTokens));
  }
  budget.chunk_cap = ChunkCap(budget.tokens);
  return budget;
}

int64_t Scheduler::step_token_budget() const {
  return step_budget_ ? step_budget_->Budget() : config_.max_num_batched_tokens;
}

void Scheduler::ObserveStep(int64_t num_batched_tokens, double seconds) {
  if (step_budget_) step_budget_->Observe(num_batched_tokens, seconds);
}

StepPlan Scheduler::Schedule() {
  const double now = Now();
  StepPlan plan;
  plan.finished = std::move(finished_since_schedule_);
  finished_since_schedule_.clear();
  StepBudget budget = OpenBudget();
  const int64_t step_tokens = budget.tokens;
  ScheduleRunning(plan, budget);
  // No waiting sequence after a preemption: blocks are short, and a newly
  // admitted sequence would only be preempted next.
  if (!budget.preempted) ScheduleWaiting(plan, budget, now);
  plan.num_batched_tokens = step_tokens - budget.tokens;
  DebugCheckInvariants();
  return plan;
}

void Scheduler::ScheduleRunning(StepPlan& plan, StepBudget& budget) {
  // In policy order, so the back of the list is the preemption victim and
  // is never one already scheduled (nor is a parked sequence, which is
  // never scheduled).
  if (config_.policy == SchedulingPolicy::kPriority) {
    std::stable_sort(running_.begin(), running_.end(),
                     [&](const Sequence* a, const Sequence* b) { return Precedes(*a, *b); });
  }
  size_t i = 0;
  while (i < running_.size() && budget.tokens > 0) {
    Sequence& seq = *running_[i];
    const int64_t left = seq.num_tokens() - seq.num_computed_tokens();
    if (left == 0) {
      PAGODA_CHECK_MSG(seq.request().parks(), "a running sequence with nothing to compute");
      ++i;  // parked
      continue;
    }
    // A prefill takes only what the decodes' reservation leaves (a sized
    // step: its decodes all run, whatever their order).
    const bool decode = left == 1;
    const int64_t room = budget.tokens - (decode ? 0 : budget.reserved);
    if (room <= 0) {
      ++i;
      continue;
    }
    const int64_t num_new = std::min({left, room, budget.chunk_cap});
    const size_t num_preempted = plan.preempted.size();
    const bool scheduled = AllocateOrPreempt(seq, num_new, i, plan);
    budget.preempted |= plan.preempted.size() > num_preempted;
    if (!scheduled) return;  // it was the last running sequence
    plan.seqs.push_back(MakeEntry(seq, num_new, 0));
    budget.tokens -= num_new;
    if (decode && budget.reserved > 0) --budget.reserved;
    budget.long_prefills += IsLong(left);
    ++i;
  }
}

bool Scheduler::AllocateOrPreempt(Sequence& seq, int64_t num_new, size_t& i, StepPlan& plan) {
  while (true) {
    StatusOr<std::vector<BlockCopy>> copies = kv_.AllocateSlots(seq, num_new);
    if (copies.ok()) {
      plan.copies.insert(plan.copies.end(), copies->begin(), copies->end());
      return true;
    }
    // The newest sequence goes first. If that is this one while parked
    // sequences hold blocks, it would be admitted and preempted again every
    // step: a parked one is suspended instead.
    auto victim = running_.end() - 1;
    if (*victim == &seq) {
      auto parked = std::find_if(running_.rbegin(), running_.rend(), [](const Sequence* s) {
        return s->num_computed_tokens() == s->num_tokens();
      });
      if (parked != running_.rend()) victim = std::prev(parked.base());
    }
    Sequence& preempt = **victim;
    if (victim < running_.begin() + static_cast<std::ptrdiff_t>(i)) --i;
    running_.erase(victim);
    Preempt(preempt, plan);
    if (&preempt == &seq) return false;
  }
}

void Scheduler::ScheduleWaiting(StepPlan& plan, StepBudget& budget, double now) {
  // In order, while budget, sequence slots and blocks last; a long prompt
  // over the long-prefill limit keeps its place while shorter ones behind
  // it go ahead (vLLM V0), and nothing else overtakes.
  const bool limit_long = config_.max_num_partial_prefills > 1;
  int32_t slots = 0;
  for (const Sequence* s : running_) slots += SeqSlots(*s);
  size_t j = 0;
  while (j < waiting_.size() && budget.tokens > 0) {
    Sequence& seq = *waiting_[j];
    // Judged whole, before the prefix lookup (as vLLM does), which spares
    // hashing the long prompts passed over.
    const bool is_long = IsLong(seq.num_tokens());
    if (is_long && limit_long && budget.long_prefills >= config_.max_long_partial_prefills) {
      ++j;
      continue;
    }
    const CachedPrefix prefix = kv_.FindCachedPrefix(seq);
    const int64_t num_new = std::min({seq.num_tokens() - prefix.num_tokens, budget.tokens, budget.chunk_cap});
    if (slots + SeqSlots(seq) > config_.max_num_seqs || !kv_.CanAllocate(seq, num_new, prefix)) {
      // When nothing was scheduled, every running sequence is parked,
      // waiting for siblings that cannot get in: suspending parked ones is
      // the only way forward.
      if (!plan.seqs.empty() || running_.empty()) break;
      Sequence& victim = *running_.back();
      running_.pop_back();
      slots -= SeqSlots(victim);
      Preempt(victim, plan);
      continue;
    }
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(j));
    Admit(seq, num_new, prefix, now, plan);
    slots += SeqSlots(seq);
    budget.tokens -= num_new;
    budget.long_prefills += is_long;
  }
}

void Scheduler::Admit(Sequence& seq, int64_t num_new, const CachedPrefix& prefix, double now, StepPlan& plan) {
  StatusOr<std::vector<BlockCopy>> copies = kv_.AllocateSlots(seq, num_new, prefix);
  PAGODA_CHECK(copies.ok() && copies->empty());
  Request& request = *requests_[seq.request().handle()];
  if (!request.timing().first_scheduled) {
    request.timing().first_scheduled = now;
    request.set_num_cached_tokens(prefix.num_tokens);
  }
  seq.set_num_computed_tokens(prefix.num_tokens);
  seq.set_status(RequestStatus::kRunning);
  running_.push_back(&seq);
  plan.seqs.push_back(MakeEntry(seq, num_new, prefix.num_tokens));
}

UpdateResult Scheduler::Update(const StepPlan& plan, std::span<const std::vector<int32_t>> sampled) {
  PAGODA_CHECK_MSG(sampled.size() == plan.seqs.size(), "one sample list per scheduled sequence");
  const double now = Now();
  UpdateResult result;
  for (size_t j = 0; j < plan.seqs.size(); ++j) {
    const ScheduledSequence& e = plan.seqs[j];
    auto it = live_.find(e.seq_id);
    if (it == live_.end()) continue;  // aborted after Schedule()
    Sequence& seq = *it->second;
    PAGODA_CHECK_MSG(seq.num_computed_tokens() == e.num_computed_tokens, "plan applied twice or out of order");
    seq.set_num_computed_tokens(e.num_computed_tokens + static_cast<int64_t>(e.token_ids.size()));
    PAGODA_CHECK_MSG(static_cast<int32_t>(sampled[j].size()) == e.num_samples, "wrong number of sampled tokens");
    if (e.num_samples == 0) continue;  // a prompt chunk, or a sequence now parked
    Request& request = *requests_[e.handle];
    if (!request.timing().first_token) prompt_tokens_ += request.num_prompt_tokens();
    // Fork before appending: the children share the computed prompt, and the
    // next step copies the shared partial block on each one's first write.
    std::vector<Sequence*> targets = {&seq};
    if (e.num_samples > 1) {
      auto pos = std::find(running_.begin(), running_.end(), &seq);
      PAGODA_CHECK(pos != running_.end());
      for (int32_t k = 1; k < e.num_samples; ++k) {
        Sequence& child = request.Fork(seq, next_seq_id_++);
        kv_.Fork(seq, child);
        live_.emplace(child.id(), &child);
        pos = running_.insert(pos + 1, &child);
        targets.push_back(&child);
      }
    }
    for (int32_t k = 0; k < e.num_samples; ++k) AppendToken(request, *targets[k], sampled[j][k], now, result);
    if (request.finished()) result.finished_requests.push_back(Take(e.handle));
  }
  DebugCheckInvariants();
  return result;
}

void Scheduler::AppendToken(Request& request, Sequence& seq, int32_t token, double now, UpdateResult& result) {
  seq.AppendToken(token);
  ++generation_tokens_;
  if (!request.timing().first_token) request.timing().first_token = now;
  request.timing().last_token = now;
  SequenceOutput out;
  out.handle = request.handle();
  out.request = &request;
  out.seq_id = seq.id();
  out.seq_index = seq.index();
  out.new_token_ids = {token};
  if (std::optional<StopDecision> stop = CheckStop(seq, config_.eos_token_id, config_.max_model_len)) {
    Retire(seq, stop->status, stop->stop_reason);
  }
  out.status = seq.status();
  out.stop_reason = seq.stop_reason();
  result.outputs.push_back(std::move(out));
}

void Scheduler::RecordParkedGeneration(Request& request, int64_t num_generated) {
  const double now = Now();
  if (!request.timing().first_token) {
    prompt_tokens_ += request.num_prompt_tokens();
    request.timing().first_token = now;
  }
  request.timing().last_token = now;
  generation_tokens_ += num_generated;
}

void Scheduler::ForkParked(RequestHandle handle, std::span<const ParkedSuccessor> successors, int64_t num_generated) {
  PAGODA_CHECK_MSG(request(handle) != nullptr, "successors of an unknown request");
  Request& request = *requests_[handle];
  PAGODA_CHECK(request.parks() && !successors.empty() &&
               static_cast<int32_t>(successors.size()) <= request.params().num_sequences());
  RecordParkedGeneration(request, num_generated);

  // A successor of a running sequence shares its blocks and runs on, while
  // max_num_seqs allows (there may be more successors than parents, and a
  // suspended sequence's slot may have gone to another request); the others
  // wait, to be recomputed (from the prefix cache, where the parent's full
  // blocks are). Successors take their references while the parents still
  // hold theirs.
  int32_t slots = 0;
  for (const Sequence* s : running_) slots += &s->request() == &request ? 0 : SeqSlots(*s);
  std::vector<std::unique_ptr<Sequence>> next;
  for (size_t i = 0; i < successors.size(); ++i) {
    const Sequence& parent = request.sequence(successors[i].parent);
    PAGODA_CHECK_MSG(!parent.finished() && live_.contains(parent.id()), "a successor of a finished sequence");
    next.push_back(request.MakeSuccessor(parent, static_cast<int32_t>(i), successors[i].token, next_seq_id_++));
    if (kv_.has_blocks(parent.id()) && slots < config_.max_num_seqs) {
      kv_.Fork(parent, *next.back());
      ++slots;
    } else if (next.back()->status() == RequestStatus::kRunning) {
      next.back()->Preempt();  // back to waiting with nothing computed
    }
  }
  // The successors take the parents' place in the running order (and so in
  // the preemption order).
  auto first = std::find_if(running_.begin(), running_.end(),
                            [&](const Sequence* s) { return &s->request() == &request; });
  size_t pos = static_cast<size_t>(first - running_.begin());
  RetireAll(request, RequestStatus::kFinishedStopped);
  request.ReplaceSequences(std::move(next));
  for (int32_t i = 0; i < request.num_sequences(); ++i) {
    Sequence& seq = request.sequence(i);
    live_.emplace(seq.id(), &seq);
    if (kv_.has_blocks(seq.id())) {
      running_.insert(running_.begin() + static_cast<std::ptrdiff_t>(pos++), &seq);
    } else {
      Enqueue(seq, /*preempted=*/true);  // a suspended parent's successor: recomputed from scratch
    }
  }
  DebugCheckInvariants();
}

std::unique_ptr<Request> Scheduler::DropParked(RequestHandle handle, int64_t num_generated) {
  PAGODA_CHECK_MSG(request(handle) != nullptr, "dropping an unknown request");
  Request& request = *requests_[handle];
  PAGODA_CHECK(request.parks());
  RecordParkedGeneration(request, num_generated);
  RetireAll(request, RequestStatus::kFinishedStopped);
  DebugCheckInvariants();
  return Take(handle);
}

void Scheduler::RetireAll(Request& request, RequestStatus status) {
  for (int32_t i = 0; i < request.num_sequences(); ++i) {
    Sequence& seq = request.sequence(i);
    if (!seq.finished()) Retire(seq, status, std::nullopt);
  }
}

void Scheduler::Retire(Sequence& seq, RequestStatus status, StopReason reason) {
  kv_.Free(seq);
  std::erase(running_, &seq);
  std::erase(waiting_, &seq);
  std::erase(suspended_, &seq);
  live_.erase(seq.id());
  seq.Finish(status, std::move(reason));
  finished_since_schedule_.push_back(seq.id());
}

std::unique_ptr<Request> Scheduler::Take(RequestHandle handle) {
  std::unique_ptr<Request> out = std::move(requests_[handle]);
  handles_.erase(out->id());
  free_handles_.push_back(handle);
  return out;
}

std::unique_ptr<Request> Scheduler::AbortRequest(const std::string& request_id) {
  auto it = handles_.find(request_id);
  return it == handles_.end() ? nullptr : AbortRequest(it->second);
}

std::unique_ptr<Request> Scheduler::AbortRequest(RequestHandle handle) {
  if (request(handle) == nullptr) return nullptr;
  Request& request = *requests_[handle];
  RetireAll(request, RequestStatus::kFinishedAborted);
  return Take(handle);
}

std::unique_ptr<Request> Scheduler::StopSequence(RequestHandle handle, int32_t seq_index, StopReason reason) {
  if (request(handle) == nullptr) return nullptr;
  Request& request = *requests_[handle];
  Sequence& seq = request.sequence(seq_index);
  PAGODA_CHECK_MSG(!seq.finished(), "stopping a finished sequence");
  Retire(seq, RequestStatus::kFinishedStopped, std::move(reason));
  return request.finished() ? Take(handle) : nullptr;
}

const Request* Scheduler::request(const std::string& id) const {
  auto it = handles_.find(id);
  return it == handles_.end() ? nullptr : requests_[it->second].get();
}

const Request* Scheduler::request(RequestHandle handle) const {
  if (handle < 0 || static_cast<size_t>(handle) >= requests_.size()) return nullptr;
  return requests_[handle].get();
}

SchedulerStats Scheduler::stats() const {
  SchedulerStats s;
  for (const std::unique_ptr<Request>& request : requests_) {
    if (request == nullptr) continue;
    if (request->status() == RequestStatus::kRunning) {
      ++s.num_running_requests;
    } else {
      ++s.num_waiting_requests;
      s.num_queued_requests += !request->timing().first_scheduled;
    }
  }
  s.num_running_seqs = static_cast<int32_t>(running_.size());
  s.num_waiting_seqs = static_cast<int32_t>(waiting_.size() + suspended_.size());
  s.kv_cache_usage = kv_.usage();
  s.num_preemptions = num_preemptions_;
  s.prompt_tokens = prompt_tokens_;
  s.generation_tokens = generation_tokens_;
  s.prefix_cache_queries = kv_.prefix_cache_queries();
  s.prefix_cache_hits = kv_.prefix_cache_hits();
  return s;
}

void Scheduler::DebugCheckInvariants() const {
#ifndef NDEBUG
  const Status s = CheckInvariants();
  PAGODA_CHECK_MSG(s.ok(), s.message().c_str());
#endif
}

Status Scheduler::CheckInvariants() const {
  PAGODA_RETURN_IF_ERROR(kv_.CheckInvariants());
  if (running_.size() + waiting_.size() + suspended_.size() != live_.size()) {
    return InternalError(fmt::format("{} running + {} waiting + {} suspended sequences, {} live", running_.size(),
                                     waiting_.size(), suspended_.size(), live_.size()));
  }
  const int64_t bs = kv_.block_size();
  for (const Sequence* s : running_) {
    if (!live_.contains(s->id()) || s->status() != RequestStatus::kRunning) {
      return InternalError(fmt::format("running sequence {} is {}", s->id(), RequestStatusName(s->status())));
    }
    const int64_t covered = static_cast<int64_t>(kv_.block_table(s->id()).size()) * bs;
    if (covered < s->num_computed_tokens()) {
      return InternalError(fmt::format("sequence {} computed {} tokens but its blocks hold {}", s->id(),
                                       s->num_computed_tokens(), covered));
    }
  }
  auto check_waiting = [&](const Sequence* s) {
    if (!live_.contains(s->id()) || kv_.has_blocks(s->id()) || s->num_computed_tokens() != 0 ||
        (s->status() != RequestStatus::kWaiting && s->status() != RequestStatus::kPreempted)) {
      return InternalError(
          fmt::format("waiting sequence {} is {} or holds blocks", s->id(), RequestStatusName(s->status())));
    }
    return Status::Ok();
  };
  for (const Sequence* s : waiting_) PAGODA_RETURN_IF_ERROR(check_waiting(s));
  for (const Sequence* s : suspended_) {
    PAGODA_RETURN_IF_ERROR(check_waiting(s));
    if (!s->request().parks()) {
      return InternalError(fmt::format("suspended sequence {} is not of a parking request", s->id()));
    }
  }
  return Status::Ok();
}

}  // namespace pagoda
