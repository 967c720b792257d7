#include "pagoda/tokenizer/added_tokens.h"

#include <algorithm>

namespace pagoda::tokenizer {

AddedTokenMatcher::AddedTokenMatcher(std::vector<Entry> entries) {
  for (Entry& entry : entries) {
    if (entry.text.empty()) continue;  // cannot be found in text
    by_first_byte_[static_cast<uint8_t>(entry.text[0])].push_back(std::move(entry));
  }
  for (auto& list : by_first_byte_) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Entry& a, const Entry& b) { return a.text.size() > b.text.size(); });
  }
}

void AddedTokenMatcher::Split(std::string_view text, bool parse_special, std::vector<Segment>* out) const {
  size_t run_start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const Entry* found = nullptr;
    for (const Entry& entry : by_first_byte_[static_cast<uint8_t>(text[pos])]) {
      if (entry.special && !parse_special) continue;
      if (text.compare(pos, entry.text.size(), entry.text) == 0) {
        found = &entry;
        break;
      }
    }
    if (found == nullptr) {
      ++pos;
      continue;
    }
    if (pos > run_start) out->push_back({text.substr(run_start, pos - run_start), -1});
    out->push_back({text.substr(pos, found->text.size()), found->id});
    pos += found->text.size();
    run_start = pos;
  }
  if (run_start < text.size()) out->push_back({text.substr(run_start), -1});
}

}  // namespace pagoda::tokenizer
