// A validated safetensors file (Hugging Face's weight format): the tensor
// table and the "__metadata__" strings, with tensor bytes used in place from
// a read-only memory mapping. Open() checks everything header_parser.h lists,
// so every tensor's span lies inside the file and has the size its dtype and
// shape need.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/formats/mapped_file/mapped_file.h"
#include "pagoda/formats/safetensors/safetensors_tensor.h"

namespace pagoda::safetensors {

class SafetensorsFile {
 public:
  // Maps the file read-only and validates it; errors name the file.
  static StatusOr<std::unique_ptr<SafetensorsFile>> Open(const std::string& path);
  // Validates a file held in memory, which the result owns (tests, fuzzing).
  static StatusOr<std::unique_ptr<SafetensorsFile>> FromBytes(std::vector<uint8_t> bytes);

  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }  // empty for FromBytes
  // In the order of their bytes in the file. Spans view the file: keep it alive.
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  const SafetensorsTensor* FindTensor(std::string_view name) const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  SafetensorsFile() = default;
  Status Parse(std::span<const uint8_t> bytes);

  std::string path_;
  std::unique_ptr<formats::MappedFile> mapping_;  // set by Open
  std::vector<uint8_t> owned_bytes_;              // set by FromBytes
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, size_t, std::less<>> index_;  // name -> position in tensors_
  std::map<std::string, std::string> metadata_;
};

}  // namespace pagoda::safetensors
