#include "pagoda/apps/bench_serve/dataset.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <random>

namespace pagoda::apps::bench_serve {
namespace {

class IdSampler {
 public:
  IdSampler(const std::vector<int32_t>& vocab, uint64_t seed) : vocab_(vocab), rng_(seed), pick_(0, vocab.size() - 1) {}
  void Append(std::vector<int32_t>& ids, int count) {
    for (int i = 0; i < count; ++i) ids.push_back(vocab_[pick_(rng_)]);
  }
  std::mt19937_64& rng() { return rng_; }

 private:
  const std::vector<int32_t>& vocab_;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<size_t> pick_;
};

StatusOr<BenchPrompt> ParseLine(const std::string& line, const std::string& where, int default_output_len) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&](const char* what) {
    return InvalidArgumentError(fmt::format("{}: {} (expected {{\"prompt\": \"...\", \"output_len\": N}})", where, what));
  };
  if (!j.is_object() || !j.contains("prompt")) return bad("no \"prompt\"");
  for (const auto& [key, value] : j.items()) {
    if (key != "prompt" && key != "output_len") return bad(fmt::format("unknown field \"{}\"", key).c_str());
  }
  BenchPrompt p;
  const nlohmann::json& prompt = j["prompt"];
  if (prompt.is_string()) {
    p.text = prompt.get<std::string>();
    if (p.text.empty()) return bad("empty \"prompt\"");
  } else if (prompt.is_array() && !prompt.empty()) {
    for (const nlohmann::json& id : prompt) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > INT32_MAX) {
        return bad("\"prompt\" must be text or an array of token ids");
      }
      p.token_ids.push_back(id.get<int32_t>());
    }
    p.prompt_len = static_cast<int64_t>(p.token_ids.size());
  } else {
    return bad("\"prompt\" must be text or an array of token ids");
  }
  p.output_len = default_output_len;
  if (j.contains("output_len")) {
    if (!j["output_len"].is_number_integer() || j["output_len"].get<int64_t>() < 1 ||
        j["output_len"].get<int64_t>() > INT32_MAX) {
      return bad("\"output_len\" must be a positive integer");
    }
    p.output_len = j["output_len"].get<int>();
  }
  return p;
}

}  // namespace

std::vector<int32_t> SafeRangeVocabulary() {
  std::vector<int32_t> vocab;
  for (int32_t id = 1000; id < 30000; ++id) vocab.push_back(id);
  return vocab;
}

StatusOr<std::vector<BenchPrompt>> RandomPrompts(const RandomDatasetOptions& options,
                                                 const std::vector<int32_t>& vocab, uint64_t seed) {
  if (options.range_ratio < 0 || options.range_ratio >= 1) {
    return InvalidArgumentError("--random-range-ratio must be in [0, 1)");
  }
  if (options.input_len < 1 || options.output_len < 1) {
    return InvalidArgumentError("--random-input-len and --random-output-len must be at least 1");
  }
  if (vocab.empty()) return InvalidArgumentError("no token ids to draw prompts from");
  const double r = options.range_ratio;
  const int input_low = std::max(1, static_cast<int>(std::floor(options.input_len * (1 - r))));
  const int input_high = static_cast<int>(std::ceil(options.input_len * (1 + r)));
  const int output_low = std::max(1, static_cast<int>(std::floor(options.output_len * (1 - r))));
  const int output_high = static_cast<int>(std::ceil(options.output_len * (1 + r)));
  IdSampler sampler(vocab, seed);
  std::uniform_int_distribution<int> input_len(input_low, input_high), output_len(output_low, output_high);
  std::vector<BenchPrompt> prompts(static_cast<size_t>(options.num_prompts));
  for (BenchPrompt& p : prompts) {
    const int len = input_len(sampler.rng());
    p.output_len = output_len(sampler.rng());
    sampler.Append(p.token_ids, len);
    p.prompt_len = len;
  }
  return prompts;
}

StatusOr<std::vector<BenchPrompt>> SharedPrefixPrompts(const SharedPrefixOptions& options,
                                                       const std::vector<int32_t>& vocab, uint64_t seed) {
  if (options.prefix_len < 0 || options.suffix_len < 0 || options.prefix_len + options.suffix_len < 1) {
    return InvalidArgumentError("--prefix-len and --suffix-len must be at least 0, and not both 0");
  }
  if (options.num_prefixes < 1) return InvalidArgumentError("--num-prefixes must be at least 1");
  if (options.output_len < 1) return InvalidArgumentError("--random-output-len must be at least 1");
  if (vocab.empty()) return InvalidArgumentError("no token ids to draw prompts from");
  IdSampler sampler(vocab, seed);
  std::vector<std::vector<int32_t>> prefixes(static_cast<size_t>(options.num_prefixes));
  for (auto& prefix : prefixes) sampler.Append(prefix, options.prefix_len);
  std::vector<BenchPrompt> prompts(static_cast<size_t>(options.num_prompts));
  for (size_t i = 0; i < prompts.size(); ++i) {
    BenchPrompt& p = prompts[i];
    p.token_ids = prefixes[i % prefixes.size()];
    sampler.Append(p.token_ids, options.suffix_len);
    p.prompt_len = static_cast<int64_t>(p.token_ids.size());
    p.output_len = options.output_len;
  }
  return prompts;
}

StatusOr<std::vector<BenchPrompt>> ReadPromptFile(const std::string& path, int num_prompts, int default_output_len) {
  std::ifstream in(path);
  if (!in) return NotFoundError(fmt::format("cannot read --dataset-path {}", path));
  std::vector<BenchPrompt> lines;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    PAGODA_ASSIGN_OR_RETURN(BenchPrompt p, ParseLine(line, fmt::format("{}:{}", path, n), default_output_len));
    lines.push_back(std::move(p));
  }
  if (lines.empty()) return InvalidArgumentError(fmt::format("--dataset-path {} has no prompts", path));
  std::vector<BenchPrompt> prompts;
  for (int i = 0; i < num_prompts; ++i) prompts.push_back(lines[static_cast<size_t>(i) % lines.size()]);
  return prompts;
}

}  // namespace pagoda::apps::bench_serve
