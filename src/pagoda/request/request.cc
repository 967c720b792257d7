#include "pagoda/request/request.h"

#include <algorithm>

#include "pagoda/base/check.h"

namespace pagoda {

Request::Request(std::string id, std::vector<int32_t> prompt_token_ids, SamplingParams params, double arrival_time,
                 int32_t priority, CacheKeys cache_keys)
    : id_(std::move(id)),
      prompt_token_ids_(std::move(prompt_token_ids)),
      params_(std::move(params)),
      priority_(priority),
      cache_keys_(std::move(cache_keys)) {
  timing_.arrival = arrival_time;
  sequences_.push_back(std::make_unique<Sequence>(*this, 0, kNoSeqId, prompt_token_ids_, num_prompt_tokens()));
}

bool Request::needs_fork() const {
  return num_sequences() == 1 && params_.num_sequences() > 1 && sequences_[0]->num_output_tokens() == 0;
}

Sequence& Request::Fork(const Sequence& parent, SeqId id) {
  PAGODA_CHECK_MSG(&parent.request() == this, "forking another request's sequence");
  sequences_.push_back(std::make_unique<Sequence>(parent.ForkAs(num_sequences(), id)));
  return *sequences_.back();
}

std::unique_ptr<Sequence> Request::MakeSuccessor(const Sequence& parent, int32_t index, int32_t token,
                                                 SeqId id) const {
  PAGODA_CHECK_MSG(&parent.request() == this, "continuing another request's sequence");
  auto next = std::make_unique<Sequence>(parent.ForkAs(index, id));
  next->AppendToken(token);
  return next;
}

void Request::ReplaceSequences(std::vector<std::unique_ptr<Sequence>> next) {
  PAGODA_CHECK(!next.empty());
  for (size_t i = 0; i < next.size(); ++i) {
    PAGODA_CHECK(next[i] != nullptr && &next[i]->request() == this && next[i]->index() == static_cast<int32_t>(i));
  }
  sequences_ = std::move(next);
}

RequestStatus Request::status() const {
  auto any = [&](auto pred) {
    return std::any_of(sequences_.begin(), sequences_.end(), [&](auto& s) { return pred(*s); });
  };
  if (any([](const Sequence& s) { return s.status() == RequestStatus::kRunning; })) return RequestStatus::kRunning;
  if (finished()) return sequences_[0]->status();
  if (any([](const Sequence& s) { return s.status() == RequestStatus::kPreempted; })) return RequestStatus::kPreempted;
  return RequestStatus::kWaiting;
}

bool Request::finished() const {
  return std::all_of(sequences_.begin(), sequences_.end(), [](auto& s) { return s->finished(); });
}

}  // namespace pagoda
