#include "pagoda/server/logprobs_json.h"

#include <gtest/gtest.h>

namespace pagoda::server {
namespace {

TEST(LogprobsJsonTest, CompletionsShapeWithAnUnsetFirstPosition) {
  const std::vector<std::optional<PositionLogprobs>> positions = {
      std::nullopt,
      PositionLogprobs{{7, -0.5f, 2, "lo"}, {8, -0.1f, 1, "hi"}},
      PositionLogprobs{{9, -std::numeric_limits<float>::infinity(), 40, "x"}},
  };
  nlohmann::json out;
  size_t offset = 3;
  AppendCompletionLogprobs(out, positions, UnsetToken{4, "Hey"}, offset);
  EXPECT_EQ(out["tokens"], nlohmann::json({"Hey", "lo", "x"}));
  EXPECT_EQ(out["text_offset"], nlohmann::json({3, 6, 8}));
  EXPECT_EQ(offset, 9u);
  EXPECT_TRUE(out["token_logprobs"][0].is_null());
  EXPECT_DOUBLE_EQ(out["token_logprobs"][1].get<double>(), -0.5);
  EXPECT_DOUBLE_EQ(out["token_logprobs"][2].get<double>(), -9999.0);  // JSON has no -inf
  EXPECT_EQ(out["top_logprobs"][1].size(), 2u);
  EXPECT_FLOAT_EQ(out["top_logprobs"][1]["hi"].get<double>(), -0.1f);
}

TEST(LogprobsJsonTest, ChatShapeListsTheTopByRank) {
  // The sampled token (rank 3) first, then the top two.
  const std::vector<PositionLogprobs> positions = {
      PositionLogprobs{{5, -2.0f, 3, "c"}, {6, -0.2f, 1, "a"}, {7, -0.9f, 2, "\xc3\xa9"}}};
  const nlohmann::json out = ChatLogprobs(positions, 2);
  const nlohmann::json& entry = out["content"][0];
  EXPECT_EQ(entry["token"], "c");
  EXPECT_EQ(entry["bytes"], nlohmann::json({99}));
  ASSERT_EQ(entry["top_logprobs"].size(), 2u);
  EXPECT_EQ(entry["top_logprobs"][0]["token"], "a");
  EXPECT_EQ(entry["top_logprobs"][1]["bytes"], nlohmann::json({0xc3, 0xa9}));
}

TEST(LogprobsJsonTest, TokensAsIdsNameEveryTokenByIdAndKeepTextOffsets) {
  const std::vector<std::optional<PositionLogprobs>> positions = {
      std::nullopt, PositionLogprobs{{7, -0.5f, 2, "lo"}, {8, -0.1f, 1, "hi"}}};
  nlohmann::json out;
  size_t offset = 0;
  AppendCompletionLogprobs(out, positions, UnsetToken{4, "Hey"}, offset, /*as_ids=*/true);
  EXPECT_EQ(out["tokens"], nlohmann::json({"token_id:4", "token_id:7"}));
  // Offsets still index the choice's text.
  EXPECT_EQ(out["text_offset"], nlohmann::json({0, 3}));
  EXPECT_EQ(offset, 5u);
  EXPECT_TRUE(out["top_logprobs"][1].contains("token_id:8"));

  const std::vector<PositionLogprobs> chat = {PositionLogprobs{{5, -2.0f, 2, "c"}, {6, -0.2f, 1, "a"}}};
  const nlohmann::json entry = ChatLogprobs(chat, 1, /*as_ids=*/true)["content"][0];
  EXPECT_EQ(entry["token"], "token_id:5");
  EXPECT_EQ(entry["top_logprobs"][0]["token"], "token_id:6");
  EXPECT_EQ(entry["bytes"].size(), std::string("token_id:5").size());
}

TEST(LogprobsJsonTest, PromptLogprobsAreVllmsDictsByTokenId) {
  const std::vector<std::optional<PositionLogprobs>> positions = {
      std::nullopt, PositionLogprobs{{7, -0.5f, 2, "lo"}, {8, -0.25f, 1, "hi"}}};
  const nlohmann::json out = PromptLogprobsJson(positions);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].is_null());
  EXPECT_EQ(out[1]["7"]["rank"], 2);
  EXPECT_EQ(out[1]["7"]["decoded_token"], "lo");
  EXPECT_DOUBLE_EQ(out[1]["8"]["logprob"].get<double>(), -0.25);
}

}  // namespace
}  // namespace pagoda::server
