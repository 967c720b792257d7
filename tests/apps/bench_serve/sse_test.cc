#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pagoda/apps/bench_serve/completion_chunk.h"
#include "pagoda/apps/bench_serve/sse_splitter.h"

namespace pagoda::apps::bench_serve {
namespace {

// A stream as vLLM's server sends it: token chunks, the usage chunk, [DONE].
const std::string kStream =
    "data: {\"choices\":[{\"index\":0,\"text\":\"Hel\"}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"text\":\"lo\",\"finish_reason\":\"length\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}}\n\n"
    "data: [DONE]\n\n";

std::vector<std::string> FeedInPieces(const std::string& stream, size_t piece) {
  SseSplitter splitter;
  std::vector<std::string> events;
  for (size_t at = 0; at < stream.size(); at += piece) {
    for (std::string& e : splitter.Feed(std::string_view(stream).substr(at, piece))) events.push_back(std::move(e));
  }
  for (std::string& e : splitter.Finish()) events.push_back(std::move(e));
  return events;
}

TEST(SseTest, EventsAreTheSameWhereverTheBytesAreCut) {
  const std::vector<std::string> whole = FeedInPieces(kStream, kStream.size());
  ASSERT_EQ(whole.size(), 4u);
  EXPECT_EQ(whole[0], "{\"choices\":[{\"index\":0,\"text\":\"Hel\"}]}");
  EXPECT_EQ(whole[3], "[DONE]");
  for (size_t piece = 1; piece < 40; ++piece) EXPECT_EQ(FeedInPieces(kStream, piece), whole) << piece;
}

TEST(SseTest, AnEventIsDispatchedByItsBlankLineOnly) {
  SseSplitter splitter;
  EXPECT_TRUE(splitter.Feed("data: {\"a\":").empty());
  EXPECT_TRUE(splitter.Feed("1}\n").empty());
  EXPECT_EQ(splitter.Feed("\n"), std::vector<std::string>{"{\"a\":1}"});
}

TEST(SseTest, CrlfCommentsOtherFieldsAndMultiLineData) {
  const std::string stream =
      ": ping\r\n\r\nevent: message\r\nid: 3\r\ndata: first\r\ndata:second\r\n\r\ndata: [DONE]\r\n\r\n";
  for (size_t piece : {1u, 2u, 3u, 100u}) {
    EXPECT_EQ(FeedInPieces(stream, piece), (std::vector<std::string>{"first\nsecond", "[DONE]"})) << piece;
  }
}

TEST(SseTest, AStreamEndingWithoutItsBlankLineStillGivesTheEvent) {
  SseSplitter splitter;
  EXPECT_TRUE(splitter.Feed("data: [DONE]").empty());
  EXPECT_EQ(splitter.Finish(), std::vector<std::string>{"[DONE]"});
}

TEST(CompletionChunkTest, TokenUsageDoneAndErrors) {
  const std::vector<std::string> events = FeedInPieces(kStream, 7);
  const CompletionChunk first = ParseCompletionChunk(events[0]);
  EXPECT_TRUE(first.has_choices);
  EXPECT_EQ(first.text, "Hel");
  EXPECT_FALSE(first.completion_tokens);
  const CompletionChunk usage = ParseCompletionChunk(events[2]);
  EXPECT_FALSE(usage.has_choices);  // an empty choices list is no token
  EXPECT_EQ(usage.completion_tokens, 2);
  EXPECT_EQ(usage.prompt_tokens, 5);
  EXPECT_TRUE(ParseCompletionChunk(events[3]).done);

  // A special token streams as an empty text: still a token arrival, as vLLM counts it.
  EXPECT_TRUE(ParseCompletionChunk("{\"choices\":[{\"text\":\"\"}]}").has_choices);
  EXPECT_EQ(ParseCompletionChunk("{\"error\":{\"message\":\"boom\",\"code\":500}}").error, "boom");
  EXPECT_FALSE(ParseCompletionChunk("{\"choices\":[{\"te").error.empty());
  EXPECT_FALSE(ParseCompletionChunk("[1, 2]").error.empty());
}

}  // namespace
}  // namespace pagoda::apps::bench_serve
