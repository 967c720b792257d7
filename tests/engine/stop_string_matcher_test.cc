#include "pagoda/engine/stop_string_matcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace pagoda {
namespace {

// Feeds the deltas and returns everything emitted (the cumulative text a
// client sees), flushing at the end if no stop string matched.
struct Streamed {
  std::string text;
  std::vector<std::string> emitted;  // per delta
  bool finished = false;
  std::optional<size_t> stop_index;
};

Streamed Feed(std::vector<std::string> stop, bool include, const std::vector<std::string>& deltas) {
  StopStringMatcher m(std::move(stop), include);
  Streamed run;
  for (const std::string& d : deltas) {
    StopStringMatcher::Update u = m.Push(d);
    run.emitted.push_back(u.text);
    run.text += u.text;
    if (u.finished) {
      run.finished = true;
      run.stop_index = u.stop_index;
      EXPECT_EQ(m.Flush(), "");
      return run;
    }
  }
  run.text += m.Flush();
  return run;
}

TEST(StopStringMatcherTest, NoStopStringsEmitsEverythingAtOnce) {
  const Streamed r = Feed({}, false, {"Hel", "lo"});
  EXPECT_EQ(r.emitted, (std::vector<std::string>{"Hel", "lo"}));
  EXPECT_EQ(r.text, "Hello");
  EXPECT_FALSE(r.finished);
}

TEST(StopStringMatcherTest, MatchInsideOneDeltaTruncatesBeforeIt) {
  const Streamed r = Feed({"STOP"}, false, {"abc", "dSTOPef", "never"});
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(r.stop_index, 0u);
  EXPECT_EQ(r.text, "abcd");
}

TEST(StopStringMatcherTest, StraddlingMatchIsHeldBackThenCut) {
  const Streamed r = Feed({"STOP"}, false, {"ab", "cS", "T", "OPx"});
  // "S" and "ST" could start the stop string, so they wait.
  EXPECT_EQ(r.emitted, (std::vector<std::string>{"ab", "c", "", ""}));
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(r.text, "abc");
}

TEST(StopStringMatcherTest, HeldBackTextIsReleasedWhenItStopsLookingLikeAStop) {
  const Streamed r = Feed({"STOP"}, false, {"xS", "T", "a", "b"});
  EXPECT_EQ(r.emitted, (std::vector<std::string>{"x", "", "STa", "b"}));
  EXPECT_FALSE(r.finished);
  EXPECT_EQ(r.text, "xSTab");
}

TEST(StopStringMatcherTest, OverlappingPrefixes) {
  // "aab" with stop "ab": the first "a" can be emitted once the second
  // arrives, and the match starts at the second.
  const Streamed r = Feed({"ab"}, false, {"a", "a", "b"});
  EXPECT_EQ(r.emitted, (std::vector<std::string>{"", "a", ""}));
  EXPECT_EQ(r.text, "a");
  EXPECT_TRUE(r.finished);
  // A self-overlapping stop string: "aab" inside "aaab".
  const Streamed r2 = Feed({"aab"}, false, {"a", "a", "a", "b"});
  EXPECT_EQ(r2.emitted, (std::vector<std::string>{"", "", "a", ""}));
  EXPECT_EQ(r2.text, "a");
}

TEST(StopStringMatcherTest, HoldBackIsFlushedAtTheEnd) {
  StopStringMatcher m({"END"}, false);
  EXPECT_EQ(m.Push("the E").text, "the ");
  EXPECT_EQ(m.Push("N").text, "");
  EXPECT_EQ(m.Flush(), "EN");
  EXPECT_EQ(m.Flush(), "");
}

TEST(StopStringMatcherTest, IncludeStopStringKeepsItAndDropsWhatFollows) {
  const Streamed r = Feed({"STOP"}, true, {"ab", "cST", "OPxyz"});
  // Nothing needs holding back: a later match keeps all that came before.
  EXPECT_EQ(r.emitted, (std::vector<std::string>{"ab", "cST", "OP"}));
  EXPECT_EQ(r.text, "abcSTOP");
  EXPECT_TRUE(r.finished);
}

TEST(StopStringMatcherTest, SeveralStopStringsFirstInListOrderWins) {
  // vLLM checks the stop strings in order; the first one found in the new
  // text wins even if another occurs earlier in it.
  const Streamed r = Feed({"b", "a"}, false, {"xab"});
  EXPECT_EQ(r.stop_index, 0u);
  EXPECT_EQ(r.text, "xa");
  const Streamed r2 = Feed({"zz", "a"}, false, {"xab"});
  EXPECT_EQ(r2.stop_index, 1u);
  EXPECT_EQ(r2.text, "x");
  // Across deltas, the hold-back covers the longest possible start.
  const Streamed r3 = Feed({"hello", "lo!"}, false, {"hel", "lo!"});
  EXPECT_EQ(r3.emitted, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(r3.stop_index, 0u);  // "hello" ends in the new text and comes first
  EXPECT_EQ(r3.text, "");
}

TEST(StopStringMatcherTest, Unicode) {
  // Deltas are whole characters; a two-character stop string split across them.
  const Streamed r = Feed({"日本"}, false, {"こんにちは日", "本語"});
  EXPECT_EQ(r.emitted, (std::vector<std::string>{"こんにちは", ""}));
  EXPECT_EQ(r.text, "こんにちは");
  EXPECT_TRUE(r.finished);
  // A prefix shared byte-wise is not held back once the characters differ:
  // "é" (C3 A9) and "è" (C3 A8) share their first byte.
  const Streamed r2 = Feed({"é!"}, false, {"è", "é", "?"});
  EXPECT_EQ(r2.emitted, (std::vector<std::string>{"è", "", "é?"}));
  EXPECT_FALSE(r2.finished);
}

TEST(StopStringMatcherTest, UncheckedDeltasAreNotSearchedLater) {
  // Under min_tokens the engine passes check_stop = false; vLLM never looks
  // back at text that ended before the current delta.
  StopStringMatcher m({"ab"}, false);
  EXPECT_EQ(m.Push("xab", /*check_stop=*/false).text, "xab");
  EXPECT_EQ(m.Push("c").text, "c");
  EXPECT_FALSE(m.finished());
  // A stop string started under min_tokens and completed after it does match.
  StopStringMatcher m2({"ab"}, false);
  EXPECT_EQ(m2.Push("xa", false).text, "x");
  const StopStringMatcher::Update u = m2.Push("bc");
  EXPECT_TRUE(u.finished);
  EXPECT_EQ(u.text, "");
}

TEST(StopStringMatcherTest, EmptyDeltaChangesNothing) {
  StopStringMatcher m({"ab"}, false);
  EXPECT_EQ(m.Push("a").text, "");
  const StopStringMatcher::Update u = m.Push("");
  EXPECT_EQ(u.text, "");
  EXPECT_FALSE(u.finished);
  EXPECT_EQ(m.Push("b").text, "");
  EXPECT_TRUE(m.finished());
}

// vLLM's check_stop_strings, run on the cumulative text after each delta.
Streamed VllmReference(const std::vector<std::string>& stop, bool include, const std::vector<std::string>& deltas) {
  Streamed ref;
  std::string text;
  for (const std::string& d : deltas) {
    text += d;
    if (d.empty()) continue;
    for (size_t i = 0; i < stop.size(); ++i) {
      const std::string& s = stop[i];
      const long start = std::max(0L, static_cast<long>(text.size()) + 1 - static_cast<long>(d.size()) - static_cast<long>(s.size()));
      const size_t at = text.find(s, static_cast<size_t>(start));
      if (at == std::string::npos) continue;
      ref.text = text.substr(0, include ? at + s.size() : at);
      ref.finished = true;
      ref.stop_index = i;
      return ref;
    }
  }
  ref.text = text;
  return ref;
}

TEST(StopStringMatcherTest, RandomStreamsMatchVllmOnCumulativeText) {
  std::mt19937 rng(17);
  const std::vector<std::string> alphabet = {"a", "b", "c", "\xc3\xa9"};  // the last is "é", two bytes
  auto random_text = [&](size_t max_chars) {
    std::string t;
    for (size_t n = rng() % (max_chars + 1); n > 0; --n) t += alphabet[rng() % alphabet.size()];
    return t;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::string> stop;
    for (size_t n = 1 + rng() % 3; n > 0; --n) {
      std::string s = random_text(3);
      if (s.empty()) s.push_back('a');  // stop strings are never empty
      stop.push_back(s);
    }
    std::vector<std::string> deltas;
    for (size_t n = rng() % 8; n > 0; --n) deltas.push_back(random_text(3));
    const bool include = rng() % 2;

    const Streamed ref = VllmReference(stop, include, deltas);
    StopStringMatcher m(stop, include);
    std::string all;      // all the text pushed so far
    std::string emitted;  // all the text emitted so far
    bool finished = false;
    for (const std::string& d : deltas) {
      all += d;
      const StopStringMatcher::Update u = m.Push(d);
      emitted += u.text;
      if (u.finished) {
        finished = true;
        EXPECT_EQ(u.stop_index, ref.stop_index) << "trial " << trial;
        break;
      }
      // Only text that could still begin a stop string is held back.
      const std::string held = all.substr(emitted.size());
      const bool could_start = std::any_of(stop.begin(), stop.end(), [&](const std::string& s) {
        return held.size() < s.size() && s.compare(0, held.size(), held) == 0;
      });
      EXPECT_TRUE(held.empty() || (!include && could_start)) << "trial " << trial << " held '" << held << "'";
    }
    if (!finished) emitted += m.Flush();
    EXPECT_EQ(finished, ref.finished) << "trial " << trial;
    EXPECT_EQ(emitted, ref.text) << "trial " << trial;
  }
}

}  // namespace
}  // namespace pagoda
