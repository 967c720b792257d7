// Writes GGUF v3 files: the metadata and tensor table up front, then each
// tensor's data, aligned, produced one tensor at a time so that a file
// larger than memory can be written (requantization streams it).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/gguf_value.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::gguf {

struct TensorToWrite {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // GGML order, as in TensorInfo
};

// Fills `bytes` with tensor `index`'s data, exactly the bytes its type and
// shape take; called once per tensor, in table order.
using TensorDataFn = std::function<Status(size_t index, std::vector<uint8_t>& bytes)>;

// Writes the file at `path` (replacing it). `metadata` is written in order;
// general.alignment, when present, sets the data alignment (32 otherwise).
// On error the partial file is removed.
Status WriteGguf(const std::string& path, const std::vector<std::pair<std::string, Value>>& metadata,
                 const std::vector<TensorToWrite>& tensors, const TensorDataFn& data);

}  // namespace pagoda::gguf
