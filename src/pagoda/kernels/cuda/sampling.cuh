// Token selection on CUDA, so that only token ids cross to the host:
// greedy, and random sampling with temperature, top-k and top-p under the
// CPU sampler's rules (sampler/top_k_top_p.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pagoda/base/status.h"

namespace pagoda::kernels::cuda {

// One row's sampling settings, as the engine's sampler takes them.
struct RowSampling {
  // 0 or less: greedy (the highest logit, the lowest id on ties). Otherwise
  // the logits are divided by it.
  float temperature;
  // 0 or less, or the vocabulary size and more: off. Keeps every token tied
  // with the k-th largest logit.
  int32_t top_k;
  // 1: off. Of the top-k survivors, most likely first (the lower id first
  // on ties), keeps each while the probability mass before it is below
  // top_p of their total.
  float top_p;
  // The row's uniform draw in [0, 1): the first survivor, in id order, at
  // which the survivors' running mass passes uniform times their total.
  float uniform;
};

// tokens[r] for each row of logits ([rows][vocab] f32) under rows[r]
// ([rows], device memory); -1 where every logit is -inf. Sums are f32 and
// reduced in an order fixed by vocab, so a row's token does not depend on
// the other rows. NaN logits are the caller's to keep out. Device memory;
// queued on `stream`.
Status SampleTokens(const float* logits, int64_t rows, int64_t vocab, const RowSampling* sampling, int32_t* tokens,
                    cudaStream_t stream);

}  // namespace pagoda::kernels::cuda
