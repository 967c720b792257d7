// `pagoda`: the command-line front end. Each subcommand lives in its own file.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <vector>

#include "pagoda/apps/commands.h"
#include "pagoda/apps/vllm_short_flags.h"

namespace pagoda::apps {

void LogToStderr() {
  spdlog::default_logger()->sinks() = {std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
}

}  // namespace pagoda::apps

int main(int argc, char** argv) {
  CLI::App app{"Pagoda: LLM inference and serving engine"};
  app.require_subcommand(1);
  pagoda::apps::Command command;
  pagoda::apps::RegisterInspect(app, command);
  pagoda::apps::RegisterTokenize(app, command);
  pagoda::apps::RegisterGenerate(app, command);
  pagoda::apps::RegisterPerplexity(app, command);
  pagoda::apps::RegisterBench(app, command);
  pagoda::apps::RegisterServe(app, command);
  pagoda::apps::RegisterQuantize(app, command);
  std::vector<std::string> args = pagoda::apps::ExpandVllmShortFlags(argc, argv);
  std::vector<char*> expanded;
  for (std::string& arg : args) expanded.push_back(arg.data());
  try {
    app.parse(static_cast<int>(expanded.size()), expanded.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One clear line instead of CLI11's usage dump.
    std::fprintf(stderr, "pagoda: %s (see --help)\n", e.what());
    return 2;
  }
  const pagoda::Status status = command();
  if (!status.ok()) {
    std::fprintf(stderr, "pagoda: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
