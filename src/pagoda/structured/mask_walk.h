// The parse states that one token-mask walk of the vocabulary trie meets,
// and the steps between them. Thousands of trie nodes share a few states
// (inside a JSON string, every prefix of plain characters leads to the same
// state, or in a bounded string to one state per length), so a step from a
// state already met on a byte already tried is one array lookup instead of
// a PDA step over every stack. Exact: frames are hash-consed, so two paths
// reach the same state exactly when they reach the same sorted frame ids.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "pagoda/structured/pda.h"

namespace pagoda::structured {

class MaskWalk {
 public:
  static constexpr int32_t kDead = -1;

  // Forgets the last walk; `start` becomes state 0.
  void Reset(const PdaState& start);
  // The state after `byte` from state `from` (kDead if the byte is refused),
  // stepping `pda` only the first time this pair is asked for.
  int32_t Step(Pda& pda, int32_t from, uint8_t byte);

 private:
  static constexpr int32_t kUnknown = -2;

  int32_t Intern(const PdaState& state);

  std::vector<PdaState> states_;
  std::vector<int32_t> steps_;  // steps_[state * 256 + byte]
  std::unordered_map<std::string, int32_t> ids_;
  PdaState scratch_;
  std::string key_;
};

}  // namespace pagoda::structured
