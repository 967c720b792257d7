#include "pagoda/structured/json_grammar_primitives.h"

#include <utility>

#include "pagoda/structured/json_string_chars.h"

namespace pagoda::structured {
namespace {

ExprPtr DigitRun(int min) { return Repeat(Bytes(ByteSet::Range('0', '9')), min, Expr::kUnbounded); }

// -?(0|[1-9][0-9]*)
ExprPtr IntegerPart() {
  return Sequence({Optional(Literal("-")),
                   Choice({Literal("0"), Sequence({Bytes(ByteSet::Range('1', '9')), DigitRun(0)})})});
}

}  // namespace

JsonGrammarPrimitives::JsonGrammarPrimitives(GrammarBuilder* builder, JsonLayout layout)
    : builder_(builder), layout_(std::move(layout)) {}

template <typename Make>
ExprPtr JsonGrammarPrimitives::Shared(const std::string& name, Make make) {
  if (!builder_->IsDefined(name) && defining_.insert(name).second) {  // `make` may refer back to `name`
    builder_->Define(name, make());
  }
  return RuleRef(name);
}

ExprPtr JsonGrammarPrimitives::Ws() {
  if (layout_.whitespace) return Shared("json_ws", [this] { return layout_.whitespace; });
  if (layout_.max_whitespace == 0) return Empty();
  return Shared("json_ws", [this] {
    ByteSet blanks;
    for (const char c : {' ', '\n', '\t'}) blanks.Add(static_cast<uint8_t>(c));
    return Repeat(Bytes(blanks), 0, layout_.max_whitespace);
  });
}

ExprPtr JsonGrammarPrimitives::StringChar() { return Shared("json_char", [] { return AnyJsonStringChar(); }); }

ExprPtr JsonGrammarPrimitives::StringChars() {
  return Shared("json_chars", [this] { return Star(StringChar()); });
}

ExprPtr JsonGrammarPrimitives::String() {
  return Shared("json_string", [this] { return Sequence({Literal("\""), StringChars(), Literal("\"")}); });
}

ExprPtr JsonGrammarPrimitives::Integer() { return Shared("json_integer", [] { return IntegerPart(); }); }

ExprPtr JsonGrammarPrimitives::Number() {
  return Shared("json_number", [] {
    ByteSet e, sign;
    e.Add('e');
    e.Add('E');
    sign.Add('+');
    sign.Add('-');
    return Sequence({IntegerPart(), Optional(Sequence({Literal("."), DigitRun(1)})),
                     Optional(Sequence({Bytes(e), Optional(Bytes(sign)), DigitRun(1)}))});
  });
}

ExprPtr JsonGrammarPrimitives::Boolean() { return Choice({Literal("true"), Literal("false")}); }

ExprPtr JsonGrammarPrimitives::Null() { return Literal("null"); }

ExprPtr JsonGrammarPrimitives::AnyValue() {
  return Shared("json_value", [this] {
    return Choice({AnyObject(), AnyArray(), String(), Number(), Boolean(), Null()});
  });
}

ExprPtr JsonGrammarPrimitives::AnyObject() {
  return Shared("json_object", [this] {
    const ExprPtr member = Member(String(), AnyValue());
    return Sequence({ObjectOpen(), Optional(Sequence({member, Star(Sequence({Comma(), member}))})), Literal("}")});
  });
}

ExprPtr JsonGrammarPrimitives::AnyArray() {
  return Shared("json_array", [this] {
    const ExprPtr element = Element(AnyValue());
    return Sequence({ArrayOpen(), Optional(Sequence({element, Star(Sequence({Comma(), element}))})), Literal("]")});
  });
}

ExprPtr JsonGrammarPrimitives::ObjectOpen() { return Sequence({Literal("{"), Ws()}); }

ExprPtr JsonGrammarPrimitives::Member(ExprPtr key, ExprPtr value) {
  return Sequence({std::move(key), Ws(), Literal(layout_.key_separator), Ws(), std::move(value), Ws()});
}

ExprPtr JsonGrammarPrimitives::ArrayOpen() { return Sequence({Literal("["), Ws()}); }

ExprPtr JsonGrammarPrimitives::Element(ExprPtr value) { return Sequence({std::move(value), Ws()}); }

ExprPtr JsonGrammarPrimitives::Comma() { return Sequence({Literal(layout_.item_separator), Ws()}); }

ExprPtr JsonGrammarPrimitives::CommaList(const std::vector<ExprPtr>& items) {
  std::vector<ExprPtr> sequence;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) sequence.push_back(Comma());
    sequence.push_back(items[i]);
  }
  return Sequence(std::move(sequence));
}

}  // namespace pagoda::structured
