#include "pagoda/tokenizer/bpe_model.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "pagoda/tokenizer/byte_level.h"

namespace pagoda::tokenizer {
namespace {

// Byte tokens have id = byte value; `extra` follow from 256.
std::unordered_map<std::string, TokenId> Vocab(const std::vector<std::string>& extra) {
  std::unordered_map<std::string, TokenId> vocab;
  for (int b = 0; b < 256; ++b) vocab[BytesToVocabText(std::string(1, static_cast<char>(b)))] = b;
  for (size_t i = 0; i < extra.size(); ++i) vocab[extra[i]] = static_cast<TokenId>(256 + i);
  return vocab;
}

std::vector<TokenId> Encode(const BpeModel& bpe, std::string_view word) {
  BpeModel::Scratch scratch;
  std::vector<TokenId> out;
  bpe.Encode(word, &scratch, &out);
  return out;
}

TEST(tokenizer_bpe, LowestRankMergesFirst) {
  const auto vocab = Vocab({"ab", "bc", "abc"});  // 256, 257, 258
  auto bc_first = BpeModel::Create(vocab, {"b c", "a b", "a bc"});
  ASSERT_TRUE(bc_first.ok()) << bc_first.status().ToString();
  EXPECT_EQ(Encode(*bc_first, "abc"), (std::vector<TokenId>{258}));
  // With "a b" first, "ab c" is needed and absent: the word stops at ab + c.
  auto ab_first = BpeModel::Create(vocab, {"a b", "b c", "a bc"});
  ASSERT_TRUE(ab_first.ok());
  EXPECT_EQ(Encode(*ab_first, "abc"), (std::vector<TokenId>{256, 'c'}));
}

TEST(tokenizer_bpe, EqualPairsMergeLeftmostFirst) {
  auto bpe = BpeModel::Create(Vocab({"aa", "aaa"}), {"a a", "aa a"});
  ASSERT_TRUE(bpe.ok());
  EXPECT_EQ(Encode(*bpe, "aaa"), (std::vector<TokenId>{257}));
  EXPECT_EQ(Encode(*bpe, "aaaa"), (std::vector<TokenId>{256, 256}));
  // a|a a|a a -> aa aa a; "aa a" then joins the last two.
  EXPECT_EQ(Encode(*bpe, "aaaaa"), (std::vector<TokenId>{256, 257}));
}

TEST(tokenizer_bpe, UnmergedBytesStayBytes) {
  auto bpe = BpeModel::Create(Vocab({}), {});
  ASSERT_TRUE(bpe.ok());
  EXPECT_EQ(Encode(*bpe, std::string("\x00\xFF z", 4)), (std::vector<TokenId>{0, 0xFF, ' ', 'z'}));
}

TEST(tokenizer_bpe, LongWordsMergeCompletely) {
  auto bpe = BpeModel::Create(Vocab({"aa", "aaaa"}), {"a a", "aa aa"});
  ASSERT_TRUE(bpe.ok());
  const std::vector<TokenId> ids = Encode(*bpe, std::string(100000, 'a'));
  ASSERT_EQ(ids.size(), 25000u);
  for (TokenId id : ids) ASSERT_EQ(id, 257);
}

TEST(tokenizer_bpe, RejectsMergesOutsideTheVocabulary) {
  const auto vocab = Vocab({"ab"});
  EXPECT_EQ(BpeModel::Create(vocab, {"ab"}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BpeModel::Create(vocab, {"a "}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BpeModel::Create(vocab, {"b c"}).status().code(), StatusCode::kInvalidArgument);  // "bc" missing
}

// HF drops a byte without a token before merging, so its neighbours can merge.
TEST(tokenizer_bpe, BytesWithoutATokenAreDroppedBeforeMerging) {
  auto vocab = Vocab({"ab"});
  vocab.erase(BytesToVocabText("\x04"));
  auto bpe = BpeModel::Create(vocab, {"a b"});
  ASSERT_TRUE(bpe.ok()) << bpe.status().ToString();
  EXPECT_EQ(Encode(*bpe, "a\x04" "b"), (std::vector<TokenId>{256}));
  EXPECT_EQ(Encode(*bpe, "\x04\x04"), std::vector<TokenId>{});
  EXPECT_EQ(Encode(*bpe, "\x04" "c"), (std::vector<TokenId>{'c'}));
}

}  // namespace
}  // namespace pagoda::tokenizer
