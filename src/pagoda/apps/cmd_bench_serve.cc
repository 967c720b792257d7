// `pagoda bench serve`: an online serving benchmark like `vllm bench serve`,
// against any OpenAI-compatible server (pagoda serve, vLLM, llama-server).
// Streamed completions are sent at a Poisson (or gamma) rate under a
// concurrency cap, and TTFT, TPOT, ITL and E2EL are summarized with vLLM's
// definitions, labels and JSON keys. The client (bench_serve/) speaks only
// HTTP; this file adds the tokenizer that synthetic prompts draw ids from.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "pagoda/apps/bench_common.h"
#include "pagoda/apps/bench_serve/arrivals.h"
#include "pagoda/apps/bench_serve/client.h"
#include "pagoda/apps/bench_serve/dataset.h"
#include "pagoda/apps/bench_serve/metrics.h"
#include "pagoda/apps/bench_serve/model_list.h"
#include "pagoda/apps/bench_serve/report.h"
#include "pagoda/apps/bench_serve_args.h"
#include "pagoda/apps/commands.h"
#include "pagoda/engine/model_files.h"

namespace pagoda::apps {
namespace {

using bench_serve::BenchPrompt;

std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

struct Selection {
  std::vector<std::string> metrics;
  std::vector<double> percentiles;
};

StatusOr<Selection> ParseSelection(const ServeBenchArgs& args) {
  Selection s;
  s.metrics = SplitCommas(args.percentile_metrics);
  for (const std::string& m : s.metrics) {
    if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el") {
      return InvalidArgumentError(fmt::format("--percentile-metrics: unknown metric '{}' (ttft, tpot, itl, e2el)", m));
    }
  }
  for (const std::string& p : SplitCommas(args.metric_percentiles)) {
    char* end = nullptr;
    const double value = std::strtod(p.c_str(), &end);
    if (end == p.c_str() || *end != '\0' || !(value >= 0 && value <= 100)) {
      return InvalidArgumentError(fmt::format("--metric-percentiles: '{}' is not a percentile in [0, 100]", p));
    }
    s.percentiles.push_back(value);
  }
  return s;
}

Status CheckNumbers(const ServeBenchArgs& args) {
  if (args.num_prompts < 1) return InvalidArgumentError("--num-prompts must be at least 1");
  if (!(args.request_rate > 0)) return InvalidArgumentError("--request-rate must be above 0 (inf: all at once)");
  if (!(args.burstiness > 0) || std::isinf(args.burstiness)) return InvalidArgumentError("--burstiness must be above 0");
  if (args.max_concurrency && *args.max_concurrency < 1) return InvalidArgumentError("--max-concurrency must be at least 1");
  if (!(args.temperature >= 0)) return InvalidArgumentError("--temperature must be at least 0");
  if (args.dataset == "file" && args.dataset_path.empty()) return InvalidArgumentError("--dataset file needs --dataset-path");
  if (args.dataset != "file" && !args.dataset_path.empty()) {
    return InvalidArgumentError("--dataset-path needs --dataset file");
  }
  if (!args.output_json.empty() && args.save_result) {
    return InvalidArgumentError("--output-json and --save-result both name the result file: give one");
  }
  if (!args.save_result && (!args.result_filename.empty() || !args.result_dir.empty())) {
    return InvalidArgumentError("--result-filename and --result-dir need --save-result");
  }
  if (args.save_detailed && !args.save_result && args.output_json.empty()) {
    return InvalidArgumentError("--save-detailed needs --output-json or --save-result");
  }
  return Status::Ok();
}

// The ids synthetic prompts are drawn from, and a line saying where they come from.
StatusOr<std::vector<int32_t>> Vocabulary(const ServeBenchArgs& args) {
  if (args.tokenizer.empty()) {
    std::printf("Prompt token ids drawn from [1000, 30000) (no --tokenizer given)\n");
    return bench_serve::SafeRangeVocabulary();
  }
  PAGODA_ASSIGN_OR_RETURN(LoadedModel m, LoadModelFiles(args.tokenizer, /*with_weights=*/false));
  std::printf("Prompt token ids drawn from the %d non-special tokens of %s\n",
              static_cast<int>(PromptVocabulary(*m.tokenizer).size()), m.path.c_str());
  return PromptVocabulary(*m.tokenizer);
}

StatusOr<std::vector<BenchPrompt>> MakePrompts(const ServeBenchArgs& args) {
  const uint64_t seed = static_cast<uint64_t>(args.seed);
  if (args.dataset == "file") return bench_serve::ReadPromptFile(args.dataset_path, args.num_prompts, args.random_output_len);
  PAGODA_ASSIGN_OR_RETURN(std::vector<int32_t> vocab, Vocabulary(args));
  if (args.dataset == "shared-prefix") {
    return bench_serve::SharedPrefixPrompts({.num_prompts = args.num_prompts,
                                             .prefix_len = args.prefix_len,
                                             .suffix_len = args.suffix_len,
                                             .num_prefixes = args.num_prefixes,
                                             .output_len = args.random_output_len},
                                            vocab, seed);
  }
  return bench_serve::RandomPrompts({.num_prompts = args.num_prompts,
                                     .input_len = args.random_input_len,
                                     .output_len = args.random_output_len,
                                     .range_ratio = args.random_range_ratio},
                                    vocab, seed);
}

std::string Timestamp() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

// A double as Python's str() writes a float: "inf", "2.0", "0.5", as vLLM prints its rates.
std::string PythonFloat(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// --output-json, or vLLM's --save-result file name.
std::string ResultPath(const ServeBenchArgs& args, const std::string& model_id, const std::string& date) {
  if (!args.output_json.empty()) return args.output_json;
  std::string name = args.result_filename;
  if (name.empty()) {
    const std::string concurrency = args.max_concurrency ? fmt::format("-concurrency{}", *args.max_concurrency) : "";
    name = fmt::format("{}-{}qps{}-{}-{}.json", args.backend, PythonFloat(args.request_rate), concurrency,
                       std::filesystem::path(model_id).filename().string(), date);
  }
  return args.result_dir.empty() ? name : (std::filesystem::path(args.result_dir) / name).string();
}

Status WriteResult(const ServeBenchArgs& args, const bench_serve::BenchmarkMetrics& metrics,
                   const bench_serve::ReportSettings& settings, const bench_serve::RunResult& run,
                   const std::string& model_id) {
  const std::string date = Timestamp();
  nlohmann::json j = bench_serve::ResultJson(metrics, settings, run.requests, args.save_detailed);
  j["date"] = date;
  j["backend"] = args.backend;
  j["model_id"] = model_id;
  j["tokenizer_id"] = args.tokenizer.empty() ? nlohmann::json() : nlohmann::json(args.tokenizer);
  j["num_prompts"] = args.num_prompts;
  if (!args.result_dir.empty()) std::filesystem::create_directories(args.result_dir);
  return WriteJsonFile(ResultPath(args, model_id, date), j);
}

Status ServeBench(const ServeBenchArgs& args) {
  PAGODA_RETURN_IF_ERROR(CheckNumbers(args));
  PAGODA_ASSIGN_OR_RETURN(Selection selection, ParseSelection(args));
  const std::string base_url = args.base_url.empty() ? fmt::format("http://{}:{}", args.host, args.port) : args.base_url;
  const char* key = std::getenv("OPENAI_API_KEY");
  bench_serve::ClientOptions client{.url = base_url + args.endpoint,
                                    .model = args.served_model_name.empty() ? args.model : args.served_model_name,
                                    .temperature = args.temperature,
                                    .ignore_eos = args.ignore_eos,
                                    .max_concurrency = args.max_concurrency.value_or(0),
                                    .api_key = key != nullptr ? key : ""};
  std::string model_id = args.model;
  if (model_id.empty()) {
    PAGODA_ASSIGN_OR_RETURN(model_id, bench_serve::FirstServedModel(base_url, client.api_key));
    if (client.model.empty()) client.model = model_id;
  }
  PAGODA_ASSIGN_OR_RETURN(std::vector<BenchPrompt> prompts, MakePrompts(args));

  // vLLM's initial test run: one request alone, so a wrong URL, model or
  // prompt stops here with the server's message instead of N failures.
  std::printf("Starting initial single prompt test run...\n");
  const bench_serve::RunResult test = bench_serve::RunRequests(client, {prompts.front()}, {0.0});
  if (!test.requests.front().success) {
    return UnavailableError(fmt::format("initial test run failed ({}): {}", client.url, test.requests.front().error));
  }
  std::printf("Initial test run completed. Starting main benchmark run...\n");
  std::printf("Traffic request rate: %s\n", PythonFloat(args.request_rate).c_str());
  std::printf("Burstiness factor: %s (%s)\n", PythonFloat(args.burstiness).c_str(),
              args.burstiness == 1.0 ? "Poisson process" : "Gamma distribution");
  if (args.max_concurrency) std::printf("Maximum request concurrency: %d\n", *args.max_concurrency);
  std::fflush(stdout);

  const std::vector<double> arrivals = bench_serve::ArrivalOffsets(
      args.num_prompts, args.request_rate, args.burstiness, static_cast<uint64_t>(args.seed) ^ 0x9e3779b97f4a7c15ULL);
  const bench_serve::RunResult run = bench_serve::RunRequests(client, prompts, arrivals);
  const bench_serve::BenchmarkMetrics metrics = bench_serve::ComputeMetrics(run.requests, run.duration, selection.percentiles);
  const bench_serve::ReportSettings settings{args.max_concurrency, args.request_rate, args.burstiness, selection.metrics};
  std::fputs(bench_serve::FormatReport(metrics, settings).c_str(), stdout);
  if (metrics.failed > 0) std::printf("First error: %s\n", metrics.first_error.c_str());
  if (args.output_json.empty() && !args.save_result) return Status::Ok();
  return WriteResult(args, metrics, settings, run, model_id);
}

}  // namespace

void RegisterBenchServe(CLI::App& bench, Command& command) {
  auto args = std::make_shared<ServeBenchArgs>();
  auto refused = std::make_shared<std::vector<CLI::Option*>>();
  auto* sub = bench.add_subcommand(
      "serve",
      "Online serving benchmark of an OpenAI-compatible server, as vllm bench serve: streamed completions at "
      "--request-rate under --max-concurrency; TTFT, TPOT, ITL, E2EL and throughput");
  AddServeBenchOptions(*sub, *args, *refused);
  sub->callback([&command, args, refused] {
    const Status supported = CheckSupported(*args, *refused);
    command = [args, supported] { return supported.ok() ? ServeBench(*args) : supported; };
  });
}

}  // namespace pagoda::apps
