// Structured-output costs on the real model's vocabulary, through the
// engine's own classes (StructuredOutputCompiler, GrammarConstraint):
//
//   - the vocabulary's token trie (built once per model);
//   - compiling a 100-property JSON schema, and its first token mask (what a
//     request with a schema the server has not seen waits for);
//   - the token mask per generated token, replaying outputs the model
//     produced under their schemas (bench/structured_output_bench.py writes
//     them), three ways:
//       first pass  one compiler for all documents, in order, as the engine
//                   meets them: a state seen before (in this document or an
//                   earlier one of the same schema) is a cache lookup;
//       warm        the same documents again: every state is cached;
//       uncached    GrammarMatcher::FillNextTokenMask at every token (the
//                   cost of each cache miss).
//
// Usage: pagoda_bench_grammar_mask [--model GGUF] [--replay JSONL] [--json OUT]
//   --model   default: $PAGODA_MODEL, else the default model
//   --replay  one {"schema": "<schema text>", "token_ids": [...]} per line
//   --json    also write the numbers as JSON
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/engine/model_files.h"
#include "pagoda/engine/structured_output.h"
#include "pagoda/request/structured_outputs_params.h"
#include "pagoda/structured/compiled_grammar.h"
#include "pagoda/structured/grammar_matcher.h"
#include "pagoda/structured/token_trie.h"

namespace pagoda {
namespace {

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

struct Summary {
  size_t count = 0;
  double mean = 0, p50 = 0, p99 = 0, max = 0;
};

Summary Summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  const auto at = [&](double q) { return samples[std::min(samples.size() - 1, static_cast<size_t>(q * samples.size()))]; };
  s.p50 = at(0.50);
  s.p99 = at(0.99);
  s.max = samples.back();
  return s;
}

nlohmann::json ToJson(const Summary& s) {
  return {{"count", s.count}, {"mean_us", s.mean}, {"p50_us", s.p50}, {"p99_us", s.p99}, {"max_us", s.max}};
}

void Print(const char* what, const Summary& s) {
  std::printf("%-34s n=%-7zu mean %9.1f us  p50 %9.1f us  p99 %9.1f us  max %9.1f us\n", what, s.count, s.mean, s.p50,
              s.p99, s.max);
}

// 100 properties of the kinds API schemas hold: strings with and without
// bounds, bounded integers, numbers, booleans, formats, enums, arrays,
// nullable values and small nested objects; two in three required.
std::string HundredPropertySchema(int run) {
  static const char* kKinds[] = {
      R"({"type": "string", "maxLength": 40})",
      R"({"type": "integer", "minimum": 0, "maximum": 10000})",
      R"({"type": "number"})",
      R"({"type": "boolean"})",
      R"({"type": "string", "format": "date-time"})",
      R"({"enum": ["pending", "active", "suspended", "closed"]})",
      R"({"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 5})",
      R"({"type": ["string", "null"]})",
      R"({"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"]})",
      R"({"type": "string", "format": "uuid"})",
  };
  // The title (an annotation) makes each run's text, and so its cache key, new.
  std::string schema = R"({"title": "run )" + std::to_string(run) + R"(", "type": "object", "properties": {)";
  std::string required;
  for (int i = 0; i < 100; ++i) {
    const std::string name = "property_" + std::to_string(i);
    schema += (i ? ", \"" : "\"") + name + "\": " + kKinds[i % 10];
    if (i % 3 != 2) required += (required.empty() ? "\"" : ", \"") + name + "\"";
  }
  return schema + "}, \"required\": [" + required + "]}";
}

StructuredOutputsParams JsonParams(const std::string& schema) {
  StructuredOutputsParams params;
  params.json = schema;
  return params;
}

struct Document {
  std::string schema;
  std::vector<int32_t> token_ids;
};

std::vector<Document> ReadReplay(const std::string& path) {
  std::vector<Document> docs;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line);
    docs.push_back({j.at("schema").get<std::string>(), j.at("token_ids").get<std::vector<int32_t>>()});
  }
  return docs;
}

class Bench {
 public:
  explicit Bench(const LoadedModel& model)
      : tokenizer_(*model.tokenizer), eos_(model.tokenizer->eos_id() ? std::vector<int32_t>{*model.tokenizer->eos_id()}
                                                                     : std::vector<int32_t>{}) {}

  void Compile(nlohmann::json& out) {
    // The first Compile of a compiler builds the vocabulary's trie.
    StructuredOutputCompiler compiler(tokenizer_, tokenizer_.vocab_size());
    StructuredOutputsParams choice;
    choice.choice = std::vector<std::string>{"yes", "no"};
    auto start = Clock::now();
    if (!compiler.Compile(choice).ok()) std::abort();
    const double trie_ms = MicrosSince(start) / 1000;
    std::printf("%-34s %9.1f ms (vocabulary of %d tokens)\n", "token trie + first compile", trie_ms,
                tokenizer_.vocab_size());
    std::vector<double> compile_us, first_mask_us;
    for (int run = 0; run < 30; ++run) {
      start = Clock::now();
      auto grammar = compiler.Compile(JsonParams(HundredPropertySchema(run)));
      if (!grammar.ok()) {
        std::fprintf(stderr, "%s\n", grammar.status().ToString().c_str());
        std::exit(1);
      }
      compile_us.push_back(MicrosSince(start));
      GrammarConstraint constraint(*grammar, eos_, tokenizer_);
      start = Clock::now();
      constraint.ComputeNextTokenBitmask();
      first_mask_us.push_back(MicrosSince(start));
    }
    std::vector<double> total(compile_us.size());
    for (size_t i = 0; i < total.size(); ++i) total[i] = compile_us[i] + first_mask_us[i];
    Print("100-property schema: compile", Summarize(compile_us));
    Print("100-property schema: first mask", Summarize(first_mask_us));
    Print("100-property schema: both", Summarize(total));
    out["trie_ms"] = trie_ms;
    out["compile_100_properties"] = ToJson(Summarize(compile_us));
    out["first_mask_100_properties"] = ToJson(Summarize(first_mask_us));
    out["compile_and_first_mask_100_properties"] = ToJson(Summarize(total));
  }

  // Each document through GrammarConstraint, as the engine steps it; the
  // masks of one compiler are shared by every document of its schema.
  Summary ReplayEngine(const StructuredOutputCompiler& compiler, const std::vector<Document>& docs, size_t* masks) {
    std::vector<double> samples;
    for (const Document& doc : docs) {
      auto grammar = compiler.Compile(JsonParams(doc.schema));
      if (!grammar.ok()) std::abort();
      GrammarConstraint constraint(*grammar, eos_, tokenizer_);
      for (const int32_t id : doc.token_ids) {
        const auto start = Clock::now();
        constraint.ComputeNextTokenBitmask();
        samples.push_back(MicrosSince(start));
        const auto mask = constraint.bitmask();
        if (!((mask[id >> 6] >> (id & 63)) & 1)) ++mismatches_;
        if (std::find(eos_.begin(), eos_.end(), id) != eos_.end() || !constraint.Accept(id)) break;
      }
      *masks += (*grammar)->num_computed_masks();
    }
    return Summarize(samples);
  }

  // Each token's mask walked from the trie, no cache.
  Summary ReplayUncached(const StructuredOutputCompiler& compiler, const std::vector<Document>& docs) {
    std::vector<double> samples;
    for (const Document& doc : docs) {
      auto grammar = compiler.Compile(JsonParams(doc.schema));
      if (!grammar.ok()) std::abort();
      structured::GrammarMatcher matcher = (*grammar)->NewMatcher();
      structured::TokenBitmask mask((*grammar)->vocabulary().vocab_size());
      for (const int32_t id : doc.token_ids) {
        const auto start = Clock::now();
        mask.Clear();
        matcher.FillNextTokenMask((*grammar)->vocabulary(), &mask);
        samples.push_back(MicrosSince(start));
        if (std::find(eos_.begin(), eos_.end(), id) != eos_.end()) break;
        const auto piece = tokenizer_.TokenToPiece(id);
        if (!piece.ok() || !matcher.AcceptBytes(*piece)) break;
      }
    }
    return Summarize(samples);
  }

  void Replay(const std::vector<Document>& docs, nlohmann::json& out) {
    size_t tokens = 0;
    for (const Document& doc : docs) tokens += doc.token_ids.size();
    std::printf("replay: %zu documents, %zu tokens\n", docs.size(), tokens);
    StructuredOutputCompiler compiler(tokenizer_, tokenizer_.vocab_size());
    size_t computed_first = 0, computed_warm = 0;
    const Summary first = ReplayEngine(compiler, docs, &computed_first);
    const Summary warm = ReplayEngine(compiler, docs, &computed_warm);
    const Summary uncached = ReplayUncached(compiler, docs);
    Print("mask per token, first pass", first);
    Print("mask per token, warm (all cached)", warm);
    Print("mask per token, uncached", uncached);
    std::printf("tokens not in their mask: %zu (0 unless the replay came from another grammar)\n", mismatches_);
    out["replay"] = {{"documents", docs.size()},
                     {"tokens", tokens},
                     {"first_pass", ToJson(first)},
                     {"warm", ToJson(warm)},
                     {"uncached", ToJson(uncached)},
                     {"tokens_outside_mask", mismatches_}};
  }

 private:
  const tokenizer::Tokenizer& tokenizer_;
  std::vector<int32_t> eos_;
  size_t mismatches_ = 0;
};

int Main(int argc, char** argv) {
  std::string model_path, replay_path, json_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--model") {
      model_path = argv[i + 1];
    } else if (flag == "--replay") {
      replay_path = argv[i + 1];
    } else if (flag == "--json") {
      json_path = argv[i + 1];
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  auto model = LoadModelFiles(model_path, /*with_weights=*/false);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }
  nlohmann::json out;
  Bench bench(*model);
  bench.Compile(out);
  if (!replay_path.empty()) bench.Replay(ReadReplay(replay_path), out);
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace pagoda

int main(int argc, char** argv) { return pagoda::Main(argc, argv); }
