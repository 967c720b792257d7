// Beam search over one request's beams, as vLLM's engine did it before V1
// (and as Hugging Face does with early_stopping=False). Each round every
// live beam offers its best next tokens; of all (beam, token) pairs the 2W
// with the highest cumulative logprob become children. Children that end
// (EOS, a stop token, the length limit) join the finished hypotheses, of
// which the W best by length-penalized score are kept; the W best unfinished
// children by cumulative logprob are the next round's beams. The search ends
// when no beam is left, or early: when W hypotheses are finished and the
// best live beam's score cannot beat the worst of them.
//
// Pure bookkeeping above the scheduler: the engine feeds each beam's
// candidates (from its logits), and EndBeamRound (beam_round.h) turns each
// round's children into the request's next sequences through the
// scheduler's park API (a beam request parks its sequences), whose
// copy-on-write keeps the shared past once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pagoda/request/request_status.h"
#include "pagoda/sampler/raw_logprobs.h"
#include "pagoda/scheduler/scheduler.h"

namespace pagoda {

struct BeamSearchConfig {
  int32_t beam_width = 1;
  float length_penalty = 1.0f;
  int64_t num_prompt_tokens = 0;
  // A beam of this many output tokens is finished (max_tokens, or what is
  // left of max_model_len after the prompt).
  int64_t max_output_tokens = 1;
  // The model's EOS ends a beam unless ignore_eos, and does not count in the
  // length its score divides by (as Hugging Face and vLLM count it).
  std::optional<int32_t> eos_token_id;
  bool ignore_eos = false;
  std::vector<int32_t> stop_token_ids;
};

struct BeamHypothesis {
  std::vector<int32_t> output_token_ids;
  double cumulative_logprob = 0;
  double score = 0;  // cumulative_logprob / length^length_penalty, length counting the prompt
  FinishReason finish_reason = FinishReason::kLength;
  StopReason stop_reason;  // the stop token id, when one ended it
};

class BeamSearch {
 public:
  explicit BeamSearch(BeamSearchConfig config);

  // Beams alive in the current round; sequence i of the request is beam i.
  int32_t num_live() const { return static_cast<int32_t>(live_.size()); }
  // A live beam's candidate next tokens with their logprobs, best first, at
  // most 2W of them (more are never chosen).
  void SetCandidates(int32_t beam, std::vector<TokenLogprob> candidates);
  // Every live beam has its candidates: the round can end.
  bool round_ready() const;

  struct Round {
    std::vector<ParkedSuccessor> children;  // the next round's beams; empty when the search is over
    int64_t num_generated = 0;              // children kept, as beams or hypotheses
  };
  Round Advance();

  // The finished hypotheses, best score first (at most W). For a search cut
  // short (an abort), the live beams follow, best first, as aborted.
  std::vector<BeamHypothesis> Results() const;

 private:
  struct Beam {
    std::vector<int32_t> output_token_ids;
    double cumulative_logprob = 0;
  };
  double Score(const std::vector<int32_t>& output_token_ids, double cumulative_logprob) const;

  BeamSearchConfig config_;
  std::vector<Beam> live_;
  std::vector<std::optional<std::vector<TokenLogprob>>> candidates_;  // per live beam
  std::vector<BeamHypothesis> finished_;                               // best score first
};

}  // namespace pagoda
