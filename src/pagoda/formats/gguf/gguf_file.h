// A validated GGUF model file: metadata and the tensor table, with tensor
// data used in place from a memory mapping.
//
// Open() checks everything a consumer would otherwise have to trust: sizes,
// counts and lengths against the file size, tensor shapes, types, alignment
// and bounds. Errors are DataLoss for corrupt files and Unimplemented for valid
// files Pagoda cannot load (GGUF v1, big-endian, other tensor types).
#pragma once

#include <cstdint>
#include <memory>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/gguf_parser.h"
#include "pagoda/formats/gguf/gguf_value.h"
#include "pagoda/formats/gguf/metadata_builder.h"
#include "pagoda/formats/gguf/tensor_info.h"
#include "pagoda/formats/mapped_file/mapped_file.h"

namespace pagoda::gguf {

class GgufFile {
 public:
  // Maps the file read-only and validates it.
  static StatusOr<std::unique_ptr<GgufFile>> Open(const std::string& path);
  // Validates a file held in memory, which the result owns (tests, fuzzing).
  static StatusOr<std::unique_ptr<GgufFile>> FromBytes(std::vector<uint8_t> bytes);
  // A checkpoint of another format described in GGUF's vocabulary, built in
  // memory (model/hf): the metadata's values view `metadata`'s storage, the
  // tensors' data views memory that `storage` keeps alive. Tensor names must
  // be unique; the result has no file bytes (file_size() is 0).
  static StatusOr<std::unique_ptr<GgufFile>> FromTables(MetadataBuilder metadata, std::vector<TensorInfo> tensors,
                                                        std::shared_ptr<const void> storage);

  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  uint32_t version() const { return parsed_.version; }
  uint64_t alignment() const { return parsed_.alignment; }  // general.alignment or 32
  uint64_t file_size() const { return bytes_.size(); }
  uint64_t data_offset() const { return parsed_.data_offset; }  // where tensor offsets count from

  // Metadata in file order. Values view the file's bytes: keep the file alive.
  const std::vector<std::pair<std::string, Value>>& metadata() const { return parsed_.metadata.entries; }
  const Value* Find(std::string_view key) const;

  // Typed look-ups. A missing key is NotFound, a value of another type
  // InvalidArgument, an integer that does not fit OutOfRange; each message
  // names the key.
  StatusOr<std::string> GetString(std::string_view key) const;
  StatusOr<uint64_t> GetUint(std::string_view key) const;  // any integer type, value >= 0
  StatusOr<int64_t> GetInt(std::string_view key) const;    // any integer type, value fits int64
  StatusOr<double> GetFloat(std::string_view key) const;   // float32, float64 or any integer type
  StatusOr<bool> GetBool(std::string_view key) const;
  StatusOr<std::vector<std::string>> GetStringArray(std::string_view key) const;
  StatusOr<std::vector<int64_t>> GetIntArray(std::string_view key) const;   // any integer element type
  StatusOr<std::vector<double>> GetFloatArray(std::string_view key) const;  // float or integer elements

  const std::vector<TensorInfo>& tensors() const { return parsed_.tensors; }
  const TensorInfo* FindTensor(std::string_view name) const;

 private:
  GgufFile() = default;
  Status Parse(std::span<const uint8_t> bytes);
  StatusOr<const Value*> Lookup(std::string_view key) const;
  StatusOr<const Value*> LookupArray(std::string_view key, std::string_view expected) const;

  std::unique_ptr<formats::MappedFile> mapping_;  // set by Open
  std::vector<uint8_t> owned_bytes_;              // set by FromBytes
  std::unique_ptr<MetadataBuilder> built_metadata_;  // set by FromTables
  std::shared_ptr<const void> storage_;              // set by FromTables
  std::span<const uint8_t> bytes_;                // whichever of the two holds the file
  ParsedGguf parsed_;
};

// Human-readable dump for `pagoda inspect`: version, counts, every metadata
// key with type and value (long strings and arrays abbreviated, with their
// length), and the tensor table (name, type, shape, offset, bytes) with totals.
void PrintGgufSummary(const GgufFile& file, std::ostream& out);
// The tensors' bytes by type, the largest share first (ties by type name):
// "Q4_1 210 tensors 66355200 bytes; Q8_0 1 tensor 30081024 bytes; ...".
// What a quantization mix such as Q4_K_M is made of.
std::string DescribeTypeMix(const GgufFile& file);

}  // namespace pagoda::gguf
