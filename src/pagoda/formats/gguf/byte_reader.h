// A bounds-checked little-endian cursor over a file's bytes. Every read
// checks the remaining length first, so a corrupt count or length turns into
// a DataLoss error that says where it happened, never an out-of-bounds read.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string_view>

#include "pagoda/base/status.h"

namespace pagoda::gguf {

// Tensor data is used in place, so the host must share the file's byte order.
static_assert(std::endian::native == std::endian::little, "GGUF loading assumes a little-endian host");

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t position() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  StatusOr<uint32_t> ReadU32();
  StatusOr<uint64_t> ReadU64();
  // Returns a pointer to the next n bytes and moves past them.
  StatusOr<const uint8_t*> ReadBytes(uint64_t n);
  // A GGUF string: uint64 byte length, then the bytes (no terminator). The
  // view points into the underlying bytes.
  StatusOr<std::string_view> ReadString();

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

// The same error with "context: " in front of its message, so errors from deep
// inside the parser say which entry they came from.
Status Annotate(const Status& status, std::string_view context);

}  // namespace pagoda::gguf
