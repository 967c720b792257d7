// The name of a full KV block for prefix caching: a chained hash
// H(parent block's hash, the block's token ids, extra keys), so equal hashes
// mean equal whole prefixes, not just equal blocks.
//
// H is SHA-256 truncated to 128 bits over an unambiguous encoding (every
// field length-prefixed or tagged). Between honest inputs a collision needs
// about 2^64 distinct blocks to become likely (birthday bound), far beyond any
// cache's lifetime; finding one deliberately is as hard as attacking SHA-256
// itself. Non-cryptographic 64-bit hashes (FNV, for instance) give neither.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "pagoda/request/request.h"

namespace pagoda {

struct BlockHash {
  uint64_t hi = 0;
  uint64_t lo = 0;
  friend bool operator==(const BlockHash&, const BlockHash&) = default;
};

struct BlockHashHasher {
  size_t operator()(const BlockHash& h) const { return static_cast<size_t>(h.lo); }  // already uniform
};

// `parent` is empty for a sequence's first block.
BlockHash HashBlock(const std::optional<BlockHash>& parent, std::span<const int32_t> token_ids, const CacheKeys& keys);

}  // namespace pagoda
