#include "pagoda/sampler/random_stream.h"

#include <random>

namespace pagoda {
namespace {

// SplitMix64: the output function is a strong 64-bit mixer, and applied to
// key + step * golden it is the SplitMix64 generator itself.
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

RandomStream RandomStream::Seeded(int64_t seed, int32_t child_index) {
  const uint64_t request_key = Mix64(static_cast<uint64_t>(seed) + kGolden);
  return RandomStream(Mix64(request_key + kGolden * (static_cast<uint64_t>(child_index) + 1)));
}

RandomStream RandomStream::Unseeded() {
  std::random_device device;
  return RandomStream((static_cast<uint64_t>(device()) << 32) ^ device());
}

double RandomStream::Uniform(int64_t step) const {
  const uint64_t bits = Mix64(key_ + kGolden * (static_cast<uint64_t>(step) + 1));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;  // the top 53 bits fill a double's mantissa
}

}  // namespace pagoda
