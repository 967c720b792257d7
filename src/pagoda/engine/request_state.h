// The engine thread's output side of one request, from intake to its final
// output: each sequence's random stream, tokens, incremental detokenization,
// stop string matching, logprobs and finish reason, and what of it has
// already been sent, so outputs can be cumulative or deltas. The request's
// id, prompt tokens, parameters and timings it reads from the request's one
// record, the Request, which must outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pagoda/beam_search/beam_search.h"
#include "pagoda/engine/output_stream.h"
#include "pagoda/engine/request_output.h"
#include "pagoda/engine/stop_string_matcher.h"
#include "pagoda/engine/structured_output.h"
#include "pagoda/request/request.h"
#include "pagoda/sampler/sampler.h"
#include "pagoda/scheduler/step_plan.h"
#include "pagoda/tokenizer/incremental_detokenizer.h"

namespace pagoda {

class RequestState {
 public:
  // The request's params validated and normalized; `prompt`: its text, if
  // it came as text; `random[i]` is sequence i's stream; `beam_search` is
  // set exactly when params.use_beam_search; `grammar`, when set, is the
  // compiled structured-output constraint, which each sequence follows
  // (eos_token_ids: the tokens it allows once the text is complete).
  RequestState(const Request& request, std::optional<std::string> prompt,
               std::vector<std::vector<int32_t>> bad_words_token_ids, std::vector<RandomStream> random,
               const tokenizer::Tokenizer& tokenizer, std::shared_ptr<OutputStream> stream,
               std::optional<BeamSearchConfig> beam_search = std::nullopt,
               std::shared_ptr<structured::CompiledGrammar> grammar = nullptr,
               std::span<const int32_t> eos_token_ids = {}, const std::string& reasoning_end = "");

  const std::string& request_id() const { return request_.id(); }
  const SamplingParams& params() const { return params_; }
  std::span<const std::vector<int32_t>> bad_words_token_ids() const { return bad_words_token_ids_; }
  const RandomStream& random(int32_t seq_index) const { return seqs_.at(seq_index).random; }
  const std::shared_ptr<OutputStream>& stream() const { return stream_; }
  // Sequence seq_index's structured-output constraint, else null.
  GrammarConstraint* constraint(int32_t seq_index) { return seqs_.at(seq_index).constraint.get(); }
  // The search of a beam request (its sequences get no Apply()), else null.
  BeamSearch* beam_search() { return beam_search_ ? &*beam_search_ : nullptr; }
  // A beam round ended: beam i of the next round follows its parent's
  // grammar state advanced by its token (no-op without a constraint).
  void ContinueBeamGrammars(std::span<const ParkedSuccessor> children);

  // Prompt logprobs: the prompt position whose token is scored next (1 is
  // the first: nothing predicts position 0); the prompt length when done or
  // not wanted. Recomputation after a preemption scores nothing twice.
  int64_t next_prompt_logprob_position() const;
  void AddPromptLogprob(const SampledToken& scored);

  // The sample the sampler chose for a sequence this step, held until the
  // scheduler's update reports the token.
  void SetSample(int32_t seq_index, SampledToken sample);

  // What an update found that the scheduler does not know: a stop string
  // that the new text completed, or the end of the sequence's grammar. The
  // caller then ends the sequence in the scheduler, with `reason`.
  struct Ending {
    bool stop = false;
    StopReason reason;
  };
  // Applies one sequence's update.
  Ending Apply(const SequenceOutput& out);

  // The request is over (all sequences finished, or aborted): sequences not
  // finished yet take their status from the request. A beam request's
  // completions become its best hypotheses.
  void Finish(double now);
  bool finished() const { return finished_; }
  // After Finish(): the request's finish reason (its first completion's),
  // and the tokens its completions generated, in all and at most in one.
  FinishReason finish_reason() const;
  int64_t num_generated_tokens() const;
  int64_t max_generated_tokens() const;
  // When the metrics last saw a token of this request (unset before the first).
  std::optional<double>& last_token_time() { return last_token_time_; }

  // Publishes what changed since the last call to the stream, as the output
  // kind asks, with the request's timings and cached tokens as they are now.
  void Publish();

 private:
  struct Seq {
    explicit Seq(RandomStream r) : random(r) {}
    RandomStream random;
    std::vector<int32_t> token_ids;
    std::string text;
    std::vector<PositionLogprobs> logprobs;
    double cumulative_logprob = 0;
    std::optional<FinishReason> finish_reason;
    StopReason stop_reason;
    std::unique_ptr<tokenizer::IncrementalDetokenizer> detokenizer;
    std::optional<StopStringMatcher> stop;
    std::optional<SampledToken> sample;
    std::unique_ptr<GrammarConstraint> constraint;
    // Sent so far (delta outputs) and whether anything changed since.
    size_t sent_tokens = 0, sent_text = 0;
    bool sent_finish = false;
  };

  // Adds detokenized text; true when it completed a stop string.
  bool AddText(Seq& seq, std::string_view delta, bool check_stop);
  // Follows `token` through the sequence's grammar; true when that ends it.
  bool FollowGrammar(Seq& seq, int32_t token);
  void TakeBeamResults();
  PositionLogprobs MakePosition(const SampledToken& sampled) const;
  // The sequences to report and their output indices: all of them, or, with
  // best_of > n, the n of highest cumulative logprob.
  std::vector<int32_t> Reported() const;
  CompletionOutput MakeCompletion(int32_t output_index, Seq& seq, bool delta) const;

  const Request& request_;
  const SamplingParams& params_;  // request_'s
  std::optional<std::string> prompt_;
  std::vector<std::vector<int32_t>> bad_words_token_ids_;
  const tokenizer::Tokenizer& tokenizer_;
  std::shared_ptr<OutputStream> stream_;
  std::vector<Seq> seqs_;
  std::optional<BeamSearch> beam_search_;
  std::vector<std::optional<PositionLogprobs>> prompt_logprobs_;  // filled in position order
  bool prompt_logprobs_sent_ = false;
  bool finished_ = false;
  std::optional<double> finished_time_;
  std::optional<double> last_token_time_;
};

}  // namespace pagoda
