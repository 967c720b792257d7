#include "pagoda/apps/bench_serve/arrivals.h"

#include <cmath>
#include <random>

namespace pagoda::apps::bench_serve {

std::vector<double> ArrivalOffsets(int num_requests, double request_rate, double burstiness, uint64_t seed) {
  std::vector<double> offsets(static_cast<size_t>(num_requests), 0.0);
  if (std::isinf(request_rate)) return offsets;
  // Mean of gamma(k, theta) is k * theta: theta = 1 / (rate * k) keeps it 1 / rate.
  std::gamma_distribution<double> gap(burstiness, 1.0 / (request_rate * burstiness));
  std::mt19937_64 rng(seed);
  for (size_t i = 1; i < offsets.size(); ++i) offsets[i] = offsets[i - 1] + gap(rng);
  return offsets;
}

}  // namespace pagoda::apps::bench_serve
