// The ends of every decoder: the token embedding that starts the residual
// stream, and the final norm and LM head that turn it into logits.
#pragma once

#include <vector>

#include "pagoda/base/cache_line_vector.h"
#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/model/layers/step.h"
#include "pagoda/model/model_config.h"
#include "pagoda/model/weight_loader.h"

namespace pagoda::layers {

class DecoderHead {
 public:
  // token_embd, output_norm, and output (or the embedding again, for tied
  // weights: SmolLM2, Gemma).
  Status Load(const WeightLoader& w, const ModelConfig& c);

  // x [tokens][hidden] = the embeddings of the step's tokens.
  void Embed(const Step& step, float* x) const;
  // logits [logit rows][vocab] from the first step.rows() rows of x (already
  // narrowed to the logit rows), through RMSNorm and the LM head.
  void Logits(const Step& step, const float* x, float eps, float* logits);
  // Backs the buffers of up to `rows` logits rows (Model::ReserveActivations).
  void Reserve(int64_t rows);
  // The LM head, for repacking (the embedding is read by rows, in place).
  kernels::MatrixView& output() { return output_; }

 private:
  kernels::MatrixView token_embd_{};
  kernels::MatrixView output_{};
  const float* output_norm_ = nullptr;
  CacheLineVector<float> normed_;
};

}  // namespace pagoda::layers
