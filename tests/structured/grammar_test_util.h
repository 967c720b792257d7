// Builds grammars from expressions and runs whole strings through them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pagoda/structured/grammar_builder.h"
#include "pagoda/structured/grammar_matcher.h"

namespace pagoda::structured::testing {

inline std::shared_ptr<const Grammar> BuildOrDie(const GrammarBuilder& builder, const std::string& root = "root") {
  auto grammar = builder.Build(root);
  EXPECT_TRUE(grammar.ok()) << grammar.status().ToString();
  return grammar.ok() ? std::make_shared<const Grammar>(std::move(*grammar)) : nullptr;
}

// `text` is a whole sentence of the grammar.
inline bool Accepts(const std::shared_ptr<const Grammar>& grammar, const std::string& text) {
  GrammarMatcher matcher(grammar);
  return matcher.AcceptBytes(text) && matcher.IsAccepting();
}

// `text` can begin a sentence.
inline bool AcceptsPrefix(const std::shared_ptr<const Grammar>& grammar, const std::string& text) {
  GrammarMatcher matcher(grammar);
  return matcher.AcceptBytes(text);
}

}  // namespace pagoda::structured::testing
