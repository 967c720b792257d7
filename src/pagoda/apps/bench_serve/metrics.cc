#include "pagoda/apps/bench_serve/metrics.h"

#include <algorithm>
#include <cmath>

namespace pagoda::apps::bench_serve {
namespace {

// NumPy's default percentile of sorted values: linear between the closest ranks.
double Percentile(const std::vector<double>& sorted, double p) {
  const double at = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

Distribution Describe(std::vector<double> seconds, const std::vector<double>& percentiles) {
  Distribution d;
  // vLLM summarizes `values or 0`: an empty list reads as the single value 0.
  if (seconds.empty()) seconds.push_back(0);
  std::sort(seconds.begin(), seconds.end());
  const double n = static_cast<double>(seconds.size());
  double sum = 0;
  for (double s : seconds) sum += s;
  const double mean = sum / n;
  double squares = 0;
  for (double s : seconds) squares += (s - mean) * (s - mean);
  d.mean = 1e3 * mean;
  d.median = 1e3 * Percentile(seconds, 50);
  d.std = 1e3 * std::sqrt(squares / n);
  for (double p : percentiles) d.percentiles.emplace_back(p, 1e3 * Percentile(seconds, p));
  return d;
}

BenchmarkMetrics ComputeMetrics(const std::vector<RequestResult>& results, double duration,
                                const std::vector<double>& percentiles) {
  BenchmarkMetrics m;
  std::vector<double> ttfts, tpots, itls, e2els;
  for (const RequestResult& r : results) {
    if (!r.success) {
      ++m.failed;
      if (m.first_error.empty()) m.first_error = r.error;
      continue;
    }
    ++m.completed;
    m.total_input += r.prompt_len;
    m.total_output += r.output_tokens;
    if (r.output_tokens > 1) tpots.push_back((r.latency - r.ttft) / static_cast<double>(r.output_tokens - 1));
    itls.insert(itls.end(), r.itl.begin(), r.itl.end());
    ttfts.push_back(r.ttft);
    e2els.push_back(r.latency);
  }
  m.duration = duration;
  m.request_throughput = m.completed / duration;
  m.output_throughput = static_cast<double>(m.total_output) / duration;
  m.total_token_throughput = static_cast<double>(m.total_input + m.total_output) / duration;
  m.ttft = Describe(std::move(ttfts), percentiles);
  m.tpot = Describe(std::move(tpots), percentiles);
  m.itl = Describe(std::move(itls), percentiles);
  m.e2el = Describe(std::move(e2els), percentiles);
  return m;
}

}  // namespace pagoda::apps::bench_serve
