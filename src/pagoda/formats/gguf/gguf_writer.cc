#include "pagoda/formats/gguf/gguf_writer.h"

#include <cstdio>
#include <cstring>
#include <fstream>

namespace pagoda::gguf {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" little-endian
constexpr uint32_t kVersion = 3;
constexpr uint64_t kDefaultAlignment = 32;

// Little-endian encoding into a growing buffer (GGUF is little-endian, and
// so is every machine Pagoda builds for).
class Encoder {
 public:
  template <typename T>
  void Put(T v) {
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
  }
  void PutString(std::string_view s) {
    Put<uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void Pad(uint64_t alignment) { bytes_.resize((bytes_.size() + alignment - 1) / alignment * alignment, 0); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

void PutScalar(Encoder& e, const Value& v) {
  switch (v.type()) {
    case ValueType::kUint8: e.Put(static_cast<uint8_t>(*v.AsUint())); break;
    case ValueType::kInt8: e.Put(static_cast<int8_t>(*v.AsInt())); break;
    case ValueType::kUint16: e.Put(static_cast<uint16_t>(*v.AsUint())); break;
    case ValueType::kInt16: e.Put(static_cast<int16_t>(*v.AsInt())); break;
    case ValueType::kUint32: e.Put(static_cast<uint32_t>(*v.AsUint())); break;
    case ValueType::kInt32: e.Put(static_cast<int32_t>(*v.AsInt())); break;
    case ValueType::kUint64: e.Put(*v.AsUint()); break;
    case ValueType::kInt64: e.Put(*v.AsInt()); break;
    case ValueType::kFloat32: e.Put(static_cast<float>(*v.AsFloat())); break;  // exact: read as float32
    case ValueType::kFloat64: e.Put(*v.AsFloat()); break;
    case ValueType::kBool: e.Put(static_cast<uint8_t>(*v.AsBool() ? 1 : 0)); break;
    case ValueType::kString: e.PutString(*v.AsString()); break;
    case ValueType::kArray: break;  // PutValue handles arrays
  }
}

void PutValue(Encoder& e, const Value& v) {
  if (v.type() != ValueType::kArray) {
    PutScalar(e, v);
    return;
  }
  e.Put(static_cast<uint32_t>(v.element_type()));
  e.Put<uint64_t>(v.size());
  if (v.element_type() == ValueType::kString) {
    for (std::string_view s : v.strings()) e.PutString(s);
    return;
  }
  for (uint64_t i = 0; i < v.size(); ++i) {
    PutValue(e, v.at(i));  // an inner array writes its own element type and count
  }
}

uint64_t Alignment(const std::vector<std::pair<std::string, Value>>& metadata) {
  for (const auto& [key, value] : metadata) {
    if (key == "general.alignment" && value.AsUint() && *value.AsUint() > 0) return *value.AsUint();
  }
  return kDefaultAlignment;
}

uint64_t TensorBytes(const TensorToWrite& t) {
  int64_t elements = 1;
  for (size_t d = 1; d < t.shape.size(); ++d) elements *= t.shape[d];
  return static_cast<uint64_t>(elements * DTypeRowBytes(t.dtype, t.shape.empty() ? 1 : t.shape[0]));
}

std::vector<uint8_t> Header(const std::vector<std::pair<std::string, Value>>& metadata,
                            const std::vector<TensorToWrite>& tensors, uint64_t alignment) {
  Encoder e;
  e.Put(kMagic);
  e.Put(kVersion);
  e.Put<uint64_t>(tensors.size());
  e.Put<uint64_t>(metadata.size());
  for (const auto& [key, value] : metadata) {
    e.PutString(key);
    e.Put(static_cast<uint32_t>(value.type()));
    PutValue(e, value);
  }
  uint64_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    e.PutString(t.name);
    e.Put(static_cast<uint32_t>(t.shape.size()));
    for (int64_t d : t.shape) e.Put(static_cast<uint64_t>(d));
    e.Put(static_cast<uint32_t>(t.dtype));
    e.Put(offset);
    offset += (TensorBytes(t) + alignment - 1) / alignment * alignment;
  }
  e.Pad(alignment);
  return e.bytes();
}

Status WriteAll(std::ofstream& out, const std::vector<std::pair<std::string, Value>>& metadata,
                const std::vector<TensorToWrite>& tensors, const TensorDataFn& data) {
  const uint64_t alignment = Alignment(metadata);
  const std::vector<uint8_t> header = Header(metadata, tensors, alignment);
  out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
  std::vector<uint8_t> bytes;
  const std::vector<char> padding(alignment, 0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    bytes.clear();
    PAGODA_RETURN_IF_ERROR(data(i, bytes));
    if (bytes.size() != TensorBytes(tensors[i])) {
      return InternalError("GGUF writer: tensor " + tensors[i].name + " got " + std::to_string(bytes.size()) +
                           " bytes, its type and shape take " + std::to_string(TensorBytes(tensors[i])));
    }
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.write(padding.data(), static_cast<std::streamsize>((alignment - bytes.size() % alignment) % alignment));
  }
  out.flush();
  if (!out) return InternalError("GGUF writer: writing the file failed");
  return Status::Ok();
}

}  // namespace

Status WriteGguf(const std::string& path, const std::vector<std::pair<std::string, Value>>& metadata,
                 const std::vector<TensorToWrite>& tensors, const TensorDataFn& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidArgumentError("cannot write " + path);
  Status status = WriteAll(out, metadata, tensors, data);
  out.close();
  if (!status.ok()) std::remove(path.c_str());
  return status;
}

}  // namespace pagoda::gguf
