#include "pagoda/beam_search/beam_search.h"

#include <algorithm>
#include <cmath>

#include "pagoda/base/check.h"

namespace pagoda {

BeamSearch::BeamSearch(BeamSearchConfig config) : config_(std::move(config)) {
  PAGODA_CHECK(config_.beam_width >= 1 && config_.max_output_tokens >= 1);
  live_.emplace_back();  // the prompt: the first round forks it
  candidates_.resize(1);
}

void BeamSearch::SetCandidates(int32_t beam, std::vector<TokenLogprob> candidates) {
  PAGODA_CHECK(beam >= 0 && beam < num_live());
  candidates_[beam] = std::move(candidates);
}

bool BeamSearch::round_ready() const {
  return !live_.empty() && std::all_of(candidates_.begin(), candidates_.end(), [](auto& c) { return c.has_value(); });
}

double BeamSearch::Score(const std::vector<int32_t>& output_token_ids, double cumulative_logprob) const {
  int64_t length = config_.num_prompt_tokens + static_cast<int64_t>(output_token_ids.size());
  if (config_.eos_token_id && !output_token_ids.empty() && output_token_ids.back() == *config_.eos_token_id) --length;
  return cumulative_logprob / std::pow(static_cast<double>(length), static_cast<double>(config_.length_penalty));
}

BeamSearch::Round BeamSearch::Advance() {
  PAGODA_CHECK_MSG(round_ready(), "a beam round ended before every beam had its candidates");
  struct Child {
    int32_t parent;
    int32_t token;
    double cumulative_logprob;
  };
  // All (beam, token) pairs in beam order, each beam's best first; the
  // stable sort keeps that order on ties.
  std::vector<Child> children;
  for (int32_t b = 0; b < num_live(); ++b) {
    for (const TokenLogprob& c : *candidates_[b]) {
      children.push_back({b, c.token_id, live_[b].cumulative_logprob + static_cast<double>(c.logprob)});
    }
  }
  std::stable_sort(children.begin(), children.end(),
                   [](const Child& a, const Child& b) { return a.cumulative_logprob > b.cumulative_logprob; });
  const size_t width = static_cast<size_t>(config_.beam_width);
  if (children.size() > 2 * width) children.resize(2 * width);

  std::vector<BeamHypothesis> finished = std::move(finished_);
  std::vector<Child> running;
  int64_t num_new_finished = 0;
  for (const Child& child : children) {
    const Beam& parent = live_[child.parent];
    std::optional<FinishReason> reason;
    StopReason stop_reason;
    const bool eos = config_.eos_token_id && child.token == *config_.eos_token_id;
    if (eos && !config_.ignore_eos) {
      reason = FinishReason::kStop;
    } else if (std::find(config_.stop_token_ids.begin(), config_.stop_token_ids.end(), child.token) !=
               config_.stop_token_ids.end()) {
      reason = FinishReason::kStop;
      stop_reason = child.token;
    } else if (static_cast<int64_t>(parent.output_token_ids.size()) + 1 >= config_.max_output_tokens) {
      reason = FinishReason::kLength;
    }
    if (!reason) {
      running.push_back(child);
      continue;
    }
    BeamHypothesis h;
    h.output_token_ids = parent.output_token_ids;
    h.output_token_ids.push_back(child.token);
    h.cumulative_logprob = child.cumulative_logprob;
    h.score = Score(h.output_token_ids, h.cumulative_logprob);
    h.finish_reason = *reason;
    h.stop_reason = stop_reason;
    finished.push_back(std::move(h));
    ++num_new_finished;
  }
  std::stable_sort(finished.begin(), finished.end(),
                   [](const BeamHypothesis& a, const BeamHypothesis& b) { return a.score > b.score; });
  if (finished.size() > width) finished.resize(width);
  finished_ = std::move(finished);

  // `running` is already in cumulative-logprob order. Early stopping: the
  // best beam, scored at its current length, no longer beats the worst kept
  // hypothesis (with length_penalty > 0 it could still grow and win; that
  // is Hugging Face's early_stopping=False heuristic, vLLM's default).
  if (finished_.size() >= width && !running.empty()) {
    std::vector<int32_t> best = live_[running[0].parent].output_token_ids;
    best.push_back(running[0].token);
    if (finished_.back().score >= Score(best, running[0].cumulative_logprob)) running.clear();
  }
  if (running.size() > width) running.resize(width);

  Round round;
  std::vector<Beam> next;
  for (size_t i = 0; i < running.size(); ++i) {
    const Child& child = running[i];
    Beam beam = live_[child.parent];
    beam.output_token_ids.push_back(child.token);
    beam.cumulative_logprob = child.cumulative_logprob;
    next.push_back(std::move(beam));
    round.children.push_back(ParkedSuccessor{child.parent, child.token});
  }
  round.num_generated = static_cast<int64_t>(running.size()) + num_new_finished;
  live_ = std::move(next);
  candidates_.assign(live_.size(), std::nullopt);
  return round;
}

std::vector<BeamHypothesis> BeamSearch::Results() const {
  std::vector<BeamHypothesis> out = finished_;
  std::vector<BeamHypothesis> cut;
  for (const Beam& beam : live_) {
    BeamHypothesis h;
    h.output_token_ids = beam.output_token_ids;
    h.cumulative_logprob = beam.cumulative_logprob;
    h.score = Score(h.output_token_ids, h.cumulative_logprob);
    h.finish_reason = FinishReason::kAbort;
    cut.push_back(std::move(h));
  }
  std::stable_sort(cut.begin(), cut.end(),
                   [](const BeamHypothesis& a, const BeamHypothesis& b) { return a.score > b.score; });
  out.insert(out.end(), cut.begin(), cut.end());
  return out;
}

}  // namespace pagoda
