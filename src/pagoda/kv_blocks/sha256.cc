#include "pagoda/kv_blocks/sha256.h"

#include <openssl/evp.h>

#include "pagoda/base/check.h"

namespace pagoda {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  PAGODA_CHECK(ctx_ != nullptr);
  PAGODA_CHECK(EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) == 1);
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::Update(std::span<const uint8_t> bytes) {
  PAGODA_CHECK(EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()) == 1);
}

void Sha256::UpdateU64(uint64_t v) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
  Update(bytes);
}

Sha256::Digest Sha256::Finish() {
  Digest d{};
  unsigned int len = 0;
  PAGODA_CHECK(EVP_DigestFinal_ex(ctx_, d.data(), &len) == 1 && len == d.size());
  return d;
}

}  // namespace pagoda
