#include "pagoda/formats/safetensors/dtype.h"

#include <array>
#include <utility>

namespace pagoda::safetensors {
namespace {

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;
  size_t size;
};

// In the order of the format's definition (safetensors' Dtype enum).
constexpr std::array<DtypeInfo, 15> kDtypes = {{
    {Dtype::kBool, "BOOL", 1},
    {Dtype::kU8, "U8", 1},
    {Dtype::kI8, "I8", 1},
    {Dtype::kI16, "I16", 2},
    {Dtype::kU16, "U16", 2},
    {Dtype::kF16, "F16", 2},
    {Dtype::kBF16, "BF16", 2},
    {Dtype::kI32, "I32", 4},
    {Dtype::kU32, "U32", 4},
    {Dtype::kF32, "F32", 4},
    {Dtype::kF64, "F64", 8},
    {Dtype::kI64, "I64", 8},
    {Dtype::kU64, "U64", 8},
    {Dtype::kF8E4M3, "F8_E4M3", 1},
    {Dtype::kF8E5M2, "F8_E5M2", 1},
}};

const DtypeInfo& InfoOf(Dtype dtype) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.dtype == dtype) return info;
  }
  return kDtypes[0];  // unreachable: every enumerator is in the table
}

}  // namespace

std::optional<Dtype> ParseDtype(std::string_view name) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

std::string_view DtypeName(Dtype dtype) { return InfoOf(dtype).name; }

size_t DtypeSize(Dtype dtype) { return InfoOf(dtype).size; }

std::string KnownDtypeNames() {
  std::string names;
  for (const DtypeInfo& info : kDtypes) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

}  // namespace pagoda::safetensors
