#include "pagoda/tokenizer/bpe_model.h"

#include <algorithm>

#include "pagoda/tokenizer/byte_level.h"

namespace pagoda::tokenizer {
namespace {

// Orders the heap as a min-heap on (rank, position).
bool WorseCandidate(const BpeModel::Scratch::Candidate& a, const BpeModel::Scratch::Candidate& b) {
  if (a.rank != b.rank) return a.rank > b.rank;
  return a.left > b.left;
}

constexpr TokenId kMergedAway = -1;
constexpr TokenId kNoToken = -1;

}  // namespace

StatusOr<BpeModel> BpeModel::Create(const std::unordered_map<std::string, TokenId>& vocab,
                                    const std::vector<std::string>& merges) {
  BpeModel model;
  for (int b = 0; b < 256; ++b) {
    const auto it = vocab.find(BytesToVocabText(std::string(1, static_cast<char>(b))));
    model.byte_ids_[b] = it == vocab.end() ? kNoToken : it->second;
  }
  model.merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string& merge = merges[rank];
    const size_t space = merge.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == merge.size()) {
      return InvalidArgumentError("merge " + std::to_string(rank) + " is not \"left right\": \"" + merge + "\"");
    }
    const std::string left = merge.substr(0, space);
    const std::string right = merge.substr(space + 1);
    const auto l = vocab.find(left);
    const auto r = vocab.find(right);
    const auto m = vocab.find(left + right);
    if (l == vocab.end() || r == vocab.end() || m == vocab.end()) {
      return InvalidArgumentError("merge " + std::to_string(rank) + " \"" + merge +
                                  "\" uses or makes a token that is not in the vocabulary");
    }
    // A pair listed twice keeps its last rank, as Hugging Face's BPE builder does.
    model.merges_.insert_or_assign(PairKey(l->second, r->second),
                                   Merge{static_cast<uint32_t>(rank), m->second});
  }
  return model;
}

void BpeModel::PushCandidate(int left, Scratch* scratch) const {
  if (left < 0) return;
  const int right = scratch->symbols[left].next;
  if (right < 0) return;
  const TokenId left_id = scratch->symbols[left].id;
  const TokenId right_id = scratch->symbols[right].id;
  const auto it = merges_.find(PairKey(left_id, right_id));
  if (it == merges_.end()) return;
  scratch->heap.push_back({it->second.rank, left, left_id, right_id, it->second.merged_id});
  std::push_heap(scratch->heap.begin(), scratch->heap.end(), WorseCandidate);
}

void BpeModel::Encode(std::string_view word, Scratch* scratch, std::vector<TokenId>* out) const {
  auto& symbols = scratch->symbols;
  auto& heap = scratch->heap;
  symbols.clear();
  for (char c : word) {
    const TokenId id = byte_ids_[static_cast<uint8_t>(c)];
    if (id == kNoToken) continue;
    const int i = static_cast<int>(symbols.size());
    symbols.push_back({id, i - 1, i + 1});
  }
  const int n = static_cast<int>(symbols.size());
  if (n == 0) return;
  symbols.back().next = -1;
  heap.clear();
  for (int i = 0; i + 1 < n; ++i) PushCandidate(i, scratch);

  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), WorseCandidate);
    const Scratch::Candidate c = heap.back();
    heap.pop_back();
    // Candidates go stale when a neighbour merges first; the ids tell.
    Scratch::Symbol& left = symbols[c.left];
    if (left.id != c.left_id || left.next < 0 || symbols[left.next].id != c.right_id) continue;
    Scratch::Symbol& right = symbols[left.next];
    left.id = c.merged_id;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = c.left;
    right.id = kMergedAway;
    PushCandidate(left.prev, scratch);
    PushCandidate(c.left, scratch);
  }

  for (int i = 0; i >= 0; i = symbols[i].next) out->push_back(symbols[i].id);
}

}  // namespace pagoda::tokenizer
