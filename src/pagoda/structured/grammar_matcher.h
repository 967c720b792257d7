// Follows one generation through a grammar, byte by byte: which bytes and
// tokens may come next, whether the text so far is complete, and rollback
// to any earlier length (for beams, n>1 children and speculative tokens).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/structured/grammar.h"
#include "pagoda/structured/mask_walk.h"
#include "pagoda/structured/pda.h"
#include "pagoda/structured/token_trie.h"

namespace pagoda::structured {

class GrammarMatcher {
 public:
  explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar, size_t max_stacks = 4096);

  // Consumes `byte` if the grammar allows it next; otherwise false and no change.
  bool AcceptByte(uint8_t byte);
  // Consumes all of `bytes`, or nothing (false) if the grammar refuses one.
  bool AcceptBytes(std::string_view bytes);

  // The bytes so far are a whole sentence of the grammar.
  bool IsAccepting() const { return Current().accepting; }
  // Some byte may still follow.
  bool CanContinue() const { return !Current().Finished(); }
  // The last step had more parse stacks than the limit: the grammar is too
  // ambiguous, and nothing further is accepted.
  bool Overflowed() const { return overflowed_; }

  size_t NumBytes() const { return history_.size() - 1; }
  // Back to the state after the first `num_bytes` bytes.
  void RollbackTo(size_t num_bytes);

  ByteSet NextBytes() const { return pda_.NextBytes(Current()); }
  // Equal for every matcher of the same grammar in the same state: the key
  // of cached token masks.
  std::string StateKey() const { return pda_.Key(Current()); }

  // Sets exactly the tokens of `trie` whose bytes the grammar accepts next,
  // in full (whatever may follow them). End-of-sequence tokens are the
  // caller's: they are allowed when IsAccepting().
  void FillNextTokenMask(const TokenTrie& trie, TokenBitmask* mask);

 private:
  // Past either bound, the walk's memo is dropped and the frames that only
  // it used are freed (about 2 MiB of steps, 4 MiB of frames).
  static constexpr size_t kMaxWalkStates = 2048;
  static constexpr size_t kMaxFrames = size_t{1} << 18;

  const PdaState& Current() const { return history_.back(); }

  Pda pda_;
  std::vector<PdaState> history_;  // history_[n]: the state after n bytes
  MaskWalk walk_;                  // FillNextTokenMask's states, kept between calls
  std::vector<int32_t> trial_;     // FillNextTokenMask's state per trie depth
  bool overflowed_ = false;
};

}  // namespace pagoda::structured
