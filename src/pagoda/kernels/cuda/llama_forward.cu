#include "pagoda/kernels/cuda/llama_forward.cuh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/embedding.cuh"
#include "pagoda/kernels/cuda/gated_activation.cuh"
#include "pagoda/kernels/cuda/gemm.cuh"
#include "pagoda/kernels/cuda/paged_decode_attention.cuh"
#include "pagoda/kernels/cuda/reshape_and_cache.cuh"
#include "pagoda/kernels/cuda/rms_norm.cuh"
#include "pagoda/kernels/cuda/rope.cuh"
#include "pagoda/kernels/cuda/sampling.cuh"

namespace pagoda::kernels::cuda {
namespace {

// Device memory, freed with it; grown (contents dropped) by Reserve.
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { cudaFree(ptr_); }

  Status Reserve(size_t bytes) {
    if (bytes <= bytes_) return Status::Ok();
    cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
    PAGODA_RETURN_IF_ERROR(CudaStatus(cudaMalloc(&ptr_, std::max<size_t>(bytes, 1)), "cudaMalloc"));
    bytes_ = bytes;
    return Status::Ok();
  }
  Status Upload(const void* host, size_t bytes, cudaStream_t stream) {
    PAGODA_RETURN_IF_ERROR(Reserve(bytes));
    return CudaStatus(cudaMemcpyAsync(ptr_, host, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  }
  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

size_t MatrixBytes(const MatrixView& m) { return static_cast<size_t>(m.rows * m.cols) * 2; }

Status CheckMatrix(const MatrixView& m, int64_t rows, int64_t cols, const char* what) {
  if (m.dtype != DType::kBF16) {
    return UnimplementedError(std::string("the CUDA Llama forward takes BF16 matrices; ") + what + " is " +
                              std::string(DTypeName(m.dtype)));
  }
  if (m.rows != rows || m.cols != cols || m.input_order != nullptr) {
    return InvalidArgumentError(std::string("the CUDA Llama forward: ") + what + " has the wrong shape");
  }
  return Status::Ok();
}

// Every weight's type and shape, before any device work.
Status Validate(const LlamaGpuShape& s, const LlamaGpuWeights& w) {
  const int64_t qd = s.heads * s.head_dim;
  const int64_t kd = s.kv_heads * s.head_dim;
  if (s.layers <= 0 || static_cast<int64_t>(w.layers.size()) != s.layers) {
    return InvalidArgumentError("the CUDA Llama forward: the weights' layer count is not the shape's");
  }
  if (s.heads % s.kv_heads != 0) return InvalidArgumentError("the CUDA Llama forward: heads must be a multiple of kv_heads");
  PAGODA_RETURN_IF_ERROR(CheckMatrix(w.token_embd, s.vocab, s.hidden, "token_embd"));
  PAGODA_RETURN_IF_ERROR(CheckMatrix(w.output, s.vocab, s.hidden, "output"));
  for (const LlamaGpuLayerWeights& l : w.layers) {
    PAGODA_RETURN_IF_ERROR(CheckMatrix(l.q, qd, s.hidden, "attn_q"));
    PAGODA_RETURN_IF_ERROR(CheckMatrix(l.k, kd, s.hidden, "attn_k"));
    PAGODA_RETURN_IF_ERROR(CheckMatrix(l.v, kd, s.hidden, "attn_v"));
    PAGODA_RETURN_IF_ERROR(CheckMatrix(l.o, s.hidden, qd, "attn_output"));
    PAGODA_RETURN_IF_ERROR(CheckMatrix(l.gate, s.ff, s.hidden, "ffn_gate"));
    PAGODA_RETURN_IF_ERROR(CheckMatrix(l.up, s.ff, s.hidden, "ffn_up"));
    PAGODA_RETURN_IF_ERROR(CheckMatrix(l.down, s.hidden, s.ff, "ffn_down"));
  }
  return Status::Ok();
}

struct GpuLayer {
  DeviceArray attn_norm, q, k, v, o, ffn_norm, gate_up, down;
  DeviceArray k_cache, v_cache;
};

}  // namespace

struct LlamaGpuModel::Impl {
  LlamaGpuShape shape;
  int64_t kv_blocks = 0;
  int64_t block_size = 0;
  int64_t max_tokens = 0;
  int64_t max_logit_rows = 0;
  cudaStream_t stream = nullptr;
  std::unique_ptr<CublasHandle> cublas;
  DeviceArray token_embd, output, output_norm, freq_factors;
  std::vector<GpuLayer> layers;
  // Activations: x the f32 residual stream, the rest BF16 but for the
  // projections added to x (f32) and the logits (f32).
  DeviceArray x, h, q, k, v, attn, added, gate_up, act, head_in, logits;
  // The step's inputs and attention's split-K workspace.
  DeviceArray token_ids, positions, slots, contexts, tables, workspace;
  DeviceArray sampling, sampled;

  ~Impl() {
    cudaStreamSynchronize(stream);
    cublas.reset();
    if (stream != nullptr) cudaStreamDestroy(stream);
  }

  KvCacheLayer Cache(const GpuLayer& l) const {
    return KvCacheLayer{DType::kBF16, l.k_cache.get(), l.v_cache.get(), kv_blocks, block_size, shape.kv_heads,
                        shape.head_dim};
  }

  Status Allocate() {
    const LlamaGpuShape& s = shape;
    const auto bf16 = [](int64_t n) { return static_cast<size_t>(n) * 2; };
    const auto f32 = [](int64_t n) { return static_cast<size_t>(n) * 4; };
    const int64_t t = max_tokens;
    PAGODA_RETURN_IF_ERROR(x.Reserve(f32(t * s.hidden)));
    PAGODA_RETURN_IF_ERROR(h.Reserve(bf16(t * s.hidden)));
    PAGODA_RETURN_IF_ERROR(q.Reserve(bf16(t * s.heads * s.head_dim)));
    PAGODA_RETURN_IF_ERROR(k.Reserve(bf16(t * s.kv_heads * s.head_dim)));
    PAGODA_RETURN_IF_ERROR(v.Reserve(bf16(t * s.kv_heads * s.head_dim)));
    PAGODA_RETURN_IF_ERROR(attn.Reserve(bf16(t * s.heads * s.head_dim)));
    PAGODA_RETURN_IF_ERROR(added.Reserve(f32(t * s.hidden)));
    PAGODA_RETURN_IF_ERROR(gate_up.Reserve(bf16(t * 2 * s.ff)));
    PAGODA_RETURN_IF_ERROR(act.Reserve(bf16(t * s.ff)));
    PAGODA_RETURN_IF_ERROR(head_in.Reserve(bf16(max_logit_rows * s.hidden)));
    PAGODA_RETURN_IF_ERROR(logits.Reserve(f32(max_logit_rows * s.vocab)));
    const size_t cache_bytes = bf16(kv_blocks * block_size * s.kv_heads * s.head_dim);
    for (GpuLayer& l : layers) {
      PAGODA_RETURN_IF_ERROR(l.k_cache.Reserve(cache_bytes));
      PAGODA_RETURN_IF_ERROR(l.v_cache.Reserve(cache_bytes));
    }
    return Status::Ok();
  }

  Status Upload(const LlamaGpuWeights& w) {
    const LlamaGpuShape& s = shape;
    PAGODA_RETURN_IF_ERROR(token_embd.Upload(w.token_embd.data, MatrixBytes(w.token_embd), stream));
    PAGODA_RETURN_IF_ERROR(output.Upload(w.output.data, MatrixBytes(w.output), stream));
    PAGODA_RETURN_IF_ERROR(output_norm.Upload(w.output_norm, static_cast<size_t>(s.hidden) * 4, stream));
    if (s.rope.freq_factors != nullptr) {
      PAGODA_RETURN_IF_ERROR(
          freq_factors.Upload(s.rope.freq_factors, static_cast<size_t>(s.head_dim / 2) * 4, stream));
    }
    layers = std::vector<GpuLayer>(static_cast<size_t>(s.layers));
    for (int64_t i = 0; i < s.layers; ++i) {
      const LlamaGpuLayerWeights& src = w.layers[static_cast<size_t>(i)];
      GpuLayer& l = layers[static_cast<size_t>(i)];
      PAGODA_RETURN_IF_ERROR(l.attn_norm.Upload(src.attn_norm, static_cast<size_t>(s.hidden) * 4, stream));
      PAGODA_RETURN_IF_ERROR(l.ffn_norm.Upload(src.ffn_norm, static_cast<size_t>(s.hidden) * 4, stream));
      PAGODA_RETURN_IF_ERROR(l.q.Upload(src.q.data, MatrixBytes(src.q), stream));
      PAGODA_RETURN_IF_ERROR(l.k.Upload(src.k.data, MatrixBytes(src.k), stream));
      PAGODA_RETURN_IF_ERROR(l.v.Upload(src.v.data, MatrixBytes(src.v), stream));
      PAGODA_RETURN_IF_ERROR(l.o.Upload(src.o.data, MatrixBytes(src.o), stream));
      PAGODA_RETURN_IF_ERROR(l.down.Upload(src.down.data, MatrixBytes(src.down), stream));
      // Gate rows, then up rows: one MatMul's output is the gated
      // activation's [gate | up] row.
      PAGODA_RETURN_IF_ERROR(l.gate_up.Reserve(MatrixBytes(src.gate) + MatrixBytes(src.up)));
      PAGODA_RETURN_IF_ERROR(CudaStatus(
          cudaMemcpyAsync(l.gate_up.get(), src.gate.data, MatrixBytes(src.gate), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync"));
      PAGODA_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(static_cast<char*>(l.gate_up.get()) + MatrixBytes(src.gate),
                                                        src.up.data, MatrixBytes(src.up), cudaMemcpyHostToDevice,
                                                        stream),
                                        "cudaMemcpyAsync"));
      // Host memory may be freed once the copies are done.
      PAGODA_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(stream), "weight upload"));
    }
    return CudaStatus(cudaStreamSynchronize(stream), "weight upload");
  }

  Status Layer(const GpuLayer& l, int64_t n, bool first, const PagedDecodeBatch& batch, const AttentionParams& params,
               size_t workspace_bytes) {
    const LlamaGpuShape& s = shape;
    const int64_t qd = s.heads * s.head_dim;
    const int64_t kd = s.kv_heads * s.head_dim;
    PAGODA_RETURN_IF_ERROR(FusedAddRmsNorm(x.as<float>(), first ? nullptr : added.get(), DType::kF32,
                                           l.attn_norm.as<float>(), n, s.hidden, s.rms_eps, h.get(), DType::kBF16,
                                           stream));
    PAGODA_RETURN_IF_ERROR(Gemm(*cublas, h.get(), DType::kBF16, n, s.hidden, l.q.get(), qd, q.get(), DType::kBF16));
    PAGODA_RETURN_IF_ERROR(Gemm(*cublas, h.get(), DType::kBF16, n, s.hidden, l.k.get(), kd, k.get(), DType::kBF16));
    PAGODA_RETURN_IF_ERROR(Gemm(*cublas, h.get(), DType::kBF16, n, s.hidden, l.v.get(), kd, v.get(), DType::kBF16));
    RopeParams rope = s.rope;
    rope.freq_factors = s.rope.freq_factors != nullptr ? freq_factors.as<float>() : nullptr;
    PAGODA_RETURN_IF_ERROR(Rope(q.get(), DType::kBF16, positions.as<int32_t>(), n, s.heads, s.head_dim, rope, stream));
    PAGODA_RETURN_IF_ERROR(
        Rope(k.get(), DType::kBF16, positions.as<int32_t>(), n, s.kv_heads, s.head_dim, rope, stream));
    const KvCacheLayer cache = Cache(l);
    PAGODA_RETURN_IF_ERROR(ReshapeAndCache(k.get(), v.get(), DType::kBF16, slots.as<int64_t>(), n, cache, stream));
    PAGODA_RETURN_IF_ERROR(PagedDecodeAttention(q.get(), s.heads, cache, batch, params, attn.get(), workspace.get(),
                                                workspace_bytes, stream));
    PAGODA_RETURN_IF_ERROR(
        Gemm(*cublas, attn.get(), DType::kBF16, n, qd, l.o.get(), s.hidden, added.get(), DType::kF32));
    PAGODA_RETURN_IF_ERROR(FusedAddRmsNorm(x.as<float>(), added.get(), DType::kF32, l.ffn_norm.as<float>(), n,
                                           s.hidden, s.rms_eps, h.get(), DType::kBF16, stream));
    PAGODA_RETURN_IF_ERROR(
        Gemm(*cublas, h.get(), DType::kBF16, n, s.hidden, l.gate_up.get(), 2 * s.ff, gate_up.get(), DType::kBF16));
    PAGODA_RETURN_IF_ERROR(GatedActivation(GatedActivationKind::kSilu, gate_up.get(), DType::kBF16, n, s.ff, act.get(),
                                           DType::kBF16, stream));
    return Gemm(*cublas, act.get(), DType::kBF16, n, s.ff, l.down.get(), s.hidden, added.get(), DType::kF32);
  }

  // The step's logits rows into `logits` (device), queued on the stream.
  Status Logits(const LlamaGpuStep& step) {
    const LlamaGpuShape& s = shape;
    const auto n = static_cast<int64_t>(step.token_ids.size());
    const auto rows = static_cast<int64_t>(step.logit_rows.size());
    if (n > max_tokens || rows > max_logit_rows) {
      return InvalidArgumentError("the CUDA Llama forward: the step is larger than the model was created for");
    }
    if (step.positions.size() != step.token_ids.size() || step.slot_mapping.size() != step.token_ids.size() ||
        step.contexts.size() != step.token_ids.size() ||
        step.block_tables.size() != step.token_ids.size() * static_cast<size_t>(step.max_blocks_per_row)) {
      return InvalidArgumentError("the CUDA Llama forward: the step's arrays do not match its token count");
    }
    for (const int32_t id : step.token_ids) {
      if (id < 0 || id >= s.vocab) {
        return InvalidArgumentError("the CUDA Llama forward: a token id outside the vocabulary");
      }
    }
    for (const int32_t r : step.logit_rows) {
      if (r < 0 || r >= n) return InvalidArgumentError("the CUDA Llama forward: a logits row outside the step");
    }
    if (n == 0) return Status::Ok();
    PAGODA_RETURN_IF_ERROR(token_ids.Upload(step.token_ids.data(), step.token_ids.size_bytes(), stream));
    PAGODA_RETURN_IF_ERROR(positions.Upload(step.positions.data(), step.positions.size_bytes(), stream));
    PAGODA_RETURN_IF_ERROR(slots.Upload(step.slot_mapping.data(), step.slot_mapping.size_bytes(), stream));
    PAGODA_RETURN_IF_ERROR(contexts.Upload(step.contexts.data(), step.contexts.size_bytes(), stream));
    PAGODA_RETURN_IF_ERROR(tables.Upload(step.block_tables.data(), step.block_tables.size_bytes(), stream));
    const int32_t longest = *std::max_element(step.contexts.begin(), step.contexts.end());
    const PagedDecodeBatch batch{n, contexts.as<int32_t>(), tables.as<int32_t>(), step.max_blocks_per_row,
                                 std::max<int64_t>(longest, 1)};
    PAGODA_ASSIGN_OR_RETURN(const PagedDecodePlan plan, PlanPagedDecodeAttention(s.heads, Cache(layers.front()), batch));
    PAGODA_RETURN_IF_ERROR(workspace.Reserve(plan.workspace_bytes));
    const AttentionParams params{.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim))};

    PAGODA_RETURN_IF_ERROR(EmbeddingGather(token_embd.get(), DType::kBF16, s.vocab, s.hidden, token_ids.as<int32_t>(),
                                           n, 1.0f, x.as<float>(), stream));
    for (size_t i = 0; i < layers.size(); ++i) {
      PAGODA_RETURN_IF_ERROR(Layer(layers[i], n, i == 0, batch, params, plan.workspace_bytes));
    }
    PAGODA_RETURN_IF_ERROR(FusedAddRmsNorm(x.as<float>(), added.get(), DType::kF32, output_norm.as<float>(), n,
                                           s.hidden, s.rms_eps, h.get(), DType::kBF16, stream));
    // The rows asked for, side by side for the head's MatMul.
    const size_t row_bytes = static_cast<size_t>(s.hidden) * 2;
    for (int64_t r = 0; r < rows; ++r) {
      PAGODA_RETURN_IF_ERROR(CudaStatus(
          cudaMemcpyAsync(static_cast<char*>(head_in.get()) + r * row_bytes,
                          static_cast<const char*>(h.get()) + step.logit_rows[static_cast<size_t>(r)] * row_bytes,
                          row_bytes, cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync"));
    }
    return Gemm(*cublas, head_in.get(), DType::kBF16, rows, s.hidden, output.get(), s.vocab, logits.get(),
                DType::kF32);
  }

  Status Forward(const LlamaGpuStep& step, std::span<float> out) {
    if (out.size() != step.logit_rows.size() * static_cast<size_t>(shape.vocab)) {
      return InvalidArgumentError("the CUDA Llama forward: the logits span is not [logit rows][vocab]");
    }
    PAGODA_RETURN_IF_ERROR(Logits(step));
    PAGODA_RETURN_IF_ERROR(
        CudaStatus(cudaMemcpyAsync(out.data(), logits.get(), out.size_bytes(), cudaMemcpyDeviceToHost, stream),
                   "cudaMemcpyAsync"));
    return CudaStatus(cudaStreamSynchronize(stream), "the CUDA Llama forward");
  }

  Status ForwardAndSample(const LlamaGpuStep& step, std::span<const RowSampling> rows, std::span<int32_t> tokens) {
    if (rows.size() != step.logit_rows.size() || tokens.size() != step.logit_rows.size()) {
      return InvalidArgumentError("the CUDA Llama forward: one sampling setting and one token per logits row");
    }
    PAGODA_RETURN_IF_ERROR(Logits(step));
    PAGODA_RETURN_IF_ERROR(sampling.Upload(rows.data(), rows.size_bytes(), stream));
    PAGODA_RETURN_IF_ERROR(sampled.Reserve(tokens.size_bytes()));
    PAGODA_RETURN_IF_ERROR(SampleTokens(logits.as<float>(), static_cast<int64_t>(rows.size()), shape.vocab,
                                        sampling.as<RowSampling>(), sampled.as<int32_t>(), stream));
    PAGODA_RETURN_IF_ERROR(
        CudaStatus(cudaMemcpyAsync(tokens.data(), sampled.get(), tokens.size_bytes(), cudaMemcpyDeviceToHost, stream),
                   "cudaMemcpyAsync"));
    return CudaStatus(cudaStreamSynchronize(stream), "the CUDA Llama forward");
  }
};

LlamaGpuModel::LlamaGpuModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LlamaGpuModel::~LlamaGpuModel() = default;

StatusOr<std::unique_ptr<LlamaGpuModel>> LlamaGpuModel::Create(const LlamaGpuShape& shape,
                                                               const LlamaGpuWeights& weights, int64_t kv_blocks,
                                                               int64_t block_size, int64_t max_tokens,
                                                               int64_t max_logit_rows) {
  if (kv_blocks <= 0 || block_size <= 0 || max_tokens <= 0 || max_logit_rows <= 0) {
    return InvalidArgumentError("the CUDA Llama forward: sizes must be positive");
  }
  PAGODA_RETURN_IF_ERROR(Validate(shape, weights));
  auto impl = std::make_unique<Impl>();
  impl->shape = shape;
  impl->kv_blocks = kv_blocks;
  impl->block_size = block_size;
  impl->max_tokens = max_tokens;
  impl->max_logit_rows = max_logit_rows;
  PAGODA_RETURN_IF_ERROR(CudaStatus(cudaStreamCreate(&impl->stream), "cudaStreamCreate"));
  PAGODA_ASSIGN_OR_RETURN(CublasHandle cublas, CublasHandle::Create(impl->stream));
  impl->cublas = std::make_unique<CublasHandle>(std::move(cublas));
  PAGODA_RETURN_IF_ERROR(impl->Upload(weights));
  PAGODA_RETURN_IF_ERROR(impl->Allocate());
  return std::unique_ptr<LlamaGpuModel>(new LlamaGpuModel(std::move(impl)));
}

Status LlamaGpuModel::Forward(const LlamaGpuStep& step, std::span<float> logits) { return impl_->Forward(step, logits); }

Status LlamaGpuModel::ForwardAndSample(const LlamaGpuStep& step, std::span<const RowSampling> sampling,
                                       std::span<int32_t> tokens) {
  return impl_->ForwardAndSample(step, sampling, tokens);
}

}  // namespace pagoda::kernels::cuda
