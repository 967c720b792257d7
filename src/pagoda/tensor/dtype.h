// Element types of weights, activations and the KV cache, with the GGML
// quantized block layouts they are stored in (bit-compatible with GGUF).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pagoda {

// Values are the GGML type ids used in GGUF tensor infos.
enum class DType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ8_0 = 8,
  kQ8_1 = 9,  // activations only: int8 with a per-block sum, paired with Q4_1 weights
  kBF16 = 30,
};

constexpr int kQuantBlock = 32;  // elements per Q4_0/Q4_1/Q8_0/Q8_1 block

// IEEE half stored as raw bits.
using f16_bits = uint16_t;
using bf16_bits = uint16_t;

struct BlockQ4_0 {
  f16_bits d;                   // scale
  uint8_t qs[kQuantBlock / 2];  // nibbles: element j in low nibble of qs[j], j+16 in high nibble
};
struct BlockQ4_1 {
  f16_bits d;  // scale
  f16_bits m;  // minimum
  uint8_t qs[kQuantBlock / 2];
};
struct BlockQ8_0 {
  f16_bits d;
  int8_t qs[kQuantBlock];
};
struct BlockQ8_1 {
  f16_bits d;  // scale
  f16_bits s;  // d * sum(qs)
  int8_t qs[kQuantBlock];
};
static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ8_1) == 36);

// Elements per storage block (1 for plain types).
int64_t DTypeBlockElems(DType t);
// Bytes per storage block.
int64_t DTypeBlockBytes(DType t);
// Bytes for a row of n elements; n must be a multiple of DTypeBlockElems.
inline int64_t DTypeRowBytes(DType t, int64_t n) { return n / DTypeBlockElems(t) * DTypeBlockBytes(t); }
// Whether the id names a type Pagoda can load from a file.
bool IsSupportedDType(uint32_t ggml_type_id);
std::string_view DTypeName(DType t);

}  // namespace pagoda
