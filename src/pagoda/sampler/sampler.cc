#include "pagoda/sampler/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pagoda/base/check.h"
#include "pagoda/sampler/logits_processors.h"

namespace pagoda {

Sampler::Sampler(int32_t vocab_size, std::vector<int32_t> eos_token_ids, const kernels::cpu::RowOps& rows)
    : vocab_size_(vocab_size),
      eos_token_ids_(std::move(eos_token_ids)),
      rows_(rows),
      row_(static_cast<size_t>(vocab_size)),
      masked_(static_cast<size_t>(vocab_size)),
      counts_(static_cast<size_t>(vocab_size), 0),
      token_set_(vocab_size),
      top_k_top_p_(vocab_size, rows),
      raw_logprobs_(rows),
      beam_logprobs_(rows) {
  PAGODA_CHECK(vocab_size > 0);
  for (int32_t id : eos_token_ids_) PAGODA_CHECK(id >= 0 && id < vocab_size);
}

void Sampler::Sample(std::span<const float> logits, std::span<const SamplingSequence> sequences,
                     std::span<SampledToken> out) {
  PAGODA_CHECK(logits.size() == sequences.size() * static_cast<size_t>(vocab_size_));
  PAGODA_CHECK(out.size() == sequences.size());
  for (size_t i = 0; i < sequences.size(); ++i) {
    const std::span<const float> raw = ApplyGrammarBitmask(logits.subspan(i * vocab_size_, vocab_size_), sequences[i]);
    const int32_t token = SampleRow(raw, sequences[i]);
    const SamplingParams& p = *sequences[i].params;
    if (p.logprobs || p.num_sequences() > p.n) {
      Score(raw, token, p.logprobs.value_or(0), out[i]);
    } else {
      out[i].token_id = token;
      out[i].logprob.reset();
      out[i].rank.reset();
      out[i].top_logprobs.clear();
    }
  }
}

void Sampler::ScorePromptTokens(std::span<const float> logits, std::span<const int32_t> next_token_ids,
                                int32_t num_logprobs, std::span<SampledToken> out) {
  PAGODA_CHECK(logits.size() == next_token_ids.size() * static_cast<size_t>(vocab_size_));
  PAGODA_CHECK(out.size() == next_token_ids.size());
  for (size_t i = 0; i < next_token_ids.size(); ++i) {
    Score(logits.subspan(i * vocab_size_, vocab_size_), next_token_ids[i], num_logprobs, out[i]);
  }
}

void Sampler::BeamCandidates(std::span<const float> logits, const SamplingSequence& sequence, int32_t k,
                             std::vector<TokenLogprob>& out) {
  PAGODA_CHECK(logits.size() == static_cast<size_t>(vocab_size_));
  ProcessRow(ApplyGrammarBitmask(logits, sequence), sequence);
  beam_logprobs_.Reset(row_);
  beam_logprobs_.TopN(k, out);
  std::erase_if(out, [](const TokenLogprob& t) { return !std::isfinite(t.logprob); });
}

std::span<const float> Sampler::ApplyGrammarBitmask(std::span<const float> raw, const SamplingSequence& sequence) {
  const std::span<const uint64_t> bits = sequence.grammar_bitmask;
  if (bits.empty()) return raw;
  PAGODA_CHECK(bits.size() * 64 >= static_cast<size_t>(vocab_size_));
  constexpr float kMasked = -std::numeric_limits<float>::infinity();
  for (int32_t id = 0; id < vocab_size_; ++id) masked_[id] = (bits[id >> 6] >> (id & 63)) & 1 ? raw[id] : kMasked;
  return masked_;
}

void Sampler::ProcessRow(std::span<const float> raw, const SamplingSequence& sequence) {
  const SamplingParams& p = *sequence.params;
  std::copy(raw.begin(), raw.end(), row_.begin());
  const std::span<float> row(row_);

  if (p.allowed_token_ids) logits::KeepAllowed(row, *p.allowed_token_ids, token_set_);
  logits::BanBadWords(row, sequence.bad_words_token_ids, sequence.output_token_ids);
  logits::AddLogitBias(row, p.logit_bias);
  if (static_cast<int64_t>(sequence.output_token_ids.size()) < p.min_tokens) {
    // vLLM bans EOS here even with ignore_eos: its all_stop_token_ids always
    // holds the model's EOS ids.
    logits::Ban(row, p.stop_token_ids);
    logits::Ban(row, eos_token_ids_);
  }
  logits::ApplyPenalties(row, sequence.prompt_token_ids, sequence.output_token_ids,
                         {p.repetition_penalty, p.frequency_penalty, p.presence_penalty}, token_set_, counts_);
}

int32_t Sampler::SampleRow(std::span<const float> raw, const SamplingSequence& sequence) {
  ProcessRow(raw, sequence);
  const SamplingParams& p = *sequence.params;
  const std::span<float> row(row_);

  if (p.IsGreedy()) return logits::Argmax(row, rows_);
  logits::ApplyTemperature(row, p.temperature);
  logits::ApplyMinP(row, p.min_p, rows_);
  const double uniform = sequence.random.Uniform(static_cast<int64_t>(sequence.output_token_ids.size()));
  const int32_t token = top_k_top_p_.Sample(row, p.top_k, p.top_p, uniform);
  return token >= 0 ? token : logits::Argmax(row, rows_);
}

void Sampler::Score(std::span<const float> raw, int32_t token_id, int32_t num_logprobs, SampledToken& out) {
  raw_logprobs_.Reset(raw);
  out.token_id = token_id;
  out.logprob = raw_logprobs_.Logprob(token_id);
  out.rank = raw_logprobs_.Rank(token_id);
  raw_logprobs_.TopN(num_logprobs, out.top_logprobs);
}

}  // namespace pagoda
