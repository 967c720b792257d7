#include "pagoda/formats/safetensors/safetensors_file.h"

#include <utility>

#include "pagoda/formats/safetensors/header_parser.h"

namespace pagoda::safetensors {

int64_t SafetensorsTensor::num_elements() const {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;  // validated: cannot overflow
  return n;
}

StatusOr<std::unique_ptr<SafetensorsFile>> SafetensorsFile::Open(const std::string& path) {
  auto mapping = formats::MappedFile::Open(path);
  if (!mapping.ok()) return mapping.status();
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path_ = path;
  file->mapping_ = std::move(mapping).value();
  const Status status = file->Parse(file->mapping_->bytes());
  if (!status.ok()) return Status(status.code(), "'" + path + "': " + status.message());
  return file;
}

StatusOr<std::unique_ptr<SafetensorsFile>> SafetensorsFile::FromBytes(std::vector<uint8_t> bytes) {
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->owned_bytes_ = std::move(bytes);
  PAGODA_RETURN_IF_ERROR(file->Parse(file->owned_bytes_));
  return file;
}

Status SafetensorsFile::Parse(std::span<const uint8_t> bytes) {
  PAGODA_ASSIGN_OR_RETURN(ParsedSafetensors parsed, ParseSafetensors(bytes));
  tensors_ = std::move(parsed.tensors);
  metadata_ = std::move(parsed.metadata);
  for (size_t i = 0; i < tensors_.size(); ++i) index_.emplace(tensors_[i].name, i);
  return Status::Ok();
}

const SafetensorsTensor* SafetensorsFile::FindTensor(std::string_view name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace pagoda::safetensors
