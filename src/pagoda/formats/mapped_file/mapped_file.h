// A read-only memory mapping of a whole file. Weights are used in place from
// the mapping, so opening a model costs page-table set-up, not a copy.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "pagoda/base/status.h"

namespace pagoda::formats {

class MappedFile {
 public:
  static StatusOr<std::unique_ptr<MappedFile>> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(addr_), size_}; }

 private:
  MappedFile(void* addr, size_t size) : addr_(addr), size_(size) {}

  void* addr_;  // null for an empty file, which cannot be mapped
  size_t size_;
};

// Drops the whole pages inside `bytes` (a part of some MappedFile's
// bytes()) from the process's resident memory: for data that was read once
// and copied elsewhere, such as weights repacked at load. The mapping stays
// valid; a page touched again is read back from the file.
void ReleasePages(std::span<const uint8_t> bytes);

}  // namespace pagoda::formats
