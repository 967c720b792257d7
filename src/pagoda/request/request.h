// A generation request as the bookkeeping stack sees it: the prompt, how to
// sample, when it arrived, its priority, what keys its prefix-cache entries,
// and its sequences (one until the prompt is sampled, then one per
// completion being generated, see sequence.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/request/request_status.h"
#include "pagoda/request/sampling_params.h"
#include "pagoda/request/sequence.h"

namespace pagoda {

// What, beyond the tokens, decides whether two prompts may share K/V: the
// LoRA adapter changes every layer's K/V, and a cache salt lets a tenant keep
// its prefixes from being found (and timed) by others.
struct CacheKeys {
  std::optional<int64_t> lora_id;
  std::optional<std::string> cache_salt;
};

// A live request's dense index in the engine's table of request records,
// used in the hot path instead of its string id (which only the API edge
// uses). -1: not given one (a scheduler used on its own, as in its tests).
using RequestHandle = int32_t;

// Seconds on the engine's monotonic clock; unset until the event happens.
struct RequestTiming {
  double arrival = 0;
  std::optional<double> first_scheduled;
  std::optional<double> first_token;
  std::optional<double> last_token;
};

class Request {
 public:
  // Lower `priority` values are served first under the priority policy, as in vLLM.
  Request(std::string id, std::vector<int32_t> prompt_token_ids, SamplingParams params, double arrival_time,
          int32_t priority = 0, CacheKeys cache_keys = {});
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  const std::string& id() const { return id_; }
  RequestHandle handle() const { return handle_; }
  void set_handle(RequestHandle handle) { handle_ = handle; }
  const std::vector<int32_t>& prompt_token_ids() const { return prompt_token_ids_; }
  int64_t num_prompt_tokens() const { return static_cast<int64_t>(prompt_token_ids_.size()); }
  const SamplingParams& params() const { return params_; }
  int32_t priority() const { return priority_; }
  const CacheKeys& cache_keys() const { return cache_keys_; }

  RequestTiming& timing() { return timing_; }
  const RequestTiming& timing() const { return timing_; }

  // Prompt tokens found in the prefix cache when the request was first admitted.
  int64_t num_cached_tokens() const { return num_cached_tokens_; }
  void set_num_cached_tokens(int64_t n) { num_cached_tokens_ = n; }

  int32_t num_sequences() const { return static_cast<int32_t>(sequences_.size()); }
  Sequence& sequence(int32_t i) { return *sequences_.at(i); }
  const Sequence& sequence(int32_t i) const { return *sequences_.at(i); }

  // True while the request still has to split its prompt sequence into the
  // params().num_sequences() sequences it generates.
  bool needs_fork() const;
  // Adds a sequence `id` that continues from `parent` (same tokens, same
  // computed prefix), indexed after the existing ones.
  Sequence& Fork(const Sequence& parent, SeqId id);

  // A parking request's sequences get no sampled tokens from the scheduler:
  // each parks once its last token is computed, until whoever drives the
  // request (beam search) decides its successors. See Scheduler::ForkParked.
  bool parks() const { return parks_; }
  void set_parks(bool parks) { parks_ = parks; }
  // A new sequence `id` at `index` that continues `parent` with `token`, not
  // yet part of the request (see ReplaceSequences).
  std::unique_ptr<Sequence> MakeSuccessor(const Sequence& parent, int32_t index, int32_t token, SeqId id) const;
  // Successors replace every sequence; next[i] must have index i. The old
  // ones are destroyed: nothing may point at them.
  void ReplaceSequences(std::vector<std::unique_ptr<Sequence>> next);

  // RUNNING if any sequence runs; finished (with the first sequence's
  // status) once all are; otherwise PREEMPTED if any was, else WAITING.
  RequestStatus status() const;
  bool finished() const;

 private:
  std::string id_;
  RequestHandle handle_ = -1;
  std::vector<int32_t> prompt_token_ids_;
  SamplingParams params_;
  int32_t priority_;
  CacheKeys cache_keys_;
  RequestTiming timing_;
  int64_t num_cached_tokens_ = 0;
  bool parks_ = false;
  std::vector<std::unique_ptr<Sequence>> sequences_;  // stable addresses: queues point at them
};

}  // namespace pagoda
