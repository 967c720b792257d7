#include "pagoda/formats/gguf/tensor_info_reader.h"

#include <limits>
#include <string>
#include <string_view>

namespace pagoda::gguf {
namespace {

constexpr uint64_t kMaxDim = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

std::string Quoted(std::string_view name) { return "tensor '" + std::string(name) + "'"; }

// Row length must be whole blocks; nbytes = rows * bytes per row, checked
// for overflow since both factors come from the file.
StatusOr<uint64_t> TensorBytes(const TensorInfo& t, const std::string& context) {
  const int64_t block_elems = DTypeBlockElems(t.dtype);
  if (t.shape[0] % block_elems != 0) {
    return DataLossError(context + ": row length " + std::to_string(t.shape[0]) + " is not a multiple of the " +
                         std::string(DTypeName(t.dtype)) + " block size " + std::to_string(block_elems));
  }
  const uint64_t blocks_per_row = static_cast<uint64_t>(t.shape[0] / block_elems);
  const uint64_t rows = static_cast<uint64_t>(t.num_elements() / t.shape[0]);
  uint64_t row_bytes = 0;
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(blocks_per_row, static_cast<uint64_t>(DTypeBlockBytes(t.dtype)), &row_bytes) ||
      __builtin_mul_overflow(row_bytes, rows, &nbytes)) {
    return DataLossError(context + ": byte size overflows 64 bits");
  }
  return nbytes;
}

}  // namespace

StatusOr<TensorInfo> ReadTensorInfo(ByteReader& reader, uint64_t index) {
  TensorInfo t;
  auto name = reader.ReadString();
  if (!name.ok()) return Annotate(name.status(), "tensor info #" + std::to_string(index) + " name");
  t.name = std::string(*name);
  const std::string context = Quoted(t.name);

  auto n_dims = reader.ReadU32();
  if (!n_dims.ok()) return Annotate(n_dims.status(), context);
  if (*n_dims == 0 || *n_dims > kMaxTensorDims) {
    return DataLossError(context + ": " + std::to_string(*n_dims) + " dimensions, expected 1 to " +
                         std::to_string(kMaxTensorDims));
  }
  int64_t elements = 1;
  for (uint32_t i = 0; i < *n_dims; ++i) {
    auto dim = reader.ReadU64();
    if (!dim.ok()) return Annotate(dim.status(), context);
    if (*dim == 0 || *dim > kMaxDim) {
      return DataLossError(context + ": dimension " + std::to_string(i) + " is " + std::to_string(*dim) +
                           ", expected 1 to " + std::to_string(kMaxDim));
    }
    if (__builtin_mul_overflow(elements, static_cast<int64_t>(*dim), &elements)) {
      return DataLossError(context + ": element count overflows 64 bits");
    }
    t.shape.push_back(static_cast<int64_t>(*dim));
  }

  auto type_id = reader.ReadU32();
  if (!type_id.ok()) return Annotate(type_id.status(), context);
  if (!IsKnownStorageDType(*type_id)) {
    return UnimplementedError(context + ": tensor type id " + std::to_string(*type_id) +
                              " is not supported (Pagoda reads " + std::string(KnownStorageDTypeNames()) + ")");
  }
  t.dtype = static_cast<DType>(*type_id);
  PAGODA_ASSIGN_OR_RETURN(t.nbytes, TensorBytes(t, context));

  auto offset = reader.ReadU64();
  if (!offset.ok()) return Annotate(offset.status(), context);
  t.offset = *offset;
  return t;
}

Status PlaceTensor(TensorInfo& t, std::span<const uint8_t> file, uint64_t data_offset, uint64_t alignment) {
  const std::string context = Quoted(t.name);
  if (t.offset % alignment != 0) {
    return DataLossError(context + ": offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                         std::to_string(alignment));
  }
  uint64_t begin = 0;
  uint64_t end = 0;
  if (__builtin_add_overflow(data_offset, t.offset, &begin) || __builtin_add_overflow(begin, t.nbytes, &end)) {
    return DataLossError(context + ": offset " + std::to_string(t.offset) + " plus " + std::to_string(t.nbytes) +
                         " bytes overflows 64 bits");
  }
  if (end > file.size()) {
    return DataLossError(context + ": data [" + std::to_string(begin) + ", " + std::to_string(end) +
                         ") extends past end of file (size " + std::to_string(file.size()) + ")");
  }
  t.data = file.data() + begin;
  return Status::Ok();
}

}  // namespace pagoda::gguf
