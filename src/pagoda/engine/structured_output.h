// Structured outputs on the engine's side: compiling a request's
// constraint into a grammar over the model's vocabulary (cached by the
// constraint's canonical text), and following each sequence through it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/request/structured_outputs_params.h"
#include "pagoda/structured/compiled_grammar.h"
#include "pagoda/structured/grammar_cache.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda {

class StructuredOutputCompiler {
 public:
  // vocab_size: the model's (its logits' row length), at least the
  // tokenizer's; ids past the tokenizer's are never allowed.
  StructuredOutputCompiler(const tokenizer::Tokenizer& tokenizer, int32_t vocab_size);

  // INVALID_ARGUMENT naming the field for a constraint that does not
  // compile; thread-safe.
  StatusOr<std::shared_ptr<structured::CompiledGrammar>> Compile(const StructuredOutputsParams& params) const;

 private:
  // Every token's bytes in a trie, built on first use.
  std::shared_ptr<const structured::TokenTrie> Vocabulary() const;

  const tokenizer::Tokenizer& tokenizer_;
  int32_t vocab_size_;
  mutable std::once_flag vocabulary_once_;
  mutable std::shared_ptr<const structured::TokenTrie> vocabulary_;
  mutable structured::GrammarCache cache_;
};

// One sequence's progress through its request's grammar.
class GrammarConstraint {
 public:
  // `reasoning_end`, when not empty: the grammar starts after the output
  // holds this text (the model's reasoning is free); empty: at once.
  GrammarConstraint(std::shared_ptr<structured::CompiledGrammar> grammar, std::span<const int32_t> eos_token_ids,
                    const tokenizer::Tokenizer& tokenizer, std::string reasoning_end = "");

  // Computes the tokens allowed next: the grammar's, and end-of-sequence
  // when the text so far is complete. May run on another thread than the
  // rest, while nothing else touches this constraint.
  void ComputeNextTokenBitmask();
  // ComputeNextTokenBitmask() if the grammar has the mask cached (true);
  // false, changing nothing, if it would have to walk the vocabulary.
  bool TryCachedNextTokenBitmask();
  // What the last ComputeNextTokenBitmask() found, one bit per token id;
  // empty (every token allowed) while the model is still reasoning.
  std::span<const uint64_t> bitmask() const { return bitmask_; }
  // Follows a sampled token. End-of-sequence tokens change nothing. False
  // if the grammar refuses the token (it was not in the bitmask).
  bool Accept(int32_t token_id);
  // The text is complete and nothing may follow: the sequence is done.
  bool Finished() const { return reasoning_end_.empty() && matcher_.IsAccepting() && !matcher_.CanContinue(); }

 private:
  // Follows a token of the reasoning; the bytes after its end go to the grammar.
  bool FollowReasoning(int32_t token_id);
  bool IsEos(int32_t token_id) const;
  void SetBitmask(const structured::TokenBitmask& mask);

  std::shared_ptr<structured::CompiledGrammar> grammar_;
  std::vector<int32_t> eos_token_ids_;
  const tokenizer::Tokenizer& tokenizer_;
  structured::GrammarMatcher matcher_;
  std::vector<uint64_t> bitmask_;
  std::string reasoning_end_;   // empty once the reasoning has ended
  std::string reasoning_tail_;  // the reasoning's last bytes, which may hold the end's start
};

}  // namespace pagoda
