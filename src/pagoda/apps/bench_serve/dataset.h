// The prompts of a `bench serve` run. Synthetic prompts (random,
// shared-prefix) are token ids drawn from a vocabulary and sent as the
// `prompt` id array, so each has exactly its length in tokens whatever the
// server's tokenizer; a prompt file gives text (or ids) and output lengths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::apps::bench_serve {

struct BenchPrompt {
  std::vector<int32_t> token_ids;  // sent when `text` is empty
  std::string text;
  int64_t prompt_len = 0;  // in tokens; 0 when not known (text and no tokenizer)
  int output_len = 0;      // max_tokens
};

// Ids for synthetic prompts when no tokenizer is given: [1000, 30000), ordinary
// tokens in the vocabularies of Llama 2 and 3, Mistral, Qwen2, Gemma, Phi-3 and
// SmolLM2, clear of the special tokens they keep at either end.
std::vector<int32_t> SafeRangeVocabulary();

// vLLM's random dataset: lengths uniform in [floor(len * (1 - r)), ceil(len * (1 + r))]
// for r = range_ratio in [0, 1), the output's lower bound at least 1.
struct RandomDatasetOptions {
  int num_prompts = 0;
  int input_len = 0;
  int output_len = 0;
  double range_ratio = 0;
};
StatusOr<std::vector<BenchPrompt>> RandomPrompts(const RandomDatasetOptions& options,
                                                 const std::vector<int32_t>& vocab, uint64_t seed);

// `num_prefixes` random prefixes of `prefix_len` ids; request i is prefix
// i % num_prefixes followed by its own `suffix_len` random ids.
struct SharedPrefixOptions {
  int num_prompts = 0;
  int prefix_len = 0;
  int suffix_len = 0;
  int num_prefixes = 1;
  int output_len = 0;
};
StatusOr<std::vector<BenchPrompt>> SharedPrefixPrompts(const SharedPrefixOptions& options,
                                                       const std::vector<int32_t>& vocab, uint64_t seed);

// A JSON Lines file, one {"prompt": "text" or [ids], "output_len": N} a line
// ("output_len" may be left out for `default_output_len`). Blank lines are
// skipped; a file of fewer lines than `num_prompts` is cycled through, as
// vLLM oversamples a small dataset.
StatusOr<std::vector<BenchPrompt>> ReadPromptFile(const std::string& path, int num_prompts, int default_output_len);

}  // namespace pagoda::apps::bench_serve
