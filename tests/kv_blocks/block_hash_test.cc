#include "pagoda/kv_blocks/block_hash.h"

#include <gtest/gtest.h>

namespace pagoda {
namespace {

const std::vector<int32_t> kTokens = {1, 2, 3, 4};

CacheKeys Lora(int64_t id) { return {.lora_id = id, .cache_salt = std::nullopt}; }
CacheKeys Salt(std::string salt) { return {.lora_id = std::nullopt, .cache_salt = std::move(salt)}; }

TEST(BlockHashTest, IsDeterministic) {
  EXPECT_EQ(HashBlock(std::nullopt, kTokens, {}), HashBlock(std::nullopt, kTokens, {}));
}

TEST(BlockHashTest, ChangesWithParent) {
  const BlockHash root = HashBlock(std::nullopt, kTokens, {});
  const BlockHash other = HashBlock(std::nullopt, std::vector<int32_t>{9, 9, 9, 9}, {});
  EXPECT_NE(HashBlock(root, kTokens, {}), HashBlock(other, kTokens, {}));
  EXPECT_NE(HashBlock(root, kTokens, {}), HashBlock(std::nullopt, kTokens, {}));
}

TEST(BlockHashTest, ChangesWithAnyTokenOrTheirOrder) {
  const BlockHash base = HashBlock(std::nullopt, kTokens, {});
  EXPECT_NE(base, HashBlock(std::nullopt, std::vector<int32_t>{1, 2, 3, 5}, {}));
  EXPECT_NE(base, HashBlock(std::nullopt, std::vector<int32_t>{2, 1, 3, 4}, {}));
  EXPECT_NE(base, HashBlock(std::nullopt, std::vector<int32_t>{1, 2, 3}, {}));
}

TEST(BlockHashTest, ChangesWithExtraKeys) {
  const BlockHash base = HashBlock(std::nullopt, kTokens, {});
  const BlockHash lora1 = HashBlock(std::nullopt, kTokens, Lora(1));
  const BlockHash lora2 = HashBlock(std::nullopt, kTokens, Lora(2));
  const BlockHash salt_a = HashBlock(std::nullopt, kTokens, Salt("a"));
  const BlockHash salt_b = HashBlock(std::nullopt, kTokens, Salt("b"));
  const BlockHash salt_empty = HashBlock(std::nullopt, kTokens, Salt(""));
  EXPECT_NE(base, lora1);
  EXPECT_NE(lora1, lora2);
  EXPECT_NE(base, salt_a);
  EXPECT_NE(salt_a, salt_b);
  // An empty salt is still a salt: it must not alias "no salt".
  EXPECT_NE(base, salt_empty);
  EXPECT_EQ(lora1, HashBlock(std::nullopt, kTokens, Lora(1)));
}

}  // namespace
}  // namespace pagoda
