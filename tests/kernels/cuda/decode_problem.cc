#include "decode_problem.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cuda_test_support.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cuda/paged_decode_attention.cuh"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::cuda::testing {
namespace {

// Uniform in [-1, 1) from splitmix64: arenas hold tens of millions of
// values, too many for std::uniform_real_distribution to fill quickly.
class Uniform {
 public:
  explicit Uniform(uint64_t seed) : state_(seed) {}
  float operator()() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }

 private:
  uint64_t state_;
};

float Stored(DType dtype, float x) { return dtype == DType::kBF16 ? BF16ToF32(F32ToBF16(x)) : x; }

// The first position a sequence of length len attends (as the kernels' window).
int64_t FirstAttended(int64_t len, int64_t window) { return window > 0 ? std::max<int64_t>(0, len - window) : 0; }

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

float LargestMagnitude(const float* x, int64_t n) {
  float largest = 0.0f;
  for (int64_t i = 0; i < n; ++i) largest = std::max(largest, std::fabs(x[i]));
  return largest;
}

DeviceBuffer Upload(const std::vector<float>& values, DType dtype) {
  if (dtype == DType::kF32) return DeviceBuffer(values);
  std::vector<bf16_bits> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), F32ToBF16);
  return DeviceBuffer(bits);
}

std::vector<float> Download(const DeviceBuffer& buffer, DType dtype) {
  if (dtype == DType::kF32) return buffer.ToHost<float>();
  const std::vector<bf16_bits> bits = buffer.ToHost<bf16_bits>();
  std::vector<float> values(bits.size());
  std::transform(bits.begin(), bits.end(), values.begin(), BF16ToF32);
  return values;
}

// Gives each sequence's attended blocks a random arena block and fills their
// attended positions; everything else stays NaN.
void FillArena(DecodeProblem& p) {
  const DecodeCase& c = p.c;
  const int64_t row = c.num_kv_heads * c.head_dim;
  std::vector<int32_t> ids(static_cast<size_t>(p.num_blocks));
  std::iota(ids.begin(), ids.end(), 0);
  std::mt19937 rng(c.seed);
  std::shuffle(ids.begin(), ids.end(), rng);
  p.k.assign(static_cast<size_t>(p.num_blocks * c.block_size * row), std::numeric_limits<float>::quiet_NaN());
  p.v = p.k;
  Uniform uniform(c.seed * 0x100000001b3ull + 1);
  size_t next_id = 0;
  for (size_t s = 0; s < c.seq_lens.size(); ++s) {
    const int64_t len = c.seq_lens[s];
    if (len <= 0) continue;
    const int64_t first = FirstAttended(len, c.params.sliding_window);
    for (int64_t b = first / c.block_size; b < CeilDiv(len, c.block_size); ++b) {
      const int32_t id = ids[next_id++];
      p.block_tables[s * p.max_blocks_per_seq + b] = id;
      for (int64_t pos = std::max(first, b * c.block_size); pos < std::min(len, (b + 1) * c.block_size); ++pos) {
        const int64_t slot = int64_t{id} * c.block_size + pos % c.block_size;
        for (int64_t i = 0; i < row; ++i) {
          p.k[slot * row + i] = Stored(c.dtype, uniform());
          p.v[slot * row + i] = Stored(c.dtype, uniform());
        }
      }
    }
  }
}

}  // namespace

std::string Describe(const DecodeCase& c) {
  std::ostringstream s;
  s << DTypeName(c.dtype) << " kv_heads " << c.num_kv_heads << " group " << c.group << " head_dim " << c.head_dim
    << " block " << c.block_size << " scale " << c.params.scale << " window " << c.params.sliding_window
    << " softcap " << c.params.softcap << " seed " << c.seed << " seq_lens";
  for (int32_t len : c.seq_lens) s << ' ' << len;
  return s.str();
}

DecodeProblem MakeDecodeProblem(const DecodeCase& c) {
  DecodeProblem p;
  p.c = c;
  p.num_heads = c.group * c.num_kv_heads;
  const int64_t num_seqs = static_cast<int64_t>(c.seq_lens.size());
  p.max_seq_len = std::max<int64_t>(0, *std::max_element(c.seq_lens.begin(), c.seq_lens.end()));
  p.max_blocks_per_seq = CeilDiv(p.max_seq_len, c.block_size) + 1;  // a spare entry, never read
  int64_t owned = 0;
  for (int32_t len : c.seq_lens) {
    if (len > 0) owned += CeilDiv(len, c.block_size) - FirstAttended(len, c.params.sliding_window) / c.block_size;
  }
  p.num_blocks = owned + 3;  // and a few blocks no sequence owns
  p.block_tables.assign(static_cast<size_t>(num_seqs * p.max_blocks_per_seq), -1);
  FillArena(p);
  Uniform uniform(c.seed * 0x9e3779b1ull + 7);
  p.q.resize(static_cast<size_t>(num_seqs * p.num_heads * c.head_dim));
  for (float& x : p.q) x = Stored(c.dtype, uniform());
  return p;
}

std::vector<float> ReferenceOutput(const DecodeProblem& p) {
  const int64_t num_seqs = static_cast<int64_t>(p.c.seq_lens.size());
  const int64_t width = p.num_heads * p.c.head_dim;
  std::vector<float> out(static_cast<size_t>(num_seqs * width), 0.0f);
  const KvCacheLayer cache{DType::kF32, const_cast<float*>(p.k.data()), const_cast<float*>(p.v.data()),
                           p.num_blocks, p.c.block_size, p.c.num_kv_heads, p.c.head_dim};
  std::atomic<int64_t> next{0};
  auto work = [&] {
    const int32_t query_start_loc[2] = {0, 1};
    for (int64_t s = next++; s < num_seqs; s = next++) {
      if (p.c.seq_lens[s] <= 0) continue;
      const AttentionBatch one{1, query_start_loc, &p.c.seq_lens[s], p.block_tables.data() + s * p.max_blocks_per_seq,
                               p.max_blocks_per_seq};
      reference::PagedAttention(p.q.data() + s * width, p.num_heads, cache, one, p.c.params, out.data() + s * width);
    }
  };
  const int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, num_seqs);
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return out;
}

std::vector<float> GpuOutput(const DecodeProblem& p) {
  const DecodeCase& c = p.c;
  const int64_t num_seqs = static_cast<int64_t>(c.seq_lens.size());
  const DeviceBuffer q = Upload(p.q, c.dtype);
  const DeviceBuffer k = Upload(p.k, c.dtype);
  const DeviceBuffer v = Upload(p.v, c.dtype);
  const DeviceBuffer seq_lens(c.seq_lens);
  const DeviceBuffer tables(p.block_tables);
  const KvCacheLayer cache{c.dtype, k.get(), v.get(), p.num_blocks, c.block_size, c.num_kv_heads, c.head_dim};
  const PagedDecodeBatch batch{num_seqs, seq_lens.as<int32_t>(), tables.as<int32_t>(), p.max_blocks_per_seq,
                               p.max_seq_len};
  const StatusOr<PagedDecodePlan> plan = PlanPagedDecodeAttention(p.num_heads, cache, batch);
  if (!plan.ok()) throw std::runtime_error(plan.status().ToString());
  const DeviceBuffer workspace(plan->workspace_bytes);
  const size_t out_bytes = static_cast<size_t>(num_seqs * p.num_heads * c.head_dim) * static_cast<size_t>(DTypeBlockBytes(c.dtype));
  const DeviceBuffer out(out_bytes);
  // All-ones bytes are NaN in f32 and bf16: an output never written shows.
  CudaCheck(cudaMemset(out.get(), 0xff, out_bytes), "cudaMemset");
  const Status status = PagedDecodeAttention(q.get(), p.num_heads, cache, batch, c.params, out.get(), workspace.get(),
                                             plan->workspace_bytes, /*stream=*/nullptr);
  if (!status.ok()) throw std::runtime_error(status.ToString());
  CudaCheck(cudaDeviceSynchronize(), "paged decode attention");
  return Download(out, c.dtype);
}

float WorstRelativeError(const DecodeProblem& p, const std::vector<float>& gpu, const std::vector<float>& reference) {
  const int64_t dim = p.c.head_dim;
  float worst = 0.0f;
  for (size_t row = 0; row * dim < reference.size(); ++row) {
    const float largest = LargestMagnitude(reference.data() + row * dim, dim);
    if (largest == 0.0f) continue;
    for (int64_t d = 0; d < dim; ++d) {
      worst = std::max(worst, std::fabs(gpu[row * dim + d] - reference[row * dim + d]) / largest);
    }
  }
  return worst;
}

::testing::AssertionResult OutputsClose(const DecodeProblem& p, const std::vector<float>& gpu,
                                        const std::vector<float>& reference, float rtol) {
  if (gpu.size() != reference.size()) return ::testing::AssertionFailure() << "sizes differ";
  const int64_t dim = p.c.head_dim;
  int64_t bad = 0;
  std::ostringstream first;
  for (size_t row = 0; row * dim < reference.size(); ++row) {
    const float* ref = reference.data() + row * dim;
    const float* got = gpu.data() + row * dim;
    const float tolerance = rtol * LargestMagnitude(ref, dim);
    for (int64_t d = 0; d < dim; ++d) {
      if (std::fabs(got[d] - ref[d]) <= tolerance) continue;  // false for NaN too
      if (bad++ == 0) {
        const size_t seq = row / static_cast<size_t>(p.num_heads);
        first << "sequence " << seq << " (length " << p.c.seq_lens[seq] << ") head " << row % p.num_heads << " dim "
              << d << ": gpu " << got[d] << ", reference " << ref[d] << ", tolerance " << tolerance;
      }
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << gpu.size() << " outputs off; first: " << first.str();
}

}  // namespace pagoda::kernels::cuda::testing
