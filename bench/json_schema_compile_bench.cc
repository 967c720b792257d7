// JSON Schema compile times: a 100-property object schema (mixed types,
// formats, enums, a nested object and arrays) into a Grammar, and into a
// CompiledGrammar over a synthetic 50,000-token vocabulary, up to its first
// token mask (what a request with a new schema waits for; the vocabulary's
// trie is built once per model and shared). Target: under 50 ms.
//
//   SchemaToGrammar/100          JsonSchemaToGrammar alone
//   VocabularyTrie               TokenTrie over the 50k tokens (once per model)
//   CompileToFirstMask/100       grammar + CompiledGrammar + the first mask
//   MaskAlongDocument            one uncached mask per byte of a valid document
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pagoda/structured/compiled_grammar.h"
#include "pagoda/structured/json_schema_to_grammar.h"
#include "pagoda/structured/token_trie.h"

namespace pagoda::structured {
namespace {

std::string ObjectSchema(int properties) {
  static const char* kTypes[] = {
      R"({"type": "string"})",
      R"({"type": "integer", "minimum": 0, "maximum": 1000})",
      R"({"type": "number"})",
      R"({"type": "boolean"})",
      R"({"type": "string", "format": "date-time"})",
      R"({"enum": ["red", "green", "blue"]})",
      R"({"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 8})",
      R"({"anyOf": [{"type": "string"}, {"type": "null"}]})",
      R"({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]})",
      R"({"type": "string", "format": "uuid"})",
  };
  std::string schema = R"({"type": "object", "properties": {)";
  std::string required;
  for (int i = 0; i < properties; ++i) {
    const std::string name = "field_" + std::to_string(i);
    schema += (i ? ", \"" : "\"") + name + "\": " + kTypes[i % 10];
    if (i % 3 != 2) required += (required.empty() ? "\"" : ", \"") + name + "\"";
  }
  return schema + "}, \"required\": [" + required + "]}";
}

// Every byte, then pieces of JSON, English-like words and UTF-8, as a BPE
// vocabulary of that size would hold them.
std::vector<std::string> SyntheticVocabulary(size_t size) {
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) vocab.push_back(std::string(1, static_cast<char>(b)));
  const std::vector<std::string> pieces = {"\"", "\":", "\": ", ", ", ",", "{", "}", "[", "]", "\n", "  ", "    ",
                                           "null", "true", "false", "0", "1", "2", "5", "9", "-", ".", "e", "field",
                                           "_", "name", "id", "ing", "er", "the", " ", "a", "s", "t", "\xC3\xA9",
                                           "\xE4\xB8\xAD", "\\", "\\n", "T", ":", "Z", "20", "red", "blue"};
  std::mt19937 rng(1);
  while (vocab.size() < size) {
    std::string token;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) token += pieces[rng() % pieces.size()];
    vocab.push_back(token);
  }
  return vocab;
}

const std::shared_ptr<const TokenTrie>& Trie() {
  static const auto trie = std::make_shared<const TokenTrie>(SyntheticVocabulary(50000));
  return trie;
}

void SchemaToGrammar(benchmark::State& state) {
  const std::string schema = ObjectSchema(static_cast<int>(state.range(0)));
  size_t symbols = 0;
  for (auto _ : state) {
    auto grammar = JsonSchemaToGrammar(schema);
    if (!grammar.ok()) state.SkipWithError(grammar.status().ToString().c_str());
    symbols = grammar.ok() ? grammar->NumSymbols() : 0;
    benchmark::DoNotOptimize(grammar);
  }
  state.counters["symbols"] = static_cast<double>(symbols);
  state.counters["schema_bytes"] = static_cast<double>(schema.size());
}
BENCHMARK(SchemaToGrammar)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void VocabularyTrie(benchmark::State& state) {
  const auto vocab = SyntheticVocabulary(50000);
  for (auto _ : state) benchmark::DoNotOptimize(TokenTrie(vocab));
}
BENCHMARK(VocabularyTrie)->Unit(benchmark::kMillisecond);

void CompileToFirstMask(benchmark::State& state) {
  const std::string schema = ObjectSchema(static_cast<int>(state.range(0)));
  const auto& trie = Trie();
  for (auto _ : state) {
    auto grammar = JsonSchemaToGrammar(schema);
    if (!grammar.ok()) state.SkipWithError(grammar.status().ToString().c_str());
    CompiledGrammar compiled(std::make_shared<const Grammar>(std::move(*grammar)), trie);
    GrammarMatcher matcher = compiled.NewMatcher();
    benchmark::DoNotOptimize(compiled.NextTokenMask(matcher));
  }
}
BENCHMARK(CompileToFirstMask)->Arg(100)->Unit(benchmark::kMillisecond);

void MaskAlongDocument(benchmark::State& state) {
  auto grammar = JsonSchemaToGrammar(ObjectSchema(10));
  const auto shared = std::make_shared<const Grammar>(std::move(*grammar));
  const std::string document =
      R"({"field_0": "abc", "field_1": 42, "field_2": 1.5, "field_3": true, "field_4": "2024-02-29T12:00:00Z",)"
      R"( "field_5": "red", "field_6": ["x", "y"], "field_7": null, "field_8": {"x": 1, "y": 2},)"
      R"( "field_9": "123e4567-e89b-12d3-a456-426614174000"})";
  TokenBitmask mask(Trie()->vocab_size());
  for (auto _ : state) {
    GrammarMatcher matcher(shared);
    for (const char c : document) {
      matcher.FillNextTokenMask(*Trie(), &mask);
      matcher.AcceptByte(static_cast<uint8_t>(c));
    }
  }
  state.counters["masks"] = static_cast<double>(document.size());
  state.counters["us_per_mask"] = benchmark::Counter(static_cast<double>(document.size()),
                                                     benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}
BENCHMARK(MaskAlongDocument)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pagoda::structured

BENCHMARK_MAIN();
