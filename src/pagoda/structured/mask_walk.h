// The parse states that token-mask walks of the vocabulary trie meet, and
// the steps between them. Thousands of trie nodes share a few states
// (inside a JSON string, every prefix of plain characters leads to the same
// state, or in a bounded string to one state per length), so a step from a
// state already met on a byte already tried is one array lookup instead of
// a PDA step over every stack. Exact: frames are hash-consed, so two paths
// reach the same state exactly when they reach the same sorted frame ids.
//
// The memo outlives one walk: the next token's walk mostly meets the same
// states again (the walk from a bounded string with k characters left
// meets the states with k-1, k-2, ... left, and so does the next token's
// walk from k-1), so only the states it reaches first need PDA steps. It
// holds frame ids, so it is cleared whenever the Pda renumbers its frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "pagoda/structured/pda.h"

namespace pagoda::structured {

class MaskWalk {
 public:
  static constexpr int32_t kDead = -1;

  MaskWalk() = default;
  // A copy starts empty: the memo is only a cache, and copies (a beam's or
  // an n>1 child's matcher) should not pay for their parent's.
  MaskWalk(const MaskWalk&) {}
  MaskWalk& operator=(const MaskWalk&) {
    Clear();
    return *this;
  }

  void Clear();
  // The id of `state`, met before or now.
  int32_t Enter(const PdaState& state) { return Intern(state); }
  // The state after `byte` from state `from` (kDead if the byte is refused),
  // stepping `pda` only the first time this pair is asked for. Inline: a
  // mask walks this once per trie node, and almost every call is a lookup.
  int32_t Step(Pda& pda, int32_t from, uint8_t byte) {
    const int32_t known = steps_[static_cast<size_t>(from) * 256 + byte];
    return known != kUnknown ? known : FirstStep(pda, from, byte);
  }
  // States met since the last Clear(); each holds a 1 KiB row of steps.
  size_t num_states() const { return states_.size(); }

 private:
  static constexpr int32_t kUnknown = -2;

  int32_t FirstStep(Pda& pda, int32_t from, uint8_t byte);
  int32_t Intern(const PdaState& state);

  std::vector<PdaState> states_;
  std::vector<int32_t> steps_;  // steps_[state * 256 + byte]
  std::unordered_map<std::string, int32_t> ids_;
  PdaState scratch_;
  std::string key_;
};

}  // namespace pagoda::structured
