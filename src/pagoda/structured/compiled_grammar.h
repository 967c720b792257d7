// A grammar ready to constrain generation over one vocabulary: the grammar,
// the vocabulary's trie, and the token mask of every parse state met so far.
// Requests with the same constraint share one, so a state any of them has
// reached before costs a lookup, not a walk of the vocabulary: in JSON, a
// string's or a number's inside is one state however long it runs.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "pagoda/structured/grammar.h"
#include "pagoda/structured/grammar_matcher.h"
#include "pagoda/structured/token_trie.h"

namespace pagoda::structured {

class CompiledGrammar {
 public:
  // Holds at most `max_cached_masks` masks (least recently used dropped).
  CompiledGrammar(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const TokenTrie> vocabulary,
                  size_t max_cached_masks = 4096);

  const std::shared_ptr<const Grammar>& grammar() const { return grammar_; }
  const TokenTrie& vocabulary() const { return *vocabulary_; }
  GrammarMatcher NewMatcher() const { return GrammarMatcher(grammar_); }

  // The tokens `matcher` (of this grammar) accepts next, end-of-sequence
  // tokens aside. Thread-safe.
  std::shared_ptr<const TokenBitmask> NextTokenMask(GrammarMatcher& matcher);
  // The same if it is cached, else nullptr: a lookup that never walks the
  // vocabulary, cheap enough to make before deciding to walk elsewhere.
  std::shared_ptr<const TokenBitmask> CachedNextTokenMask(const GrammarMatcher& matcher);

  // Masks computed by walking the vocabulary, and those found cached.
  size_t num_computed_masks() const;
  size_t num_cached_lookups() const;

 private:
  std::shared_ptr<const TokenBitmask> Lookup(const std::string& key);

  using Lru = std::list<std::string>;
  struct Entry {
    std::shared_ptr<const TokenBitmask> mask;
    Lru::iterator position;
  };

  std::shared_ptr<const Grammar> grammar_;
  std::shared_ptr<const TokenTrie> vocabulary_;
  size_t max_cached_masks_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> masks_;
  Lru recency_;  // most recent first
  size_t computed_ = 0;
  size_t lookups_ = 0;
};

}  // namespace pagoda::structured
