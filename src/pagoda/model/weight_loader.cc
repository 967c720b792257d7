#include "pagoda/model/weight_loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda {
namespace {

StatusOr<const gguf::TensorInfo*> Find(const gguf::GgufFile& file, const std::string& name) {
  const gguf::TensorInfo* t = file.FindTensor(name);
  if (t == nullptr) return NotFoundError(fmt::format("model tensor '{}' is missing", name));
  return t;
}

}  // namespace

bool WeightLoader::Has(const std::string& name) const { return file_.FindTensor(name) != nullptr; }

StatusOr<kernels::MatrixView> WeightLoader::Matrix(const std::string& name, int64_t rows, int64_t cols) const {
  PAGODA_ASSIGN_OR_RETURN(const gguf::TensorInfo* t, Find(file_, name));
  if (t->shape.size() != 2 || t->shape[0] != cols || t->shape[1] != rows) {
    return InvalidArgumentError(fmt::format("model tensor '{}' has shape [{}], expected [{}, {}]", name,
                                            fmt::join(t->shape, ", "), cols, rows));
  }
  kernels::MatrixView view{t->dtype, t->data, rows, cols};
  if (name.ends_with(".weight")) {
    PAGODA_ASSIGN_OR_RETURN(view.input_order, InputOrder(name.substr(0, name.size() - 7) + ".input_order", cols));
  }
  return view;
}

StatusOr<const int32_t*> WeightLoader::InputOrder(const std::string& name, int64_t cols) const {
  const gguf::TensorInfo* t = file_.FindTensor(name);
  if (t == nullptr) return nullptr;
  if (t->dtype != DType::kI32 || t->shape != std::vector<int64_t>{cols}) {
    return InvalidArgumentError(fmt::format("model tensor '{}' must be I32 [{}] (is {} [{}])", name, cols,
                                            DTypeName(t->dtype), fmt::join(t->shape, ", ")));
  }
  if (reinterpret_cast<uintptr_t>(t->data) % alignof(int32_t) != 0) {
    return DataLossError(fmt::format("model tensor '{}' is misaligned", name));
  }
  const auto* order = reinterpret_cast<const int32_t*>(t->data);
  std::vector<bool> seen(static_cast<size_t>(cols));
  for (int64_t k = 0; k < cols; ++k) {
    if (order[k] < 0 || order[k] >= cols || seen[static_cast<size_t>(order[k])]) {
      return InvalidArgumentError(fmt::format("model tensor '{}' is not a permutation of [0, {})", name, cols));
    }
    seen[static_cast<size_t>(order[k])] = true;
  }
  return order;
}

StatusOr<std::vector<kernels::MatrixView>> WeightLoader::Experts(const std::string& name, int64_t n, int64_t rows,
                                                                 int64_t cols) const {
  if (!Has(name)) return ExpertsOneByOne(name, n, rows, cols);
  PAGODA_ASSIGN_OR_RETURN(const gguf::TensorInfo* t, Find(file_, name));
  if (t->shape.size() != 3 || t->shape[0] != cols || t->shape[1] != rows || t->shape[2] != n) {
    return InvalidArgumentError(fmt::format("model tensor '{}' has shape [{}], expected [{}, {}, {}]", name,
                                            fmt::join(t->shape, ", "), cols, rows, n));
  }
  const int64_t stride = rows * DTypeRowBytes(t->dtype, cols);
  std::vector<kernels::MatrixView> experts;
  for (int64_t e = 0; e < n; ++e) {
    experts.push_back({t->dtype, static_cast<const uint8_t*>(t->data) + e * stride, rows, cols});
  }
  return experts;
}

// "blk.N.ffn_gate_exps.weight" -> "blk.N.ffn_gate.E.weight" for each expert E.
StatusOr<std::vector<kernels::MatrixView>> WeightLoader::ExpertsOneByOne(const std::string& name, int64_t n,
                                                                         int64_t rows, int64_t cols) const {
  constexpr std::string_view kStacked = "_exps.weight";
  if (!name.ends_with(kStacked)) return NotFoundError(fmt::format("model tensor '{}' is missing", name));
  const std::string stem = name.substr(0, name.size() - kStacked.size());
  if (!Has(stem + ".0.weight")) return NotFoundError(fmt::format("model tensor '{}' is missing", name));
  std::vector<kernels::MatrixView> experts;
  for (int64_t e = 0; e < n; ++e) {
    PAGODA_ASSIGN_OR_RETURN(kernels::MatrixView m, Matrix(fmt::format("{}.{}.weight", stem, e), rows, cols));
    experts.push_back(m);
  }
  return experts;
}

StatusOr<const float*> WeightLoader::F32Vector(const std::string& name, int64_t n) const {
  PAGODA_ASSIGN_OR_RETURN(const gguf::TensorInfo* t, Find(file_, name));
  if (t->dtype != DType::kF32 || t->num_elements() != n) {
    return InvalidArgumentError(fmt::format("model tensor '{}' must be F32 with {} elements (is {} with {})", name,
                                            n, DTypeName(t->dtype), t->num_elements()));
  }
  // GGUF aligns tensor data (32 bytes by default), so the float view is aligned.
  if (reinterpret_cast<uintptr_t>(t->data) % alignof(float) != 0) {
    return DataLossError(fmt::format("model tensor '{}' is misaligned", name));
  }
  return reinterpret_cast<const float*>(t->data);
}

kernels::MatrixView SliceRows(const kernels::MatrixView& m, int64_t begin, int64_t count) {
  PAGODA_CHECK(begin >= 0 && count >= 0 && begin + count <= m.rows);
  // Any repacked copy is left behind: its panels need not start at `begin`.
  return {m.dtype, static_cast<const uint8_t*>(m.data) + begin * DTypeRowBytes(m.dtype, m.cols), count, m.cols,
          m.input_order};
}

}  // namespace pagoda
