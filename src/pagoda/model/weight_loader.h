// Looks up checkpoint tensors by name and checks their shape and type, so a
// model built from them can trust every view it holds.
#pragma once

#include <string>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::gguf {
class GgufFile;
}

namespace pagoda {

class WeightLoader {
 public:
  explicit WeightLoader(const gguf::GgufFile& file) : file_(file) {}

  // A [rows][cols] matrix (GGUF shape {cols, rows}) of any storage type: the
  // GGUF reader admits only types the kernels run. "X.weight" takes the
  // input order "X.input_order" (I32 [cols], a permutation) where the file
  // has one, as act-order GPTQ layers do.
  StatusOr<kernels::MatrixView> Matrix(const std::string& name, int64_t rows, int64_t cols) const;
  // A stack of n [rows][cols] matrices (GGUF shape {cols, rows, n}), one view
  // per matrix: the experts of a mixture-of-experts layer. Where the file
  // has no stack, the experts' own tensors: "blk.N.ffn_gate_exps.weight" is
  // read as "blk.N.ffn_gate.E.weight" for E in [0, n), as older Mixtral GGUF
  // files and Hugging Face checkpoints store them.
  StatusOr<std::vector<kernels::MatrixView>> Experts(const std::string& name, int64_t n, int64_t rows,
                                                     int64_t cols) const;
  // An F32 vector of n elements, such as a norm weight.
  StatusOr<const float*> F32Vector(const std::string& name, int64_t n) const;
  bool Has(const std::string& name) const;

 private:
  // The permutation `name` of [0, cols), or null when the file has none.
  StatusOr<const int32_t*> InputOrder(const std::string& name, int64_t cols) const;
  StatusOr<std::vector<kernels::MatrixView>> ExpertsOneByOne(const std::string& name, int64_t n, int64_t rows,
                                                             int64_t cols) const;

  const gguf::GgufFile& file_;
};

// Rows [begin, begin + count) of m: a fused weight (Phi-3's attn_qkv, its
// gate-and-up ffn_up) read as its parts without copying.
kernels::MatrixView SliceRows(const kernels::MatrixView& m, int64_t begin, int64_t count);

}  // namespace pagoda
