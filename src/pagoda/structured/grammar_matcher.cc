#include "pagoda/structured/grammar_matcher.h"

#include <utility>

#include "pagoda/base/check.h"

namespace pagoda::structured {

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar, size_t max_stacks)
    : pda_(std::move(grammar), max_stacks) {
  history_.emplace_back();
  pda_.Initial(&history_.back());
  overflowed_ = history_.back().overflow;
}

bool GrammarMatcher::AcceptByte(uint8_t byte) {
  PdaState next;
  pda_.Advance(Current(), byte, &next);
  if (next.overflow) overflowed_ = true;
  if (next.Dead()) return false;
  history_.push_back(std::move(next));
  return true;
}

bool GrammarMatcher::AcceptBytes(std::string_view bytes) {
  const size_t start = NumBytes();
  for (const char c : bytes) {
    if (!AcceptByte(static_cast<uint8_t>(c))) {
      RollbackTo(start);
      return false;
    }
  }
  return true;
}

void GrammarMatcher::RollbackTo(size_t num_bytes) {
  PAGODA_CHECK(num_bytes <= NumBytes());
  history_.resize(num_bytes + 1);
}

void GrammarMatcher::FillNextTokenMask(const TokenTrie& trie, TokenBitmask* mask) {
  PAGODA_CHECK(mask->size() == trie.vocab_size());
  mask->Clear();
  if (Current().Finished()) return;
  if (walk_.num_states() > kMaxWalkStates || pda_.num_frames() > kMaxFrames) {
    walk_.Clear();
    pda_.Compact(history_);
  }
  trial_.resize(static_cast<size_t>(trie.max_depth()) + 1);
  trial_[0] = walk_.Enter(Current());
  const auto& nodes = trie.nodes();
  const auto& token_ids = trie.token_ids();
  for (size_t i = 0; i < nodes.size();) {
    const TokenTrie::Node& node = nodes[i];
    const int32_t state = walk_.Step(pda_, trial_[node.depth - 1], node.byte);
    if (state == MaskWalk::kDead) {
      i = static_cast<size_t>(node.subtree_end);
      continue;
    }
    trial_[node.depth] = state;
    for (int32_t t = 0; t < node.token_count; ++t) mask->Set(token_ids[node.first_token + t]);
    ++i;
  }
}

}  // namespace pagoda::structured
