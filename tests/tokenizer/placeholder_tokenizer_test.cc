// The placeholder tokenizer of --load-format dummy: bytes in, bytes out,
// and a spelling for every id past them.
#include "pagoda/tokenizer/placeholder_tokenizer.h"

#include <gtest/gtest.h>

#include <string>

namespace pagoda::tokenizer {
namespace {

TEST(PlaceholderTokenizerTest, BytesRoundTripAndPlaceholdersSpellTheirIds) {
  auto t = PlaceholderTokenizer(1000);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->vocab_size(), 1000);
  const std::string text = "héllo, wörld\n\t\x01";
  const std::vector<TokenId> ids = (*t)->Encode(text);
  ASSERT_EQ(ids.size(), text.size());  // one token per byte: no merges
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<uint8_t>(text[i]));
  EXPECT_EQ(*(*t)->Decode(ids), text);
  const std::vector<TokenId> placeholders = {300, 999};
  EXPECT_EQ(*(*t)->Decode(placeholders), "<|dummy_300|><|dummy_999|>");
}

TEST(PlaceholderTokenizerTest, NeedsRoomForTheBytes) {
  EXPECT_EQ(PlaceholderTokenizer(255).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(PlaceholderTokenizer(256).ok());
}

}  // namespace
}  // namespace pagoda::tokenizer
