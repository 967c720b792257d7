#include "pagoda/structured/grammar_cache.h"

namespace pagoda::structured {

StatusOr<std::shared_ptr<CompiledGrammar>> GrammarCache::GetOrCompile(
    const std::string& key, const std::function<StatusOr<std::shared_ptr<CompiledGrammar>>()>& compile) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      recency_.splice(recency_.begin(), recency_, it->second.position);
      return it->second.grammar;
    }
  }
  StatusOr<std::shared_ptr<CompiledGrammar>> compiled = compile();
  if (!compiled.ok()) return compiled;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = entries_.find(key); it != entries_.end()) return it->second.grammar;  // compiled meanwhile
  recency_.push_front(key);
  entries_.emplace(key, Entry{*compiled, recency_.begin()});
  if (entries_.size() > capacity_) {
    entries_.erase(recency_.back());
    recency_.pop_back();
  }
  return compiled;
}

size_t GrammarCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace pagoda::structured
