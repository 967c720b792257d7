// `pagoda serve`: the OpenAI-compatible server, with vLLM's flag names and
// defaults. The HTTP server starts first, answering 503 while the model
// loads; SIGINT or SIGTERM stops it gracefully: new requests get 503,
// in-flight ones a grace period to finish, the rest end as aborted with
// complete responses, exit 0.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "pagoda/apps/commands.h"
#include "pagoda/apps/engine_args.h"
#include "pagoda/engine/engine.h"
#include "pagoda/metrics/engine_metrics.h"
#include "pagoda/metrics/stats_log_line.h"
#include "pagoda/server/openai_server.h"

namespace pagoda::apps {
namespace {

struct ServeArgs {
  std::string model;
  std::string host = "127.0.0.1";
  int port = 8000;
  std::vector<std::string> served_model_names;
  std::string api_key;
  EngineArgs engine;
  std::string chat_template;
  std::string generation_config = "auto";
  std::optional<int64_t> seed;
  int max_logprobs = 20;
  double shutdown_timeout = 10;
  double log_stats_interval = 10;
  bool disable_log_stats = false;
  std::string uvicorn_log_level = "info";
  int tensor_parallel_size = 1;
  int pipeline_parallel_size = 1;
  bool trust_remote_code = false;
  std::string tool_call_parser;
  bool enable_auto_tool_choice = false;
  std::string reasoning_parser;
};

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError(fmt::format("cannot read {}", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// vLLM names a model after its argument; for the default model, the file's
// name up to its first dot ("SmolLM2-135M-Instruct").
std::string DefaultModelName(const std::string& given, const std::string& resolved) {
  if (!given.empty()) return given;
  std::string name = resolved.substr(resolved.find_last_of('/') + 1);
  return name.substr(0, name.find('.'));
}

timespec ToTimespec(double seconds) {
  return {static_cast<time_t>(seconds), static_cast<long>((seconds - static_cast<time_t>(seconds)) * 1e9)};
}

const char* SignalName(int signal) { return signal == SIGINT ? "SIGINT" : "SIGTERM"; }

// Waits for SIGINT or SIGTERM, calling `tick` every interval meanwhile.
void WaitForStopSignal(const sigset_t& signals, double interval, const std::function<void()>& tick) {
  const timespec timeout = ToTimespec(interval);
  while (true) {
    const int signal = sigtimedwait(&signals, nullptr, &timeout);
    if (signal == SIGINT || signal == SIGTERM) {
      spdlog::info("received {}, shutting down", SignalName(signal));
      return;
    }
    tick();
  }
}

// Waits up to `seconds` for `idle`; false if the time ran out or another
// SIGINT or SIGTERM came first.
bool WaitUntilIdle(const sigset_t& signals, double seconds, const std::function<bool()>& idle) {
  constexpr double kPollSeconds = 0.05;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  const timespec poll = ToTimespec(kPollSeconds);
  while (!idle()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    const int signal = sigtimedwait(&signals, nullptr, &poll);
    if (signal == SIGINT || signal == SIGTERM) {
      spdlog::info("received {} again, ending the requests in flight now", SignalName(signal));
      return false;
    }
  }
  return true;
}

// SIGINT or SIGTERM came: new requests and /health get 503 (load balancers
// see the drain) while those in flight get `timeout` seconds to finish;
// then, or at a second signal, the rest end as aborted, each response
// complete (streams with a final "abort" chunk and [DONE], others a 503).
void Drain(server::OpenAiApi& api, http::Server& http_server, const sigset_t& signals, double timeout) {
  // Time for the last chunks to reach the clients.
  constexpr auto kFlushGrace = std::chrono::seconds(2);
  api.BeginDrain();
  spdlog::info("draining: {} requests in flight get up to {} s to finish", api.num_in_flight(), timeout);
  if (!WaitUntilIdle(signals, timeout, [&] { return api.num_in_flight() == 0; })) {
    spdlog::info("aborting {} requests still in flight", api.num_in_flight());
  }
  api.EndInFlight();
  http_server.Stop(kFlushGrace);
  api.StopWorkers();
}

// vLLM flags whose other values Pagoda cannot honour yet, refused by name
// before anything is loaded.
Status CheckVllmOnlyFlags(const ServeArgs& args) {
  for (const auto& [flag, size] : {std::pair{"--tensor-parallel-size", args.tensor_parallel_size},
                                   std::pair{"--pipeline-parallel-size", args.pipeline_parallel_size}}) {
    if (size != 1) {
      return InvalidArgumentError(
          fmt::format("{} {}: Pagoda runs a model on one device; only 1 is supported", flag, size));
    }
  }
  if (args.trust_remote_code) {
    return InvalidArgumentError(
        "--trust-remote-code: Pagoda runs no code from model repositories; it loads the architectures it implements");
  }
  return Status::Ok();
}

Status Serve(const ServeArgs& args) {
  PAGODA_RETURN_IF_ERROR(CheckVllmOnlyFlags(args));
  // Every thread started from here on inherits the blocked signals, so only
  // sigtimedwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  PAGODA_ASSIGN_OR_RETURN(EngineConfig engine_config, MakeEngineConfig(args.model, args.engine));
  engine_config.seed = args.seed;
  engine_config.generation_config = args.generation_config;
  if (args.port < 0 || args.port > 65535) return InvalidArgumentError("--port must be in [0, 65535]");
  if (!(args.shutdown_timeout >= 0)) return InvalidArgumentError("--shutdown-timeout must be at least 0");

  server::ApiOptions api_options;
  api_options.served_model_names = args.served_model_names;
  if (api_options.served_model_names.empty()) {
    api_options.served_model_names.push_back(DefaultModelName(args.model, engine_config.model));
  }
  if (!args.api_key.empty()) {
    api_options.api_key = args.api_key;
  } else if (const char* key = std::getenv("PAGODA_API_KEY"); key != nullptr && *key != '\0') {
    api_options.api_key = key;
  }
  if (!args.chat_template.empty()) {
    PAGODA_ASSIGN_OR_RETURN(api_options.chat_template, ReadFile(args.chat_template));
  }
  api_options.max_logprobs = args.max_logprobs;
  if (args.enable_auto_tool_choice && args.tool_call_parser.empty()) {
    return InvalidArgumentError("--enable-auto-tool-choice requires --tool-call-parser");
  }
  if (!args.tool_call_parser.empty()) {
    PAGODA_ASSIGN_OR_RETURN(api_options.tool_call_parser, server::MakeToolCallParser(args.tool_call_parser));
  }
  api_options.enable_auto_tool_choice = args.enable_auto_tool_choice;
  if (!args.reasoning_parser.empty()) {
    PAGODA_ASSIGN_OR_RETURN(api_options.reasoning_parser, server::MakeReasoningParser(args.reasoning_parser));
    engine_config.reasoning = ReasoningMarkers{std::string(server::ReasoningParser::kStart),
                                               std::string(server::ReasoningParser::kEnd)};
  }
  const std::string served_name = api_options.served_model_names.front();
  auto api = std::make_shared<server::OpenAiApi>(std::move(api_options));

  http::ServerConfig http_config;
  http_config.host = args.host;
  http_config.port = static_cast<uint16_t>(args.port);
  http_config.make_error = &server::OpenAiApi::MakeError;
  // uvicorn writes its access log at info.
  http_config.access_log = args.uvicorn_log_level == "info" || args.uvicorn_log_level == "debug" ||
                           args.uvicorn_log_level == "trace";
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<http::Server> http_server,
                          http::Server::Start(http_config, [api](http::Request request,
                                                                 std::shared_ptr<http::Responder> responder) {
                            api->Handle(std::move(request), std::move(responder));
                          }));
  spdlog::info("listening on http://{}:{} (503 until the model is loaded)", args.host, http_server->port());

  engine_config.served_model_name = served_name;
  PAGODA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(engine_config));
  PAGODA_RETURN_IF_ERROR(api->SetEngine(engine.get()));
  spdlog::info("serving {} as '{}' on http://{}:{}", engine_config.model, served_name, args.host, http_server->port());

  // vLLM's periodic stats line, at debug level while idle.
  metrics::StatsLogLine stats_line(SteadySeconds(), engine->metrics().LogTotals());
  WaitForStopSignal(signals, args.log_stats_interval, [&] {
    if (args.disable_log_stats) return;
    const metrics::StatsLogEntry entry = stats_line.Next(SteadySeconds(), engine->metrics().LogTotals());
    if (entry.idle) {
      spdlog::debug("{}", entry.line);
    } else {
      spdlog::info("{}", entry.line);
    }
  });
  Drain(*api, *http_server, signals, args.shutdown_timeout);
  engine.reset();  // aborts what the server ended
  spdlog::info("shut down");
  return Status::Ok();
}

}  // namespace

void RegisterServe(CLI::App& app, Command& command) {
  auto args = std::make_shared<ServeArgs>();
  auto* sub = app.add_subcommand("serve", "OpenAI-compatible server, as vllm serve");
  sub->add_option("model,--model", args->model,
                  "GGUF model file or Hugging Face model directory, given alone or as --model (default: $PAGODA_MODEL or the default model)");
  sub->add_option("--host", args->host, "Address to listen on")->capture_default_str();
  sub->add_option("--port", args->port, "Port to listen on")->capture_default_str();
  sub->add_option("--served-model-name", args->served_model_names,
                  "Model names clients may use (default: the model argument); the first is reported");
  sub->add_option("--api-key", args->api_key, "Require this key on /v1/* (default: $PAGODA_API_KEY)");
  AddEngineOptions(*sub, args->engine);
  sub->add_option("--chat-template", args->chat_template, "Jinja chat template file (default: the model's)");
  sub->add_option("--generation-config", args->generation_config,
                  "auto: the sampling values of the model's generation_config.json (GGUF files have none) for fields "
                  "a request leaves out, its max_new_tokens capping max_tokens; vllm: vLLM's defaults; or a directory "
                  "holding a generation_config.json. Its eos_token_id ends requests in every case")
      ->capture_default_str();
  sub->add_option("--seed", args->seed, "Seeds the requests that bring no seed");
  sub->add_option("--max-logprobs", args->max_logprobs, "Most logprobs a request may ask for")->capture_default_str();
  sub->add_option("--shutdown-timeout", args->shutdown_timeout,
                  "Seconds in-flight requests get to finish on SIGINT/SIGTERM (a second signal ends them at once)")
      ->capture_default_str();
  sub->add_option("--log-stats-interval", args->log_stats_interval, "Seconds between stats log lines")
      ->capture_default_str();
  sub->add_flag("--disable-log-stats", args->disable_log_stats, "No periodic stats log lines");
  sub->add_flag("--disable-log-requests")
      ->description("No log line per request: what Pagoda does anyway (as vLLM since 0.10 by default)");
  sub->add_option("--uvicorn-log-level", args->uvicorn_log_level,
                  "Above info (warning, error, critical), no HTTP access log lines, as uvicorn's")
      ->check(CLI::IsMember({"critical", "error", "warning", "info", "debug", "trace"}))
      ->capture_default_str();
  sub->add_option("--tensor-parallel-size", args->tensor_parallel_size,
                  "Devices to shard the model over: only 1 (refused otherwise)")
      ->capture_default_str();
  sub->add_option("--pipeline-parallel-size", args->pipeline_parallel_size,
                  "Pipeline stages: only 1 (refused otherwise)")
      ->capture_default_str();
  sub->add_flag("--enforce-eager")->description("Run every step eagerly, without CUDA graphs: the CPU backend always does");
  sub->add_flag("--trust-remote-code", args->trust_remote_code,
                "Refused: Pagoda runs no code from model repositories");
  sub->add_option("--tool-call-parser", args->tool_call_parser,
                  "How tool calls appear in the model's output: " + fmt::format("{}", fmt::join(server::ToolCallParserNames(), ", ")));
  sub->add_flag("--enable-auto-tool-choice", args->enable_auto_tool_choice,
                "Let the model decide when to call tools (tool_choice \"auto\"); needs --tool-call-parser");
  sub->add_option("--reasoning-parser", args->reasoning_parser,
                  "Split the model's reasoning into reasoning_content: " +
                      fmt::format("{}", fmt::join(server::ReasoningParserNames(), ", ")));
  sub->callback([&command, args] { command = [args] { return Serve(*args); }; });
}

}  // namespace pagoda::apps
