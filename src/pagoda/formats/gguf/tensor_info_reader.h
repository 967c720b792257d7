// Reads and validates tensor info records of a GGUF file.
#pragma once

#include <cstdint>
#include <span>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/byte_reader.h"
#include "pagoda/formats/gguf/tensor_info.h"

namespace pagoda::gguf {

inline constexpr uint32_t kMaxTensorDims = 4;  // GGML_MAX_DIMS

// Fewest bytes one tensor info can take: name length, dims count, one dim,
// type, offset.
inline constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;

// Reads tensor info record #`index`: checks the shape (1 to 4 dims, each > 0,
// no overflow), that the type is one Pagoda loads and that rows are whole
// blocks, and computes nbytes. Leaves `data` unset.
StatusOr<TensorInfo> ReadTensorInfo(ByteReader& reader, uint64_t index);

// Checks that the tensor's offset is aligned and its bytes lie inside `file`,
// whose data section starts at `data_offset`; then points `data` at them.
Status PlaceTensor(TensorInfo& tensor, std::span<const uint8_t> file, uint64_t data_offset, uint64_t alignment);

}  // namespace pagoda::gguf
