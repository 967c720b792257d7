#include "pagoda/formats/gguf/byte_reader.h"

#include <cstring>
#include <string>

namespace pagoda::gguf {

StatusOr<const uint8_t*> ByteReader::ReadBytes(uint64_t n) {
  if (n > remaining()) {
    return DataLossError("truncated: need " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) +
                         ", only " + std::to_string(remaining()) + " remain");
  }
  const uint8_t* p = bytes_.data() + pos_;
  pos_ += n;
  return p;
}

StatusOr<uint32_t> ByteReader::ReadU32() {
  PAGODA_ASSIGN_OR_RETURN(const uint8_t* p, ReadBytes(sizeof(uint32_t)));
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

StatusOr<uint64_t> ByteReader::ReadU64() {
  PAGODA_ASSIGN_OR_RETURN(const uint8_t* p, ReadBytes(sizeof(uint64_t)));
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

StatusOr<std::string_view> ByteReader::ReadString() {
  const uint64_t at = pos_;
  PAGODA_ASSIGN_OR_RETURN(uint64_t length, ReadU64());
  if (length > remaining()) {
    return DataLossError("string length " + std::to_string(length) + " at offset " + std::to_string(at) +
                         " exceeds the " + std::to_string(remaining()) + " bytes that remain");
  }
  PAGODA_ASSIGN_OR_RETURN(const uint8_t* p, ReadBytes(length));
  return std::string_view(reinterpret_cast<const char*>(p), length);
}

Status Annotate(const Status& status, std::string_view context) {
  return Status(status.code(), std::string(context) + ": " + status.message());
}

}  // namespace pagoda::gguf
