#include "pagoda/model/layers/decoder_head.h"

namespace pagoda::layers {

Status DecoderHead::Load(const WeightLoader& w, const ModelConfig& c) {
  PAGODA_ASSIGN_OR_RETURN(token_embd_, w.Matrix("token_embd.weight", c.vocab_size, c.hidden_size));
  PAGODA_ASSIGN_OR_RETURN(output_norm_, w.F32Vector("output_norm.weight", c.hidden_size));
  if (w.Has("output.weight")) {
    PAGODA_ASSIGN_OR_RETURN(output_, w.Matrix("output.weight", c.vocab_size, c.hidden_size));
  } else {
    output_ = token_embd_;
  }
  return Status::Ok();
}

void DecoderHead::Embed(const Step& step, float* x) const {
  kernels::EmbeddingLookup(step.ctx(), token_embd_, step.batch().token_ids.data(), step.tokens(), x);
}

void DecoderHead::Reserve(int64_t rows) { ReserveRows(normed_, rows, token_embd_.cols); }

void DecoderHead::Logits(const Step& step, const float* x, float eps, float* logits) {
  const int64_t rows = step.logit_rows();
  if (rows == 0) return;
  float* normed = Rows(normed_, rows, token_embd_.cols);
  kernels::RmsNorm(step.ctx(), x, output_norm_, rows, token_embd_.cols, eps, normed);
  kernels::MatMul(step.ctx(), normed, rows, output_, logits);
}

}  // namespace pagoda::layers
