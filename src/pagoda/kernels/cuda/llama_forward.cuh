// A dense Llama-family decoder's forward pass on CUDA, over one step's
// flattened tokens: the CUDA backend's counterpart of the CPU Decoder
// (model/layers/decoder.cc), built from this directory's ops. It holds the
// weights (BF16, in GPU memory) and the paged KV cache, and knows nothing
// of requests: the caller passes each step's tokens, positions, KV slots,
// per-row contexts and block tables as plain arrays.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/kernels/cuda/sampling.cuh"

namespace pagoda::kernels::cuda {

struct LlamaGpuShape {
  int64_t hidden;
  int64_t ff;
  int64_t layers;
  int64_t heads;
  int64_t kv_heads;
  int64_t head_dim;
  int64_t vocab;
  float rms_eps;
  // freq_factors, where set, is host memory here ([head_dim / 2]).
  RopeParams rope;
};

// The weights in host memory, as the model holds them: matrices [rows][cols]
// of BF16 (the view's dtype; others are refused), norm weights f32.
struct LlamaGpuLayerWeights {
  const float* attn_norm;
  MatrixView q, k, v, o;
  const float* ffn_norm;
  MatrixView gate, up, down;
};
struct LlamaGpuWeights {
  MatrixView token_embd;
  MatrixView output;  // the embedding table again where they are tied
  const float* output_norm;
  std::vector<LlamaGpuLayerWeights> layers;
};

// One step, in host memory. Token t is at positions[t], writes its K/V to
// slot_mapping[t] (block id * block_size + offset; negative: padding), and
// attends to contexts[t] positions (its own included) of the sequence whose
// block table is block_tables[t] ([tokens][max_blocks_per_row]): a prompt
// chunk's rows share their sequence's table and see up to their own
// positions, a decode row sees its whole sequence.
struct LlamaGpuStep {
  std::span<const int32_t> token_ids;
  std::span<const int32_t> positions;
  std::span<const int64_t> slot_mapping;
  std::span<const int32_t> contexts;
  std::span<const int32_t> block_tables;
  int64_t max_blocks_per_row;
  // The tokens whose next-token logits are wanted, in order.
  std::span<const int32_t> logit_rows;
};

class LlamaGpuModel {
 public:
  // Uploads the weights and allocates a BF16 KV cache of kv_blocks blocks of
  // block_size slots per layer, and activations for steps of up to
  // max_tokens tokens and max_logit_rows logits rows, on the current device.
  static StatusOr<std::unique_ptr<LlamaGpuModel>> Create(const LlamaGpuShape& shape, const LlamaGpuWeights& weights,
                                                         int64_t kv_blocks, int64_t block_size, int64_t max_tokens,
                                                         int64_t max_logit_rows);
  ~LlamaGpuModel();
  LlamaGpuModel(const LlamaGpuModel&) = delete;
  LlamaGpuModel& operator=(const LlamaGpuModel&) = delete;

  // Runs the step and writes the logits of step.logit_rows to logits
  // ([rows][vocab] f32, host memory). Activations are BF16 between ops and
  // the residual stream f32; the MatMuls sum in f32 (cuBLAS).
  Status Forward(const LlamaGpuStep& step, std::span<float> logits);
  // Runs the step and draws each logits row's token on the GPU
  // (SampleTokens, row r under sampling[r]), so that only the token ids
  // cross to the host.
  Status ForwardAndSample(const LlamaGpuStep& step, std::span<const RowSampling> sampling,
                          std::span<int32_t> tokens);

 private:
  struct Impl;
  explicit LlamaGpuModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pagoda::kernels::cuda
