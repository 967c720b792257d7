#include "pagoda/quantize/file_type.h"

#include <array>
#include <cctype>

namespace pagoda::quantize {
namespace {

struct FileTypeInfo {
  FileType type;
  std::string_view name;
  DType tensor_type;
};

constexpr std::array<FileTypeInfo, 18> kFileTypes = {{
    {FileType::kF32, "F32", DType::kF32},
    {FileType::kF16, "F16", DType::kF16},
    {FileType::kBF16, "BF16", DType::kBF16},
    {FileType::kQ4_0, "Q4_0", DType::kQ4_0},
    {FileType::kQ4_1, "Q4_1", DType::kQ4_1},
    {FileType::kQ5_0, "Q5_0", DType::kQ5_0},
    {FileType::kQ5_1, "Q5_1", DType::kQ5_1},
    {FileType::kQ8_0, "Q8_0", DType::kQ8_0},
    {FileType::kQ2_K, "Q2_K", DType::kQ2_K},
    {FileType::kQ3_K_M, "Q3_K_M", DType::kQ3_K},
    {FileType::kQ3_K_L, "Q3_K_L", DType::kQ3_K},
    {FileType::kQ4_K_S, "Q4_K_S", DType::kQ4_K},
    {FileType::kQ4_K_M, "Q4_K_M", DType::kQ4_K},
    {FileType::kQ5_K_S, "Q5_K_S", DType::kQ5_K},
    {FileType::kQ5_K_M, "Q5_K_M", DType::kQ5_K},
    {FileType::kQ6_K, "Q6_K", DType::kQ6_K},
    {FileType::kIQ4_NL, "IQ4_NL", DType::kIQ4_NL},
    {FileType::kIQ4_XS, "IQ4_XS", DType::kIQ4_XS},
}};

const FileTypeInfo& Info(FileType t) {
  for (const FileTypeInfo& info : kFileTypes) {
    if (info.type == t) return info;
  }
  return kFileTypes[0];  // every enumerator is in the table
}

bool SameIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace

std::optional<FileType> ParseFileType(std::string_view name) {
  for (const FileTypeInfo& info : kFileTypes) {
    if (SameIgnoringCase(info.name, name)) return info.type;
  }
  return std::nullopt;
}

std::string_view FileTypeName(FileType t) { return Info(t).name; }

std::string SupportedFileTypeNames() {
  std::string out;
  for (const FileTypeInfo& info : kFileTypes) {
    if (!out.empty()) out += ", ";
    out += info.name;
  }
  return out;
}

DType DefaultTensorType(FileType t) { return Info(t).tensor_type; }

}  // namespace pagoda::quantize
