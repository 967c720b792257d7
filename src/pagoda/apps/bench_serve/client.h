// The HTTP side of `bench serve`: streamed completions to an
// OpenAI-compatible server through libcurl's multi interface, one thread
// running one event loop, so hundreds of requests can be in flight at once
// and each SSE chunk is timed when curl hands it over, not when a busy
// thread gets round to it.
#pragma once

#include <string>
#include <vector>

#include "pagoda/apps/bench_serve/dataset.h"
#include "pagoda/apps/bench_serve/request_result.h"

namespace pagoda::apps::bench_serve {

struct ClientOptions {
  std::string url;  // the completions endpoint, in full
  std::string model;
  double temperature = 0;
  bool ignore_eos = false;
  int max_concurrency = 0;  // requests in flight at most; 0: no limit
  std::string api_key;      // sent as a bearer token when not empty ($OPENAI_API_KEY, as vLLM)
};

struct RunResult {
  std::vector<RequestResult> requests;  // in prompt order
  double duration = 0;                  // seconds, from the start to the last response
};

// The JSON body of the streamed completion request for `prompt`.
std::string CompletionBody(const ClientOptions& options, const BenchPrompt& prompt);

// Sends prompts[i] once arrivals[i] seconds have passed since the start and
// a slot under max_concurrency is free (waiting in arrival order), and
// records each response. Failures (refused connections, HTTP errors, error
// events) are recorded in their request's result, never thrown.
RunResult RunRequests(const ClientOptions& options, const std::vector<BenchPrompt>& prompts,
                      const std::vector<double>& arrivals);

}  // namespace pagoda::apps::bench_serve
