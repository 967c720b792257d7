#include "pagoda/engine/structured_output.h"

#include <algorithm>
#include <string>
#include <utility>

#include "pagoda/structured/grammar_text.h"
#include "pagoda/structured/grammar_builder.h"
#include "pagoda/structured/json_schema_to_grammar.h"
#include "pagoda/structured/regex_to_expr.h"

namespace pagoda {
namespace {

using structured::CompiledGrammar;
using structured::Grammar;

// The output is one of the strings, whole.
StatusOr<Grammar> ChoiceGrammar(const std::vector<std::string>& choices) {
  std::vector<structured::ExprPtr> literals;
  for (const std::string& choice : choices) literals.push_back(structured::Literal(choice));
  structured::GrammarBuilder builder;
  builder.Define("root", structured::Choice(std::move(literals)));
  return builder.Build("root");
}

// JSON output's layout: xgrammar's any_whitespace=False, which the issue
// and vLLM's disable_any_whitespace ask for: ", " and ": " and no other
// whitespace, so that a model cannot pad its output without end.
// A whitespace_pattern (vLLM's, from outlines) is instead what each gap
// between tokens must match, with bare separators.
StatusOr<structured::JsonSchemaOptions> JsonOptions(const std::optional<std::string>& whitespace_pattern) {
  structured::JsonSchemaOptions options;
  options.max_whitespace = 0;
  if (!whitespace_pattern) {
    // Appended to the defaults "," and ":" (assigning them whole makes GCC
    // 12 warn, falsely, -Wmaybe-uninitialized).
    options.item_separator += ' ';
    options.key_separator += ' ';
    return options;
  }
  StatusOr<structured::ExprPtr> whitespace = structured::RegexToExpr(*whitespace_pattern);
  if (!whitespace.ok()) {
    return InvalidArgumentError("structured_outputs.whitespace_pattern: " + whitespace.status().message());
  }
  options.whitespace = *whitespace;
  return options;
}

// The key part that says which layout a JSON constraint has.
std::string LayoutKey(const std::optional<std::string>& whitespace_pattern) {
  return whitespace_pattern ? "ws=" + std::to_string(whitespace_pattern->size()) + ":" + *whitespace_pattern : "";
}

StatusOr<Grammar> RegexGrammar(const std::string& pattern) {
  PAGODA_ASSIGN_OR_RETURN(structured::ExprPtr expr, structured::RegexToExpr(pattern));
  structured::GrammarBuilder builder;
  builder.Define("root", std::move(expr));
  return builder.Build("root");
}

// A front end's refusal, prefixed with the request field it came from.
StatusOr<Grammar> Named(const std::string& field, StatusOr<Grammar> grammar) {
  if (grammar.ok()) return grammar;
  return Status(grammar.status().code(), field + ": " + grammar.status().message());
}

// The constraint's grammar, and the key under which it is cached: the
// kind, then the text that decides the grammar.
struct ConstraintSource {
  std::string key;
  std::function<StatusOr<Grammar>()> build;
};

StatusOr<ConstraintSource> SourceOf(const StructuredOutputsParams& p) {
  if (p.choice) {
    std::string key = "choice";
    for (const std::string& choice : *p.choice) key += '\0' + std::to_string(choice.size()) + ':' + choice;
    return ConstraintSource{key, [choices = *p.choice] { return ChoiceGrammar(choices); }};
  }
  if (p.json) {
    return ConstraintSource{"json:" + LayoutKey(p.whitespace_pattern) + "\n" + *p.json,
                            [schema = *p.json, ws = p.whitespace_pattern]() -> StatusOr<Grammar> {
                              PAGODA_ASSIGN_OR_RETURN(const auto options, JsonOptions(ws));
                              return Named("structured_outputs.json", structured::JsonSchemaToGrammar(schema, options));
                            }};
  }
  if (p.json_object) {
    return ConstraintSource{"json_object:" + LayoutKey(p.whitespace_pattern),
                            [ws = p.whitespace_pattern]() -> StatusOr<Grammar> {
                              PAGODA_ASSIGN_OR_RETURN(const auto options, JsonOptions(ws));
                              return structured::AnyJsonGrammar(options);
                            }};
  }
  if (p.regex) {
    return ConstraintSource{"regex:" + *p.regex, [pattern = *p.regex] {
                              return Named("structured_outputs.regex", RegexGrammar(pattern));
                            }};
  }
  if (p.grammar) {
    return ConstraintSource{"grammar:" + *p.grammar, [text = *p.grammar] {
                              return Named("structured_outputs.grammar", structured::GrammarFromText(text));
                            }};
  }
  return InvalidArgumentError("structured_outputs: no constraint");
}

}  // namespace

StructuredOutputCompiler::StructuredOutputCompiler(const tokenizer::Tokenizer& tokenizer, int32_t vocab_size)
    : tokenizer_(tokenizer), vocab_size_(std::max(vocab_size, tokenizer.vocab_size())) {}

std::shared_ptr<const structured::TokenTrie> StructuredOutputCompiler::Vocabulary() const {
  std::call_once(vocabulary_once_, [this] {
    // Special tokens never come from the grammar: end-of-sequence is
    // allowed apart, in accepting states.
    std::vector<std::string> bytes(static_cast<size_t>(vocab_size_));
    for (int32_t id = 0; id < tokenizer_.vocab_size(); ++id) {
      if (tokenizer_.IsSpecial(id)) continue;
      if (auto piece = tokenizer_.TokenToPiece(id); piece.ok()) bytes[id] = std::string(*piece);
    }
    vocabulary_ = std::make_shared<const structured::TokenTrie>(bytes);
  });
  return vocabulary_;
}

StatusOr<std::shared_ptr<CompiledGrammar>> StructuredOutputCompiler::Compile(
    const StructuredOutputsParams& params) const {
  PAGODA_RETURN_IF_ERROR(params.Validate());
  PAGODA_ASSIGN_OR_RETURN(ConstraintSource source, SourceOf(params));
  return cache_.GetOrCompile(source.key, [&]() -> StatusOr<std::shared_ptr<CompiledGrammar>> {
    PAGODA_ASSIGN_OR_RETURN(Grammar grammar, source.build());
    return std::make_shared<CompiledGrammar>(std::make_shared<const Grammar>(std::move(grammar)), Vocabulary());
  });
}

GrammarConstraint::GrammarConstraint(std::shared_ptr<CompiledGrammar> grammar, std::span<const int32_t> eos_token_ids,
                                     const tokenizer::Tokenizer& tokenizer, std::string reasoning_end)
    : grammar_(std::move(grammar)),
      eos_token_ids_(eos_token_ids.begin(), eos_token_ids.end()),
      tokenizer_(tokenizer),
      matcher_(grammar_->NewMatcher()),
      reasoning_end_(std::move(reasoning_end)) {}

void GrammarConstraint::ComputeNextTokenBitmask() {
  if (!reasoning_end_.empty()) return bitmask_.clear();
  SetBitmask(*grammar_->NextTokenMask(matcher_));
}

bool GrammarConstraint::TryCachedNextTokenBitmask() {
  if (!reasoning_end_.empty()) {
    bitmask_.clear();
    return true;
  }
  const std::shared_ptr<const structured::TokenBitmask> mask = grammar_->CachedNextTokenMask(matcher_);
  if (mask == nullptr) return false;
  SetBitmask(*mask);
  return true;
}

void GrammarConstraint::SetBitmask(const structured::TokenBitmask& mask) {
  bitmask_ = mask.words();
  if (matcher_.IsAccepting()) {
    for (const int32_t id : eos_token_ids_) bitmask_[id >> 6] |= uint64_t{1} << (id & 63);
  }
}

bool GrammarConstraint::IsEos(int32_t token_id) const {
  return std::find(eos_token_ids_.begin(), eos_token_ids_.end(), token_id) != eos_token_ids_.end();
}

bool GrammarConstraint::FollowReasoning(int32_t token_id) {
  if (IsEos(token_id) || !tokenizer_.IsValidId(token_id)) return true;
  // The end marker may be a special token, which has no piece.
  const StatusOr<std::string_view> piece = tokenizer_.TokenToPiece(token_id);
  reasoning_tail_ += piece.ok() ? std::string(*piece) : tokenizer_.TokenText(token_id);
  const size_t end = reasoning_tail_.find(reasoning_end_);
  if (end == std::string::npos) {
    const size_t keep = reasoning_end_.size() - 1;
    if (reasoning_tail_.size() > keep) reasoning_tail_.erase(0, reasoning_tail_.size() - keep);
    return true;
  }
  const std::string answer = reasoning_tail_.substr(end + reasoning_end_.size());
  reasoning_end_.clear();
  reasoning_tail_.clear();
  return answer.empty() || matcher_.AcceptBytes(answer);
}

bool GrammarConstraint::Accept(int32_t token_id) {
  if (!reasoning_end_.empty()) return FollowReasoning(token_id);
  if (IsEos(token_id)) return matcher_.IsAccepting();
  if (!tokenizer_.IsValidId(token_id) || tokenizer_.IsSpecial(token_id)) return false;
  const StatusOr<std::string_view> piece = tokenizer_.TokenToPiece(token_id);
  return piece.ok() && !piece->empty() && matcher_.AcceptBytes(*piece);
}

}  // namespace pagoda
