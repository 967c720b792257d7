// SHA-256, used to name KV blocks for prefix caching: a cryptographic hash so
// that two different token prefixes never share a cache entry by accident,
// and cannot be made to by a client choosing tokens. A thin streaming wrapper
// over OpenSSL's libcrypto.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

struct evp_md_ctx_st;

namespace pagoda {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::span<const uint8_t> bytes);
  void UpdateU64(uint64_t v);  // 8 bytes, little-endian
  Digest Finish();             // the hasher must not be used afterwards

 private:
  evp_md_ctx_st* ctx_;
};

}  // namespace pagoda
