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
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,  // activations only: int8 with a per-block sum, paired with Q4_1 weights
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,  // activations only: what the K-quant dot products pair with
  kIQ4_NL = 20,
  kIQ4_XS = 23,
  kI32 = 26,  // index tensors only (a matrix's input order), never weights a kernel multiplies
  kBF16 = 30,
};

constexpr int kQuantBlock = 32;  // elements per Q4_0/Q4_1/Q5_0/Q5_1/Q8_0/Q8_1/IQ4_NL block

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

// Q5_0/Q5_1: 32 elements, 5 bits each; the fifth bits are packed in qh
// (bit j of the little-endian word is element j's).
struct BlockQ5_0 {
  f16_bits d;
  uint8_t qh[4];
  uint8_t qs[kQuantBlock / 2];  // low 4 bits, as Q4_0
};
struct BlockQ5_1 {
  f16_bits d;
  f16_bits m;
  uint8_t qh[4];
  uint8_t qs[kQuantBlock / 2];
};
// IQ4_NL: 32 elements, 4-bit indices into a fixed non-linear table.
struct BlockIQ4_NL {
  f16_bits d;
  uint8_t qs[kQuantBlock / 2];
};
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockIQ4_NL) == 18);

// K-quants: super-blocks of 256 elements in sub-blocks of 16 or 32, each
// sub-block with its own quantized scale (and minimum) under the
// super-block's f16 ones.
constexpr int kSuperBlock = 256;
struct BlockQ2_K {
  uint8_t scales[kSuperBlock / 16];  // per 16: scale in the low nibble, minimum in the high one
  uint8_t qs[kSuperBlock / 4];       // 2 bits per element
  f16_bits d;
  f16_bits dmin;
};
struct BlockQ3_K {
  uint8_t hmask[kSuperBlock / 8];  // the high bit of each element
  uint8_t qs[kSuperBlock / 4];     // the low 2 bits
  uint8_t scales[12];              // 16 six-bit scales
  f16_bits d;
};
struct BlockQ4_K {
  f16_bits d;
  f16_bits dmin;
  uint8_t scales[12];            // 8 six-bit scales and 8 six-bit minimums, per 32
  uint8_t qs[kSuperBlock / 2];
};
struct BlockQ5_K {
  f16_bits d;
  f16_bits dmin;
  uint8_t scales[12];
  uint8_t qh[kSuperBlock / 8];
  uint8_t qs[kSuperBlock / 2];
};
struct BlockQ6_K {
  uint8_t ql[kSuperBlock / 2];  // the low 4 bits
  uint8_t qh[kSuperBlock / 4];  // the high 2 bits
  int8_t scales[kSuperBlock / 16];
  f16_bits d;
};
// The activations K-quant dot products pair with: f32 scale, sums per 16.
struct BlockQ8_K {
  float d;
  int8_t qs[kSuperBlock];
  int16_t bsums[kSuperBlock / 16];
};
// IQ4_XS: IQ4_NL's table in a 256-element super-block with six-bit
// sub-block scales per 32.
struct BlockIQ4_XS {
  f16_bits d;
  uint16_t scales_h;  // the high 2 bits of each sub-block's scale
  uint8_t scales_l[kSuperBlock / 64];
  uint8_t qs[kSuperBlock / 2];
};
static_assert(sizeof(BlockQ2_K) == 84);
static_assert(sizeof(BlockQ3_K) == 110);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockQ8_K) == 292);
static_assert(sizeof(BlockIQ4_XS) == 136);

// Elements per storage block (1 for plain types).
int64_t DTypeBlockElems(DType t);
// Bytes per storage block.
int64_t DTypeBlockBytes(DType t);
// Bytes for a row of n elements; n must be a multiple of DTypeBlockElems.
inline int64_t DTypeRowBytes(DType t, int64_t n) { return n / DTypeBlockElems(t) * DTypeBlockBytes(t); }
// Whether the id names a type whose layout Pagoda knows and that files
// store (not the activation-only Q8_1 and Q8_K): what the GGUF reader reads,
// and what every kernel set multiplies and looks up.
bool IsKnownStorageDType(uint32_t ggml_type_id);
// The storage types, comma-separated, for error messages.
std::string_view KnownStorageDTypeNames();
std::string_view DTypeName(DType t);

}  // namespace pagoda
