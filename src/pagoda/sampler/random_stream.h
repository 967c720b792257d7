// A sequence's source of randomness. It is counter-based: the draw for the
// sequence's t-th generated token depends only on (seed, child index, t), so
// it does not depend on the other rows in the batch, on the order rows are
// processed, or on how often the sequence was preempted and recomputed.
#pragma once

#include <cstdint>
#include <optional>

namespace pagoda {

class RandomStream {
 public:
  // Child `child_index` of a request seeded with `seed`. Children of one
  // request (n > 1, best_of, beams) get distinct streams; the same
  // (seed, child) always gets the same one.
  static RandomStream Seeded(int64_t seed, int32_t child_index);
  // A fresh stream from the OS entropy source, for requests without a seed.
  static RandomStream Unseeded();
  static RandomStream For(std::optional<int64_t> seed, int32_t child_index) {
    return seed ? Seeded(*seed, child_index) : Unseeded();
  }

  // Uniform in [0, 1), for the draw of generated token number `step`.
  double Uniform(int64_t step) const;

 private:
  explicit RandomStream(uint64_t key) : key_(key) {}
  uint64_t key_;
};

}  // namespace pagoda
