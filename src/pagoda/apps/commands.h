// Subcommand registration: each Register* adds its options to the app and,
// when its subcommand is chosen, stores the action to run in `command`.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

#include "pagoda/base/status.h"

namespace pagoda::apps {

using Command = std::function<Status()>;

void RegisterInspect(CLI::App& app, Command& command);
void RegisterTokenize(CLI::App& app, Command& command);
void RegisterGenerate(CLI::App& app, Command& command);
void RegisterPerplexity(CLI::App& app, Command& command);
void RegisterBench(CLI::App& app, Command& command);
// `bench latency`, a subcommand of the `bench` that RegisterBench adds.
void RegisterBenchLatency(CLI::App& bench, Command& command);
// `bench serve`: the online benchmark of an OpenAI-compatible server.
void RegisterBenchServe(CLI::App& bench, Command& command);
void RegisterServe(CLI::App& app, Command& command);
void RegisterQuantize(CLI::App& app, Command& command);

// For commands whose stdout is their result (generate, perplexity): the
// engine's log goes to stderr instead.
void LogToStderr();

}  // namespace pagoda::apps
