#include "pagoda/kv_blocks/block_hash.h"

#include "pagoda/kv_blocks/sha256.h"

namespace pagoda {
namespace {

uint64_t LoadU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

}  // namespace

BlockHash HashBlock(const std::optional<BlockHash>& parent, std::span<const int32_t> token_ids, const CacheKeys& keys) {
  Sha256 h;
  // Each optional field is a presence tag then its value; variable-length
  // fields carry their length, so no two inputs encode to the same bytes.
  h.UpdateU64(parent.has_value());
  if (parent) {
    h.UpdateU64(parent->hi);
    h.UpdateU64(parent->lo);
  }
  h.UpdateU64(token_ids.size());
  for (int32_t t : token_ids) h.UpdateU64(static_cast<uint32_t>(t));
  h.UpdateU64(keys.lora_id.has_value());
  if (keys.lora_id) h.UpdateU64(static_cast<uint64_t>(*keys.lora_id));
  h.UpdateU64(keys.cache_salt.has_value());
  if (keys.cache_salt) {
    h.UpdateU64(keys.cache_salt->size());
    h.Update({reinterpret_cast<const uint8_t*>(keys.cache_salt->data()), keys.cache_salt->size()});
  }
  const Sha256::Digest d = h.Finish();
  return BlockHash{LoadU64(d.data()), LoadU64(d.data() + 8)};
}

}  // namespace pagoda
