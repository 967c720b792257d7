#include "pagoda/structured/pda.h"

#include <algorithm>
#include <utility>

namespace pagoda::structured {

Pda::Pda(std::shared_ptr<const Grammar> grammar, size_t max_stacks)
    : grammar_(std::move(grammar)), max_stacks_(max_stacks) {}

int32_t Pda::Intern(const Frame& frame) {
  if (2 * (frames_.size() + 1) > index_.size()) RebuildIndex(std::max<size_t>(64, 2 * index_.size()));
  const uint64_t position = PackPosition(frame);
  const size_t mask = index_.size() - 1;
  for (size_t i = Hash(position, frame.parent) & mask;; i = (i + 1) & mask) {
    Slot& slot = index_[i];
    if (slot.id < 0) {
      slot = Slot{position, frame.parent, static_cast<int32_t>(frames_.size())};
      frames_.push_back(frame);
      return slot.id;
    }
    if (slot.position == position && slot.parent == frame.parent) return slot.id;
  }
}

void Pda::RebuildIndex(size_t slots) {
  index_.assign(slots, Slot{0, 0, -1});
  const size_t mask = slots - 1;
  for (size_t id = 0; id < frames_.size(); ++id) {
    const uint64_t position = PackPosition(frames_[id]);
    size_t i = Hash(position, frames_[id].parent) & mask;
    while (index_[i].id >= 0) i = (i + 1) & mask;
    index_[i] = Slot{position, frames_[id].parent, static_cast<int32_t>(id)};
  }
}

void Pda::Compact(std::span<PdaState> live) {
  constexpr int32_t kUnused = -1, kUsed = -2;
  std::vector<int32_t> renumbered(frames_.size(), kUnused);
  for (const PdaState& state : live) {
    for (const int32_t top : state.tops) {
      for (int32_t id = top; id >= 0 && renumbered[id] == kUnused; id = frames_[id].parent) renumbered[id] = kUsed;
    }
  }
  // A parent is always interned before its children, so it is renumbered first.
  int32_t kept = 0;
  for (size_t id = 0; id < frames_.size(); ++id) {
    if (renumbered[id] == kUnused) continue;
    Frame frame = frames_[id];
    if (frame.parent >= 0) frame.parent = renumbered[frame.parent];
    renumbered[id] = kept;
    frames_[kept++] = frame;
  }
  frames_.resize(static_cast<size_t>(kept));
  for (PdaState& state : live) {
    for (int32_t& top : state.tops) top = renumbered[top];
  }
  RebuildIndex(index_.size());
}

void Pda::Close(int32_t start, PdaState* out) {
  work_.push_back(start);
  while (!work_.empty()) {
    const int32_t id = work_.back();
    work_.pop_back();
    if (static_cast<size_t>(id) >= seen_.size()) seen_.resize(frames_.size() + 64, 0);
    if (seen_[id] == epoch_) continue;
    seen_[id] = epoch_;
    const Frame frame = frames_[id];
    const auto& alternative = grammar_->rules[frame.rule].alternatives[frame.alternative];
    if (frame.dot == static_cast<int32_t>(alternative.size())) {  // complete: resume the parent
      if (frame.parent < 0) {
        out->accepting = true;
      } else {
        Frame parent = frames_[frame.parent];
        ++parent.dot;
        work_.push_back(Intern(parent));
      }
      continue;
    }
    const Symbol symbol = alternative[frame.dot];
    if (!symbol.is_rule()) {
      if (out->tops.size() == max_stacks_) {
        out->overflow = true;
        work_.clear();
        return;
      }
      out->tops.push_back(id);
      continue;
    }
    const bool tail = frame.dot + 1 == static_cast<int32_t>(alternative.size());
    const int32_t parent = tail ? frame.parent : id;
    const auto count = static_cast<int32_t>(grammar_->rules[symbol.rule()].alternatives.size());
    for (int32_t a = 0; a < count; ++a) work_.push_back(Intern(Frame{symbol.rule(), a, 0, parent}));
  }
}

void Pda::Finish(PdaState* out) {
  if (out->overflow) {
    out->tops.clear();
    out->accepting = false;
    return;
  }
  std::sort(out->tops.begin(), out->tops.end());
  out->tops.erase(std::unique(out->tops.begin(), out->tops.end()), out->tops.end());
}

void Pda::Initial(PdaState* out) {
  *out = PdaState();
  if (++epoch_ == 0) {
    std::fill(seen_.begin(), seen_.end(), 0u);
    epoch_ = 1;
  }
  const auto count = static_cast<int32_t>(grammar_->rules[grammar_->root].alternatives.size());
  for (int32_t a = 0; a < count && !out->overflow; ++a) Close(Intern(Frame{grammar_->root, a, 0, -1}), out);
  Finish(out);
}

void Pda::Advance(const PdaState& from, uint8_t byte, PdaState* out) {
  out->tops.clear();
  out->accepting = false;
  out->overflow = false;
  if (++epoch_ == 0) {
    std::fill(seen_.begin(), seen_.end(), 0u);
    epoch_ = 1;
  }
  for (const int32_t id : from.tops) {
    Frame frame = frames_[id];
    if (!grammar_->byte_sets[NextSymbol(frame).byte_set()].Contains(byte)) continue;
    ++frame.dot;
    Close(Intern(frame), out);
    if (out->overflow) break;
  }
  Finish(out);
}

ByteSet Pda::NextBytes(const PdaState& state) const {
  ByteSet bytes;
  for (const int32_t id : state.tops) bytes.AddAll(grammar_->byte_sets[NextSymbol(frames_[id]).byte_set()]);
  return bytes;
}

std::string Pda::Key(const PdaState& state) const {
  std::string key(state.accepting ? "A" : "-");
  std::vector<int32_t> fields;
  for (const int32_t top : state.tops) {
    fields.clear();
    for (int32_t id = top; id >= 0; id = frames_[id].parent) {
      fields.insert(fields.end(), {frames_[id].rule, frames_[id].alternative, frames_[id].dot});
    }
    const auto depth = static_cast<int32_t>(fields.size() / 3);  // so that no two lists of stacks spell alike
    key.append(reinterpret_cast<const char*>(&depth), sizeof(depth));
    key.append(reinterpret_cast<const char*>(fields.data()), fields.size() * sizeof(int32_t));
  }
  return key;
}

}  // namespace pagoda::structured
