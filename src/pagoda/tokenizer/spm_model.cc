#include "pagoda/tokenizer/spm_model.h"

#include <algorithm>
#include <cstdio>

namespace pagoda::tokenizer {
namespace {

// Orders the heap as a max-heap on score, the leftmost first among equals.
bool WorseCandidate(const SpmModel::Scratch::Candidate& a, const SpmModel::Scratch::Candidate& b) {
  if (a.score != b.score) return a.score < b.score;
  return a.left > b.left;
}

// llama.cpp's unicode_len_utf8: the length a lead byte announces, 1 for a
// continuation byte, so any byte string splits into symbols.
uint32_t Utf8Length(uint8_t lead) {
  static constexpr uint8_t kLengths[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLengths[lead >> 4];
}

uint64_t SpanKey(uint32_t start, uint32_t size) { return (static_cast<uint64_t>(start) << 32) | size; }

}  // namespace

StatusOr<SpmModel> SpmModel::Create(const std::vector<std::string>& tokens, const std::vector<TokenType>& types,
                                    const std::vector<float>& scores, std::optional<TokenId> unk_id) {
  if (!scores.empty() && scores.size() != tokens.size()) {
    return InvalidArgumentError("tokenizer has " + std::to_string(scores.size()) + " scores for " +
                                std::to_string(tokens.size()) + " tokens");
  }
  SpmModel model;
  model.vocab_.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool unused = !types.empty() && types[i] == TokenType::kUnused;
    model.vocab_.emplace(tokens[i], Entry{static_cast<TokenId>(i), scores.empty() ? 0.0f : scores[i], unused});
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    const Entry* entry = model.Find(name);
    model.byte_ids_[b] = entry != nullptr ? entry->id : unk_id.value_or(-1);
  }
  return model;
}

const SpmModel::Entry* SpmModel::Find(std::string_view text) const {
  const auto it = vocab_.find(text);
  return it == vocab_.end() ? nullptr : &it->second;
}

void SpmModel::PushCandidate(std::string_view text, int left, Scratch* scratch) const {
  if (left < 0) return;
  const int right = scratch->symbols[left].next;
  if (right < 0) return;
  const Scratch::Symbol& l = scratch->symbols[left];
  const uint32_t size = l.size + scratch->symbols[right].size;
  const Entry* entry = Find(text.substr(l.start, size));
  if (entry == nullptr) return;
  scratch->heap.push_back({entry->score, left, right, size, entry->unused});
  std::push_heap(scratch->heap.begin(), scratch->heap.end(), WorseCandidate);
}

void SpmModel::Encode(std::string_view text, Scratch* scratch, std::vector<TokenId>* out) const {
  auto& symbols = scratch->symbols;
  auto& heap = scratch->heap;
  symbols.clear();
  heap.clear();
  scratch->unused_splits.clear();
  for (size_t pos = 0; pos < text.size();) {
    const auto size =
        static_cast<uint32_t>(std::min<size_t>(Utf8Length(static_cast<uint8_t>(text[pos])), text.size() - pos));
    const int i = static_cast<int>(symbols.size());
    symbols.push_back({static_cast<uint32_t>(pos), size, i - 1, i + 1});
    pos += size;
  }
  if (symbols.empty()) return;
  symbols.back().next = -1;
  for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i) PushCandidate(text, i, scratch);

  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), WorseCandidate);
    const Scratch::Candidate c = heap.back();
    heap.pop_back();
    Scratch::Symbol& left = symbols[c.left];
    Scratch::Symbol& right = symbols[c.right];
    // Symbols only grow or vanish, so unchanged sizes mean the pair is
    // still adjacent and as queued.
    if (left.size == 0 || right.size == 0 || left.size + right.size != c.size) continue;
    if (c.unused) scratch->unused_splits[SpanKey(left.start, c.size)] = left.size;
    left.size = c.size;
    right.size = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = c.left;
    PushCandidate(text, left.prev, scratch);
    PushCandidate(text, c.left, scratch);
  }

  for (int i = 0; i >= 0; i = symbols[i].next) Resegment(text, symbols[i].start, symbols[i].size, *scratch, out);
}

void SpmModel::Resegment(std::string_view text, uint32_t start, uint32_t size, const Scratch& scratch,
                         std::vector<TokenId>* out) const {
  const Entry* entry = Find(text.substr(start, size));
  if (entry != nullptr && !entry->unused) {
    out->push_back(entry->id);
    return;
  }
  const auto split = scratch.unused_splits.find(SpanKey(start, size));
  if (split != scratch.unused_splits.end()) {
    Resegment(text, start, split->second, scratch, out);
    Resegment(text, start + split->second, size - split->second, scratch, out);
    return;
  }
  for (uint32_t i = start; i < start + size; ++i) {
    const TokenId id = byte_ids_[static_cast<uint8_t>(text[i])];
    if (id >= 0) out->push_back(id);
  }
}

}  // namespace pagoda::tokenizer
