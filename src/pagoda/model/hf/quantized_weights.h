// Quantized linear layers of Hugging Face checkpoints, repacked at load into
// the GGML block type that holds the same values: the MatMul kernels then
// read them compactly (4.5 or 8.5 bits per weight), with
// reference::DequantizeRow as their scalar oracle.
//
//   GPTQ (quant_method "gptq"), 4 or 8 bits, w = s * (q - z):
//     symmetric (z = 2^(bits-1)) -> Q4_0 (d = s, nibble q) or Q8_0
//     (d = s, q - 128), GPTQ's F16 scales copied exactly; with zero points,
//     4 bits -> Q4_1 as AWQ, 8 bits -> Q8_0 with d = s and q - z where
//     that fits a signed byte, else the block requantized as FP8's are. Act-order layers (g_idx not in order) take
//     their columns in group order, with that order as the matrix's
//     input_order.
//   AWQ (quant_method "awq", GEMM layout, zero points), 4 bits:
//     w = s * (q - z) -> Q4_1 (d = s, m = -z * s, both F16): the one
//     repacking that rounds, as m takes up to 4 more bits than F16 holds.
//   compressed-tensors (llm-compressor) "pack-quantized" W4A16/W8A16 and
//     "int-quantized" W8A8 weights, symmetric, per group or per channel:
//     w = s * q -> Q4_0 / Q8_0 with d = s rounded to F16 (exact for a bf16
//     scale in F16's normal range).
//   FP8 (quant_method "fp8", or compressed-tensors "float-quantized"), e4m3
//     weights with per-tensor, per-channel or block-wise scales (vLLM's
//     weight_block_size and weight_scale_inv): no GGML block holds e4m3, so
//     each row of w = e4m3 * s is requantized to Q8_0 (8.5 bits per
//     weight), within half a Q8_0 step (max|w| of the 32 elements / 254) of
//     the checkpoint's values. Static input scales are checked and not
//     applied (the start-up log says so).
// Groups must be multiples of the 32-element block. Everything else a
// quantization_config can say is refused by its key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/base/status.h"
#include "pagoda/formats/safetensors/safetensors_checkpoint.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::hf {

enum class QuantFormat {
  kGptq,      // qweight, qzeros, scales, g_idx
  kAwq,       // qweight, qzeros, scales (GEMM layout)
  kCtPacked,  // weight_packed, weight_scale, weight_shape
  kCtInt,     // weight (I8), weight_scale
  kFp8,       // weight (F8_E4M3), weight_scale: native "fp8" or compressed-tensors float-quantized
};

struct QuantScheme {
  QuantFormat format = QuantFormat::kGptq;
  std::string method;      // quant_method as the config names it
  int bits = 4;
  int64_t group_size = 0;  // 0: one group per row (per channel)
  bool gptq_v1 = true;     // GPTQ v1 stores each zero point minus one
  bool symmetric = true;   // GPTQ's sym: every zero point is 2^(bits-1)
  bool at_load = false;    // --quantization fp8 of a float checkpoint
  // FP8 with one scale per block of weights (vLLM's weight_block_size,
  // compressed-tensors' block strategy): [rows, cols] of a block; 0: none.
  int64_t block_rows = 0;
  int64_t block_cols = 0;
  // FP8 with static input scales (vLLM's activation_scheme "static"): read
  // and checked, not applied, since Pagoda quantizes activations per 32
  // elements at run time.
  bool static_activations = false;
};

// The tensor suffix that marks a layer quantized under `scheme` (".qweight",
// ".weight_scale", ...).
std::string QuantMarker(const QuantScheme& scheme);

// The GGML block type the scheme's layers are repacked into, as the
// start-up log names it ("Q4_0", "Q8_0 (requantized from e4m3)", ...).
std::string RepackedLayout(const QuantScheme& scheme);

// quantization_config's scheme, or an error naming the key Pagoda cannot honour.
StatusOr<QuantScheme> ReadQuantScheme(const nlohmann::json& quantization_config);

// The tensor names that make up the quantized linear `prefix` ("....q_proj"),
// or an empty list when the checkpoint holds that layer unquantized.
std::vector<std::string> QuantizedComponents(const safetensors::SafetensorsCheckpoint& checkpoint,
                                             const std::string& prefix, const QuantScheme& scheme);

struct RepackedMatrix {
  DType dtype = DType::kQ4_0;
  int64_t rows = 0;  // output features
  int64_t cols = 0;  // input features
  std::vector<uint8_t> bytes;
  // Column k holds input channel input_order[k]; empty when k itself.
  std::vector<int32_t> input_order;
};

// --quantization fp8 of a float checkpoint, as vLLM quantizes one at load:
// scale = max|w| / 448 over the tensor, q = e4m3(clamp(w * (1 / scale))),
// round to nearest even; then requantized to Q8_0 as FP8 checkpoints are.
// `w` is [out][in] f32.
RepackedMatrix QuantizeFp8AtLoad(const float* w, int64_t out, int64_t in);

StatusOr<RepackedMatrix> RepackLinear(const safetensors::SafetensorsCheckpoint& checkpoint, const std::string& prefix,
                                      const QuantScheme& scheme);

}  // namespace pagoda::hf
