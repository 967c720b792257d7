// The byte layouts of GGUF's 32-element block types, shared by every SIMD
// set's kernels (the layouts do not depend on the instruction set).
#pragma once

namespace pagoda::kernels::cpu {

enum class Kind { kQ4_0, kQ4_1, kQ8_0, kQ5_0, kQ5_1, kIQ4_NL };

template <Kind K>
struct Layout;
template <>
struct Layout<Kind::kQ4_0> {
  static constexpr int kBlockBytes = 18;  // d, 16 nibble bytes
  static constexpr int kQsOffset = 2;
};
template <>
struct Layout<Kind::kQ4_1> {
  static constexpr int kBlockBytes = 20;  // d, m, 16 nibble bytes
  static constexpr int kQsOffset = 4;
};
template <>
struct Layout<Kind::kQ8_0> {
  static constexpr int kBlockBytes = 34;  // d, 32 signed bytes
  static constexpr int kQsOffset = 2;
};
template <>
struct Layout<Kind::kQ5_0> {
  static constexpr int kBlockBytes = 22;  // d, 32 fifth bits, 16 nibble bytes
  static constexpr int kQhOffset = 2;
  static constexpr int kQsOffset = 6;
};
template <>
struct Layout<Kind::kQ5_1> {
  static constexpr int kBlockBytes = 24;  // d, m, 32 fifth bits, 16 nibble bytes
  static constexpr int kQhOffset = 4;
  static constexpr int kQsOffset = 8;
};
template <>
struct Layout<Kind::kIQ4_NL> {
  static constexpr int kBlockBytes = 18;  // d, 16 bytes of table indices
  static constexpr int kQsOffset = 2;
};

template <Kind K>
constexpr bool kHasMinimum = K == Kind::kQ4_1 || K == Kind::kQ5_1;

}  // namespace pagoda::kernels::cpu
