// PrintGgufSummary: the `pagoda inspect` dump.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iomanip>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::gguf {
namespace {

// Enough to recognise a value; vocab arrays and chat templates are long.
constexpr size_t kMaxStringBytes = 64;
constexpr uint64_t kMaxArrayElements = 8;

// Cuts at most kMaxStringBytes, backing up to a UTF-8 character start so a
// multi-byte character is not split.
size_t AbbreviatedLength(std::string_view s) {
  if (s.size() <= kMaxStringBytes) return s.size();
  size_t n = kMaxStringBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80) --n;
  return n;
}

void AppendQuoted(std::string_view s, std::string& out) {
  const size_t shown = AbbreviatedLength(s);
  out += '"';
  for (char c : s.substr(0, shown)) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", u);
          out += buf;
        } else {
          out += c;  // printable ASCII and UTF-8 bytes
        }
    }
  }
  out += '"';
  if (shown < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
}

template <typename T>
void AppendShortest(T v, std::string& out) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, result.ptr);
}

void AppendValue(const Value& value, std::string& out) {
  switch (value.type()) {
    case ValueType::kString: AppendQuoted(*value.AsString(), out); return;
    case ValueType::kBool: out += *value.AsBool() ? "true" : "false"; return;
    // float32 is printed as a float so 1e-5 reads "1e-05", not its double expansion.
    case ValueType::kFloat32: AppendShortest(static_cast<float>(*value.AsFloat()), out); return;
    case ValueType::kFloat64: AppendShortest(*value.AsFloat(), out); return;
    case ValueType::kArray: {
      const uint64_t shown = std::min(value.size(), kMaxArrayElements);
      out += '[';
      for (uint64_t i = 0; i < shown; ++i) {
        if (i > 0) out += ", ";
        AppendValue(value.at(i), out);
      }
      if (shown < value.size()) out += ", ... " + std::to_string(value.size() - shown) + " more";
      out += ']';
      return;
    }
    default:  // integers
      if (auto i = value.AsInt()) {
        out += std::to_string(*i);
      } else {
        out += std::to_string(*value.AsUint());
      }
  }
}

std::string ShapeString(const TensorInfo& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(t.shape[i]);
  }
  return s + "]";
}

void PrintMetadata(const GgufFile& file, std::ostream& out) {
  out << "metadata: " << file.metadata().size() << " entries\n";
  for (const auto& [key, value] : file.metadata()) {
    std::string line = "  ";
    line += key;
    line += ": ";
    line += value.TypeName();
    if (value.type() == ValueType::kArray) {
      line += '[';
      line += std::to_string(value.size());
      line += ']';
    }
    line += " = ";
    AppendValue(value, line);
    out << line << '\n';
  }
}

constexpr int kTypeWidth = 6;  // the longest type name (IQ4_NL)

void PrintTensors(const GgufFile& file, std::ostream& out) {
  const auto& tensors = file.tensors();
  size_t name_width = 4;
  size_t shape_width = 5;
  for (const TensorInfo& t : tensors) {
    name_width = std::max(name_width, t.name.size());
    shape_width = std::max(shape_width, ShapeString(t).size());
  }
  out << "tensors: " << tensors.size() << '\n';
  out << std::left << "  " << std::setw(static_cast<int>(name_width)) << "name" << "  " << std::setw(kTypeWidth) << "type"
      << "  " << std::setw(static_cast<int>(shape_width)) << "shape" << "  " << std::right << std::setw(12)
      << "offset" << "  " << std::setw(12) << "bytes" << '\n';
  // Unsigned sums: well defined even for absurd (overlapping) tables.
  uint64_t total_elements = 0;
  uint64_t total_bytes = 0;
  for (const TensorInfo& t : tensors) {
    out << std::left << "  " << std::setw(static_cast<int>(name_width)) << t.name << "  " << std::setw(kTypeWidth)
        << DTypeName(t.dtype) << "  " << std::setw(static_cast<int>(shape_width)) << ShapeString(t) << "  "
        << std::right << std::setw(12) << t.offset << "  " << std::setw(12) << t.nbytes << '\n';
    total_elements += static_cast<uint64_t>(t.num_elements());
    total_bytes += t.nbytes;
  }
  out << "total: " << tensors.size() << " tensors, " << total_elements << " elements, " << total_bytes
      << " bytes\n";
  out << "by type: " << DescribeTypeMix(file) << '\n';
}

}  // namespace

std::string DescribeTypeMix(const GgufFile& file) {
  struct Share {
    std::string_view type;
    uint64_t tensors = 0;
    uint64_t bytes = 0;
  };
  std::vector<Share> shares;
  for (const TensorInfo& t : file.tensors()) {
    const std::string_view type = DTypeName(t.dtype);
    auto it = std::find_if(shares.begin(), shares.end(), [&](const Share& s) { return s.type == type; });
    if (it == shares.end()) it = shares.insert(shares.end(), Share{type});
    ++it->tensors;
    it->bytes += t.nbytes;
  }
  std::sort(shares.begin(), shares.end(), [](const Share& a, const Share& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.type < b.type;
  });
  std::string out;
  for (const Share& share : shares) {
    if (!out.empty()) out += "; ";
    out += std::string(share.type) + ' ' + std::to_string(share.tensors);
    out += (share.tensors == 1 ? " tensor " : " tensors ") + std::to_string(share.bytes) + " bytes";
  }
  return out;
}

void PrintGgufSummary(const GgufFile& file, std::ostream& out) {
  out << "GGUF version " << file.version() << ", " << file.file_size() << " bytes, alignment "
      << file.alignment() << ", tensor data at offset " << file.data_offset() << '\n';
  PrintMetadata(file, out);
  PrintTensors(file, out);
}

}  // namespace pagoda::gguf
