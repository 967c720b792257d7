#include "pagoda/engine/request_state.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <numeric>

#include "pagoda/base/check.h"

namespace pagoda {

RequestState::RequestState(const Request& request, std::optional<std::string> prompt,
                           std::vector<std::vector<int32_t>> bad_words_token_ids, std::vector<RandomStream> random,
                           const tokenizer::Tokenizer& tokenizer, std::shared_ptr<OutputStream> stream,
                           std::optional<BeamSearchConfig> beam_search,
                           std::shared_ptr<structured::CompiledGrammar> grammar,
                           std::span<const int32_t> eos_token_ids, const std::string& reasoning_end)
    : request_(request),
      params_(request.params()),
      prompt_(std::move(prompt)),
      bad_words_token_ids_(std::move(bad_words_token_ids)),
      tokenizer_(tokenizer),
      stream_(std::move(stream)) {
  PAGODA_CHECK(static_cast<int32_t>(random.size()) == params_.num_sequences());
  for (const RandomStream& r : random) {
    Seq& seq = seqs_.emplace_back(r);
    seq.detokenizer = std::make_unique<tokenizer::IncrementalDetokenizer>(tokenizer_, params_.skip_special_tokens);
    if (!params_.stop.empty()) seq.stop.emplace(params_.stop, params_.include_stop_str_in_output);
    if (grammar) seq.constraint = std::make_unique<GrammarConstraint>(grammar, eos_token_ids, tokenizer_, reasoning_end);
  }
  if (params_.prompt_logprobs) prompt_logprobs_.push_back(std::nullopt);
  PAGODA_CHECK(beam_search.has_value() == params_.use_beam_search);
  if (beam_search) beam_search_.emplace(std::move(*beam_search));
}

int64_t RequestState::next_prompt_logprob_position() const {
  if (!params_.prompt_logprobs) return static_cast<int64_t>(request_.prompt_token_ids().size());
  return static_cast<int64_t>(prompt_logprobs_.size());
}

void RequestState::AddPromptLogprob(const SampledToken& scored) {
  PAGODA_CHECK(next_prompt_logprob_position() < static_cast<int64_t>(request_.prompt_token_ids().size()));
  prompt_logprobs_.push_back(MakePosition(scored));
}

void RequestState::SetSample(int32_t seq_index, SampledToken sample) { seqs_.at(seq_index).sample = std::move(sample); }

PositionLogprobs RequestState::MakePosition(const SampledToken& sampled) const {
  auto decode = [&](int32_t id) {
    StatusOr<std::string> text = tokenizer_.Decode(std::span<const int32_t>(&id, 1));
    PAGODA_CHECK(text.ok());
    return std::move(*text);
  };
  PositionLogprobs position;
  PAGODA_CHECK_MSG(sampled.logprob && sampled.rank, "a logprobs position needs its token scored");
  position.push_back(Logprob{sampled.token_id, *sampled.logprob, *sampled.rank, decode(sampled.token_id)});
  for (size_t i = 0; i < sampled.top_logprobs.size(); ++i) {
    const TokenLogprob& top = sampled.top_logprobs[i];
    if (top.token_id == sampled.token_id) continue;
    position.push_back(Logprob{top.token_id, top.logprob, static_cast<int32_t>(i + 1), decode(top.token_id)});
  }
  return position;
}

bool RequestState::AddText(Seq& seq, std::string_view delta, bool check_stop) {
  if (!seq.stop) {
    seq.text += delta;
    return false;
  }
  StopStringMatcher::Update update = seq.stop->Push(delta, check_stop);
  seq.text += update.text;
  if (!update.finished) return false;
  seq.finish_reason = FinishReason::kStop;
  seq.stop_reason = seq.stop->stop_strings().at(*update.stop_index);
  return true;
}

bool RequestState::FollowGrammar(Seq& seq, int32_t token) {
  if (!seq.constraint) return false;
  // Only a token outside the bitmask is refused: every token of an
  // all-refusing mask (the sampler then takes id 0). The grammar can go no
  // further, so the sequence ends as if it had.
  if (!seq.constraint->Accept(token)) {
    spdlog::warn("request {}: token {} does not follow the structured-output grammar; ending the sequence",
                 request_id(), token);
    return true;
  }
  return seq.constraint->Finished();
}

void RequestState::ContinueBeamGrammars(std::span<const ParkedSuccessor> children) {
  if (!seqs_.front().constraint) return;
  // Children are built from the parents' states before any is replaced:
  // two children may share a parent.
  std::vector<std::unique_ptr<GrammarConstraint>> next;
  for (const ParkedSuccessor& child : children) {
    auto constraint = std::make_unique<GrammarConstraint>(*seqs_.at(child.parent).constraint);
    // The candidates came from the parent's mask, so the token is allowed.
    PAGODA_CHECK(constraint->Accept(child.token));
    next.push_back(std::move(constraint));
  }
  for (size_t i = 0; i < next.size(); ++i) seqs_.at(i).constraint = std::move(next[i]);
}

RequestState::Ending RequestState::Apply(const SequenceOutput& out) {
  Seq& seq = seqs_.at(out.seq_index);
  PAGODA_CHECK_MSG(!seq.finish_reason, "token for a finished sequence");
  PAGODA_CHECK(out.new_token_ids.size() == 1 && seq.sample && seq.sample->token_id == out.new_token_ids[0]);
  const int32_t token = out.new_token_ids[0];
  seq.token_ids.push_back(token);
  // Scored where it is reported (logprobs) or ranks samples (best_of > n).
  if (seq.sample->logprob) seq.cumulative_logprob += *seq.sample->logprob;
  if (params_.logprobs) seq.logprobs.push_back(MakePosition(*seq.sample));
  seq.sample.reset();

  // As vLLM: a sequence ended by EOS or a stop token does not show that
  // token's text (unless include_stop_str_in_output) and is not checked for
  // stop strings; others are, once more than min_tokens tokens are out.
  const bool stop_terminated = out.status == RequestStatus::kFinishedStopped;
  const bool check_stop = !stop_terminated && static_cast<int64_t>(seq.token_ids.size()) > params_.min_tokens;
  // A finished grammar ends the sequence here, as its EOS would next step.
  const bool grammar_ended = FollowGrammar(seq, token) && !IsFinished(out.status);
  const bool finishing = IsFinished(out.status) || grammar_ended;
  bool matched = false;
  if (!stop_terminated || params_.include_stop_str_in_output) {
    StatusOr<std::string> delta = seq.detokenizer->Push(token);
    PAGODA_CHECK(delta.ok());  // the sampler only picks ids in the vocabulary
    matched = AddText(seq, *delta, check_stop);
  }
  if (!matched && finishing) {
    const std::string tail = seq.detokenizer->Finish();
    matched = AddText(seq, tail, check_stop);
    if (!matched && seq.stop) seq.text += seq.stop->Flush();
  }
  if (matched) return Ending{true, seq.stop_reason};
  if (grammar_ended) {
    seq.finish_reason = FinishReason::kStop;
    return Ending{true, std::nullopt};
  }
  if (IsFinished(out.status)) {
    seq.finish_reason = FinishReasonOf(out.status);
    seq.stop_reason = out.stop_reason;
  }
  return Ending{};
}

void RequestState::TakeBeamResults() {
  const RandomStream unused = seqs_.front().random;  // beams draw nothing; Seq wants one
  seqs_.clear();
  for (BeamHypothesis& h : beam_search_->Results()) {
    Seq& seq = seqs_.emplace_back(unused);
    // A stop token's text shows only with include_stop_str_in_output, as
    // for sampled sequences.
    const bool hide_last = h.finish_reason == FinishReason::kStop && !params_.include_stop_str_in_output;
    tokenizer::IncrementalDetokenizer detokenizer(tokenizer_, params_.skip_special_tokens);
    for (size_t i = 0; i + (hide_last ? 1 : 0) < h.output_token_ids.size(); ++i) {
      StatusOr<std::string> delta = detokenizer.Push(h.output_token_ids[i]);
      PAGODA_CHECK(delta.ok());
      seq.text += *delta;
    }
    seq.text += detokenizer.Finish();
    seq.token_ids = std::move(h.output_token_ids);
    seq.cumulative_logprob = h.cumulative_logprob;
    seq.finish_reason = h.finish_reason;
    seq.stop_reason = h.stop_reason;
  }
}

void RequestState::Finish(double now) {
  if (beam_search_) {
    TakeBeamResults();
    finished_ = true;
    finished_time_ = now;
    return;
  }
  for (int32_t i = 0; i < static_cast<int32_t>(seqs_.size()); ++i) {
    Seq& seq = seqs_[i];
    if (seq.finish_reason) continue;
    // Aborted (a forked request's children may never have been created).
    const bool exists = i < request_.num_sequences();
    const RequestStatus status = exists ? request_.sequence(i).status() : RequestStatus::kFinishedAborted;
    PAGODA_CHECK(IsFinished(status));
    if (seq.stop) seq.text += seq.stop->Flush();
    seq.finish_reason = FinishReasonOf(status);
    seq.stop_reason = exists ? request_.sequence(i).stop_reason() : std::nullopt;
  }
  finished_ = true;
  finished_time_ = now;
}

std::vector<int32_t> RequestState::Reported() const {
  std::vector<int32_t> order(seqs_.size());
  std::iota(order.begin(), order.end(), 0);
  if (beam_search_) {
    order.resize(std::min<size_t>(order.size(), static_cast<size_t>(params_.n)));  // already best first
  } else if (static_cast<int32_t>(seqs_.size()) > params_.n) {
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return seqs_[a].cumulative_logprob > seqs_[b].cumulative_logprob;
    });
    order.resize(params_.n);
  }
  return order;
}

CompletionOutput RequestState::MakeCompletion(int32_t output_index, Seq& seq, bool delta) const {
  CompletionOutput c;
  c.index = output_index;
  const size_t from_tokens = delta ? seq.sent_tokens : 0;
  const size_t from_text = delta ? seq.sent_text : 0;
  c.text = seq.text.substr(from_text);
  c.token_ids.assign(seq.token_ids.begin() + from_tokens, seq.token_ids.end());
  // Beams always report theirs: it is what ranked them.
  if (beam_search_) c.cumulative_logprob = seq.cumulative_logprob;
  if (params_.logprobs) {
    c.cumulative_logprob = seq.cumulative_logprob;
    c.logprobs.emplace(seq.logprobs.begin() + from_tokens, seq.logprobs.end());
  }
  c.finish_reason = seq.finish_reason;
  c.stop_reason = seq.stop_reason;
  seq.sent_tokens = seq.token_ids.size();
  seq.sent_text = seq.text.size();
  seq.sent_finish = seq.finish_reason.has_value();
  return c;
}

void RequestState::Publish() {
  const RequestTiming& timing = request_.timing();
  const int64_t num_cached_tokens = request_.num_cached_tokens();
  // With best_of > n, which completions are reported is known only at the
  // end; final-only outputs wait for it too.
  // Beams are known only at the end too.
  const bool wait_for_end = params_.output_kind == OutputKind::kFinalOnly || params_.num_sequences() > params_.n ||
                            params_.use_beam_search;
  if (wait_for_end && !finished_) return;
  const bool delta = params_.output_kind == OutputKind::kDelta;

  RequestOutput out;
  const std::vector<int32_t> reported = Reported();
  for (size_t k = 0; k < reported.size(); ++k) {
    Seq& seq = seqs_[reported[k]];
    const bool changed = seq.token_ids.size() > seq.sent_tokens || seq.text.size() > seq.sent_text ||
                         (seq.finish_reason && !seq.sent_finish);
    if (delta && !changed) continue;
    out.outputs.push_back(MakeCompletion(static_cast<int32_t>(k), seq, delta));
  }
  if (out.outputs.empty() && !finished_) return;  // e.g. a prompt chunk: nothing to say yet

  out.request_id = request_.id();
  out.prompt = prompt_;
  out.prompt_token_ids = request_.prompt_token_ids();
  if (params_.prompt_logprobs && !(delta && prompt_logprobs_sent_)) {
    out.prompt_logprobs = prompt_logprobs_;
    prompt_logprobs_sent_ = true;
  }
  out.finished = finished_;
  out.num_cached_tokens = num_cached_tokens;
  out.metrics = RequestMetrics{timing.arrival, timing.first_scheduled, timing.first_token, timing.last_token,
                               finished_time_};
  stream_->Push(std::move(out));
}

FinishReason RequestState::finish_reason() const {
  const std::vector<int32_t> reported = Reported();
  if (reported.empty() || !seqs_[reported[0]].finish_reason) return FinishReason::kAbort;
  return *seqs_[reported[0]].finish_reason;
}

int64_t RequestState::num_generated_tokens() const {
  int64_t n = 0;
  for (const Seq& seq : seqs_) n += static_cast<int64_t>(seq.token_ids.size());
  return n;
}

int64_t RequestState::max_generated_tokens() const {
  int64_t n = 0;
  for (const Seq& seq : seqs_) n = std::max(n, static_cast<int64_t>(seq.token_ids.size()));
  return n;
}

}  // namespace pagoda
