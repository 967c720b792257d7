// Random paged decode-attention problems for the CUDA kernel tests: K/V
// blocks scattered over a shuffled arena (NaN in every slot no sequence
// owns), the CPU scalar reference's answer, the GPU's answer, and their
// comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda::testing {

struct DecodeCase {
  DType dtype;  // of q, K/V and the output: F32 or BF16
  int64_t num_kv_heads;
  int64_t group;  // query heads per KV head
  int64_t head_dim;
  int64_t block_size;
  std::vector<int32_t> seq_lens;  // 0: a padding row
  AttentionParams params;
  uint32_t seed;
};

std::string Describe(const DecodeCase& c);

// Values as stored: rounded to bf16 for a BF16 case, so that the f32
// reference sees exactly what the GPU reads.
struct DecodeProblem {
  DecodeCase c;
  int64_t num_heads;
  int64_t num_blocks;
  int64_t max_blocks_per_seq;
  int64_t max_seq_len;
  // [num_seqs][max_blocks_per_seq]; -1 past a sequence's blocks and for
  // blocks that left its sliding window (never to be read).
  std::vector<int32_t> block_tables;
  std::vector<float> k, v;  // [num_blocks][block_size][num_kv_heads][head_dim]
  std::vector<float> q;     // [num_seqs][num_heads][head_dim]
};

DecodeProblem MakeDecodeProblem(const DecodeCase& c);

// reference::PagedAttention, one sequence per thread; zeros for padding rows.
std::vector<float> ReferenceOutput(const DecodeProblem& p);

// cuda::PagedDecodeAttention on the problem stored in c.dtype, widened to f32.
std::vector<float> GpuOutput(const DecodeProblem& p);

// Every element within rtol times the largest |reference| of its
// (sequence, head) row; a padding row must be exactly zero.
// The largest |gpu - reference| over the largest |reference| of its row.
float WorstRelativeError(const DecodeProblem& p, const std::vector<float>& gpu, const std::vector<float>& reference);

::testing::AssertionResult OutputsClose(const DecodeProblem& p, const std::vector<float>& gpu,
                                        const std::vector<float>& reference, float rtol);

}  // namespace pagoda::kernels::cuda::testing
