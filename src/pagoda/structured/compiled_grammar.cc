#include "pagoda/structured/compiled_grammar.h"

#include <utility>

namespace pagoda::structured {

CompiledGrammar::CompiledGrammar(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const TokenTrie> vocabulary,
                                 size_t max_cached_masks)
    : grammar_(std::move(grammar)), vocabulary_(std::move(vocabulary)), max_cached_masks_(max_cached_masks) {}

std::shared_ptr<const TokenBitmask> CompiledGrammar::Lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = masks_.find(key);
  if (it == masks_.end()) return nullptr;
  recency_.splice(recency_.begin(), recency_, it->second.position);
  ++lookups_;
  return it->second.mask;
}

std::shared_ptr<const TokenBitmask> CompiledGrammar::CachedNextTokenMask(const GrammarMatcher& matcher) {
  return Lookup(matcher.StateKey());
}

std::shared_ptr<const TokenBitmask> CompiledGrammar::NextTokenMask(GrammarMatcher& matcher) {
  std::string key = matcher.StateKey();
  if (auto cached = Lookup(key)) return cached;
  // Walked outside the lock: the matcher is the caller's own.
  auto mask = std::make_shared<TokenBitmask>(vocabulary_->vocab_size());
  matcher.FillNextTokenMask(*vocabulary_, mask.get());
  std::lock_guard<std::mutex> lock(mutex_);
  ++computed_;
  if (masks_.count(key) == 0) {
    recency_.push_front(key);
    masks_.emplace(std::move(key), Entry{mask, recency_.begin()});
    if (masks_.size() > max_cached_masks_) {
      masks_.erase(recency_.back());
      recency_.pop_back();
    }
  }
  return mask;
}

size_t CompiledGrammar::num_computed_masks() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return computed_;
}

size_t CompiledGrammar::num_cached_lookups() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lookups_;
}

}  // namespace pagoda::structured
