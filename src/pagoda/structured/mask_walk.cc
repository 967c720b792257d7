#include "pagoda/structured/mask_walk.h"

namespace pagoda::structured {

void MaskWalk::Clear() {
  states_.clear();
  steps_.clear();
  ids_.clear();
}

int32_t MaskWalk::FirstStep(Pda& pda, int32_t from, uint8_t byte) {
  const size_t index = static_cast<size_t>(from) * 256 + byte;
  pda.Advance(states_[static_cast<size_t>(from)], byte, &scratch_);
  const int32_t to = scratch_.Dead() ? kDead : Intern(scratch_);
  steps_[index] = to;  // after Intern: it may grow steps_
  return to;
}

int32_t MaskWalk::Intern(const PdaState& state) {
  key_.clear();
  key_.push_back(state.accepting ? 'A' : '-');
  key_.append(reinterpret_cast<const char*>(state.tops.data()), state.tops.size() * sizeof(int32_t));
  const auto [it, inserted] = ids_.emplace(key_, static_cast<int32_t>(states_.size()));
  if (inserted) {
    states_.push_back(state);
    steps_.resize(steps_.size() + 256, kUnknown);
  }
  return it->second;
}

}  // namespace pagoda::structured
