#include "pagoda/engine/output_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace pagoda {
namespace {

RequestOutput Output(std::string text, bool finished) {
  RequestOutput out;
  CompletionOutput completion;
  completion.text = std::move(text);
  out.outputs.push_back(std::move(completion));
  out.finished = finished;
  return out;
}

TEST(OutputStreamTest, ListenerRunsAfterEveryPushAndAtOnceForWaitingOutputs) {
  OutputStream stream("r", /*cumulative=*/false);
  stream.Push(Output("a", false));
  int calls = 0;
  stream.SetListener([&] { ++calls; });
  EXPECT_EQ(calls, 1);  // "a" was already waiting
  stream.Push(Output("b", false));
  stream.Push(Output("c", true));
  EXPECT_EQ(calls, 3);
  std::string seen;
  while (auto out = stream.TryNext()) seen += out->outputs[0].text;
  EXPECT_EQ(seen, "abc");  // deltas queue up
  EXPECT_FALSE(stream.Next().has_value());  // drained
}

TEST(OutputStreamTest, CumulativeOutputsReplaceAnUntakenOne) {
  OutputStream stream("r", /*cumulative=*/true);
  stream.SetListener([] {});
  stream.Push(Output("a", false));
  stream.Push(Output("ab", false));
  EXPECT_EQ(stream.TryNext()->outputs[0].text, "ab");
  EXPECT_FALSE(stream.TryNext().has_value());
}

TEST(OutputStreamTest, AListenerOnAnotherThreadSeesEveryOutput) {
  OutputStream stream("r", /*cumulative=*/false);
  std::atomic<int> taken = 0;
  std::mutex mu;
  stream.SetListener([&] {
    std::lock_guard lock(mu);  // the consumer serializes its TryNext calls
    while (stream.TryNext()) ++taken;
  });
  std::thread engine([&] {
    for (int i = 0; i < 1000; ++i) stream.Push(Output("x", i == 999));
  });
  engine.join();
  EXPECT_EQ(taken.load(), 1000);
  EXPECT_TRUE(stream.finished());
}

}  // namespace
}  // namespace pagoda
