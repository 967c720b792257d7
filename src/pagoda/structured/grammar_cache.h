// Compiled grammars by the canonical text of their constraint, so that a
// repeated schema or regex costs nothing to compile and shares its masks.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "pagoda/base/status.h"
#include "pagoda/structured/compiled_grammar.h"

namespace pagoda::structured {

class GrammarCache {
 public:
  explicit GrammarCache(size_t capacity = 256) : capacity_(capacity) {}

  // The grammar cached under `key`, else `compile()`'s, cached when it
  // succeeds (errors are not: they are cheap to find again). Thread-safe;
  // compilation runs outside the lock.
  StatusOr<std::shared_ptr<CompiledGrammar>> GetOrCompile(
      const std::string& key, const std::function<StatusOr<std::shared_ptr<CompiledGrammar>>()>& compile);

  size_t size() const;

 private:
  using Lru = std::list<std::string>;
  struct Entry {
    std::shared_ptr<CompiledGrammar> grammar;
    Lru::iterator position;
  };

  size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  Lru recency_;  // most recent first
};

}  // namespace pagoda::structured
