#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::gguf {

StatusOr<std::unique_ptr<GgufFile>> GgufFile::Open(const std::string& path) {
  auto mapping = formats::MappedFile::Open(path);
  if (!mapping.ok()) return mapping.status();
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->mapping_ = std::move(mapping).value();
  const Status status = file->Parse(file->mapping_->bytes());
  if (!status.ok()) return Annotate(status, "'" + path + "'");
  return file;
}

StatusOr<std::unique_ptr<GgufFile>> GgufFile::FromBytes(std::vector<uint8_t> bytes) {
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->owned_bytes_ = std::move(bytes);
  PAGODA_RETURN_IF_ERROR(file->Parse(file->owned_bytes_));
  return file;
}

StatusOr<std::unique_ptr<GgufFile>> GgufFile::FromTables(MetadataBuilder metadata, std::vector<TensorInfo> tensors,
                                                         std::shared_ptr<const void> storage) {
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->built_metadata_ = std::make_unique<MetadataBuilder>(std::move(metadata));
  file->storage_ = std::move(storage);
  ParsedGguf& p = file->parsed_;
  p.version = 3;
  p.metadata.entries = file->built_metadata_->entries();
  // The index views the keys where they finally live.
  for (size_t i = 0; i < p.metadata.entries.size(); ++i) p.metadata.index.emplace(p.metadata.entries[i].first, i);
  p.tensors = std::move(tensors);
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    if (!p.tensor_index.emplace(p.tensors[i].name, i).second) {
      return InvalidArgumentError("tensor '" + p.tensors[i].name + "' appears twice");
    }
  }
  return file;
}

Status GgufFile::Parse(std::span<const uint8_t> bytes) {
  bytes_ = bytes;
  PAGODA_ASSIGN_OR_RETURN(parsed_, ParseGguf(bytes_));
  return Status::Ok();
}

const Value* GgufFile::Find(std::string_view key) const {
  const auto it = parsed_.metadata.index.find(key);
  return it == parsed_.metadata.index.end() ? nullptr : &parsed_.metadata.entries[it->second].second;
}

const TensorInfo* GgufFile::FindTensor(std::string_view name) const {
  const auto it = parsed_.tensor_index.find(name);
  return it == parsed_.tensor_index.end() ? nullptr : &parsed_.tensors[it->second];
}

}  // namespace pagoda::gguf
