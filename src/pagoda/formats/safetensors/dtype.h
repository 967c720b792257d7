// The element types the safetensors format defines, as named in its header
// ("BF16", "F8_E4M3", ...). Conversion to compute types is the model
// loader's job: this reader only checks sizes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pagoda::safetensors {

enum class Dtype {
  kBool,
  kU8,
  kI8,
  kI16,
  kU16,
  kF16,
  kBF16,
  kI32,
  kU32,
  kF32,
  kF64,
  kI64,
  kU64,
  kF8E4M3,
  kF8E5M2,
};

// The header's spelling of `name`, or nullopt for a name the format does not define.
std::optional<Dtype> ParseDtype(std::string_view name);
std::string_view DtypeName(Dtype dtype);
size_t DtypeSize(Dtype dtype);  // bytes per element
// "BOOL, U8, ..., F8_E5M2": for errors that name what is accepted.
std::string KnownDtypeNames();

}  // namespace pagoda::safetensors
