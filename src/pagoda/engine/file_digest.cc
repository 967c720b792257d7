#include "pagoda/engine/file_digest.h"

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace pagoda {
namespace {

StatusOr<std::string> Digest(const EVP_MD* md, const std::string& prefix, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read " + path);
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), md, nullptr);
  EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size());
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx.get(), out, &size);
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += "0123456789abcdef"[out[i] >> 4];
    hex += "0123456789abcdef"[out[i] & 15];
  }
  return hex;
}

}  // namespace

StatusOr<std::string> FileSha256Hex(const std::string& path) { return Digest(EVP_sha256(), "", path); }

StatusOr<std::string> FileGitBlobSha1Hex(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) return NotFoundError("cannot read " + path);
  std::string prefix = "blob " + std::to_string(size);
  prefix.push_back('\0');
  return Digest(EVP_sha1(), prefix, path);
}

}  // namespace pagoda
