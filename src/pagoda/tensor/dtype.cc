#include "pagoda/tensor/dtype.h"

namespace pagoda {

int64_t DTypeBlockElems(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16: return 1;
    case DType::kQ4_0:
    case DType::kQ4_1:
    case DType::kQ8_0:
    case DType::kQ8_1: return kQuantBlock;
  }
  return 1;
}

int64_t DTypeBlockBytes(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF16:
    case DType::kBF16: return 2;
    case DType::kQ4_0: return sizeof(BlockQ4_0);
    case DType::kQ4_1: return sizeof(BlockQ4_1);
    case DType::kQ8_0: return sizeof(BlockQ8_0);
    case DType::kQ8_1: return sizeof(BlockQ8_1);
  }
  return 0;
}

bool IsSupportedDType(uint32_t id) {
  switch (static_cast<DType>(id)) {
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16:
    case DType::kQ4_0:
    case DType::kQ4_1:
    case DType::kQ8_0: return true;
    default: return false;
  }
}

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "F32";
    case DType::kF16: return "F16";
    case DType::kBF16: return "BF16";
    case DType::kQ4_0: return "Q4_0";
    case DType::kQ4_1: return "Q4_1";
    case DType::kQ8_0: return "Q8_0";
    case DType::kQ8_1: return "Q8_1";
  }
  return "?";
}

}  // namespace pagoda
