// When each request of a `bench serve` run is sent, as vLLM's bench serve
// schedules them: all at once at an infinite rate; otherwise the gaps are
// drawn from a gamma distribution of shape `burstiness` and mean 1/rate, so
// burstiness 1 is a Poisson process, below 1 burstier, above 1 steadier.
#pragma once

#include <cstdint>
#include <vector>

namespace pagoda::apps::bench_serve {

// Seconds from the start of the run at which each of `num_requests` is due:
// the first at 0, then cumulative gaps. A rate of +infinity gives all zeros.
std::vector<double> ArrivalOffsets(int num_requests, double request_rate, double burstiness, uint64_t seed);

}  // namespace pagoda::apps::bench_serve
