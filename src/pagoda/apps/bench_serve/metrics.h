// The summary of a `bench serve` run, computed as vLLM's bench serve does
// (calculate_metrics): over the successful requests, TTFT, TPOT =
// (E2EL - TTFT) / (output tokens - 1) for requests of more than one output
// token, every inter-token gap (ITL) and E2EL; mean, median, standard
// deviation (population, NumPy's default) and percentiles (NumPy's linear
// interpolation), all 0 when there are no values. Throughputs divide by the
// benchmark duration; failed requests add no tokens.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pagoda/apps/bench_serve/request_result.h"

namespace pagoda::apps::bench_serve {

// In milliseconds.
struct Distribution {
  double mean = 0;
  double median = 0;
  double std = 0;
  std::vector<std::pair<double, double>> percentiles;  // (p, value)
};

// `seconds` summarized in milliseconds, with the `percentiles` (0-100) asked for.
Distribution Describe(std::vector<double> seconds, const std::vector<double>& percentiles);

struct BenchmarkMetrics {
  int completed = 0;
  int failed = 0;
  int64_t total_input = 0;
  int64_t total_output = 0;
  double duration = 0;
  double request_throughput = 0;
  double output_throughput = 0;
  double total_token_throughput = 0;
  Distribution ttft, tpot, itl, e2el;
  std::string first_error;  // of the first failed request, in request order
};

BenchmarkMetrics ComputeMetrics(const std::vector<RequestResult>& results, double duration,
                                const std::vector<double>& percentiles);

}  // namespace pagoda::apps::bench_serve
