// Structured outputs through the engine on the default model: the output
// follows the constraint whatever the sampling, ends when the grammar does,
// and bad constraints are refused up front.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "engine_test_util.h"
#include "pagoda/engine/structured_output.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

class EngineStructuredTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { engine_ = MakeEngine(TestEngineConfig(128)).release(); }
  static void TearDownTestSuite() {
    delete engine_;
    engine_ = nullptr;
  }

  StatusOr<std::shared_ptr<OutputStream>> Add(const SamplingParams& params) {
    return engine_->AddRequest("s" + std::to_string(next_id_++), kPrompt, params);
  }
  RequestOutput Run(const SamplingParams& params) {
    auto stream = Add(params);
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    return stream.ok() ? WaitFinal(**stream) : RequestOutput{};
  }

  static constexpr const char* kPrompt = "Question: which city is the capital of France? Answer:";
  static Engine* engine_;
  static inline int next_id_ = 0;
};

Engine* EngineStructuredTest::engine_ = nullptr;

SamplingParams Choose(std::vector<std::string> choices, float temperature, int64_t seed) {
  SamplingParams p;
  p.temperature = temperature;
  p.seed = seed;
  p.max_tokens = 32;
  p.structured_outputs = StructuredOutputsParams{};
  p.structured_outputs->choice = std::move(choices);
  return p;
}

// "no" is a prefix of "no idea": after it, end-of-sequence and " idea" are
// both allowed. The emoji and the accented word take multi-byte tokens.
const std::vector<std::string> kChoices = {"Paris", "Berlin", "no", "no idea", "\xF0\x9F\x98\x80 yes", "Z\xC3\xBCrich"};

TEST_F(EngineStructuredTest, EverySampledOutputIsAChoice) {
  ASSERT_NE(engine_, nullptr);
  const std::set<std::string> allowed(kChoices.begin(), kChoices.end());
  std::set<std::string> seen;
  for (int64_t seed = 0; seed < 12; ++seed) {
    SamplingParams p = Choose(kChoices, /*temperature=*/2.0f, seed);  // hot: wander among the choices
    p.n = 2;
    const RequestOutput out = Run(p);
    ASSERT_EQ(out.outputs.size(), 2u);
    for (const CompletionOutput& c : out.outputs) {
      EXPECT_TRUE(allowed.count(c.text)) << "seed " << seed << ": \"" << c.text << "\"";
      EXPECT_EQ(c.finish_reason, FinishReason::kStop) << c.text;
      seen.insert(c.text);
    }
  }
  EXPECT_GE(seen.size(), 2u);  // the constraint, not a fixed answer
}

// Beam search keeps a grammar state per beam: every hypothesis is a
// choice, and the beams that share a prefix ("no", "no idea") part ways.
TEST_F(EngineStructuredTest, EveryBeamFollowsTheGrammar) {
  ASSERT_NE(engine_, nullptr);
  SamplingParams p = Choose(kChoices, 0.0f, 0);
  p.use_beam_search = true;
  p.beam_width = 4;
  p.n = 4;
  const RequestOutput out = Run(p);
  ASSERT_EQ(out.outputs.size(), 4u);
  std::set<std::string> texts;
  for (const CompletionOutput& c : out.outputs) {
    EXPECT_TRUE(std::count(kChoices.begin(), kChoices.end(), c.text)) << "\"" << c.text << "\"";
    texts.insert(c.text);
  }
  // Two hypotheses may spell one choice with different tokens; the beams
  // still reach more than one choice.
  EXPECT_GE(texts.size(), 2u);
}

// When the model's own greedy path spells a choice, the constrained greedy
// output is exactly that path: the mask never removes the argmax.
TEST_F(EngineStructuredTest, GreedyFollowsTheModelWhereTheChoiceAllows) {
  ASSERT_NE(engine_, nullptr);
  SamplingParams free;
  free.temperature = 0.0f;
  free.max_tokens = 3;
  const CompletionOutput unconstrained = Run(free).outputs.at(0);
  ASSERT_EQ(unconstrained.token_ids.size(), 3u);
  const CompletionOutput out = Run(Choose({"Berlin", unconstrained.text, "Rome"}, 0.0f, 0)).outputs.at(0);
  EXPECT_EQ(out.text, unconstrained.text);
  EXPECT_EQ(out.token_ids, unconstrained.token_ids);
  EXPECT_EQ(out.finish_reason, FinishReason::kStop);
  EXPECT_FALSE(out.stop_reason.has_value());
}

TEST_F(EngineStructuredTest, MaxTokensTruncatesAsIs) {
  ASSERT_NE(engine_, nullptr);
  const std::string only = "The quick brown fox jumps over the lazy dog";
  SamplingParams p = Choose({only}, 0.0f, 0);
  p.max_tokens = 3;
  const CompletionOutput out = Run(p).outputs.at(0);
  EXPECT_EQ(out.finish_reason, FinishReason::kLength);
  EXPECT_EQ(out.token_ids.size(), 3u);
  EXPECT_FALSE(out.text.empty());
  EXPECT_EQ(only.substr(0, out.text.size()), out.text);
}

TEST_F(EngineStructuredTest, ConstrainedTokensDoNotDependOnTheBatch) {
  ASSERT_NE(engine_, nullptr);
  std::vector<SamplingParams> params;
  for (int64_t seed = 0; seed < 4; ++seed) params.push_back(Choose(kChoices, 1.5f, seed));
  std::vector<std::vector<int32_t>> alone;
  for (const SamplingParams& p : params) alone.push_back(Run(p).outputs.at(0).token_ids);
  std::vector<std::shared_ptr<OutputStream>> streams;
  for (const SamplingParams& p : params) {
    auto stream = Add(p);
    ASSERT_TRUE(stream.ok());
    streams.push_back(*stream);
  }
  for (size_t i = 0; i < streams.size(); ++i) EXPECT_EQ(WaitFinal(*streams[i]).outputs.at(0).token_ids, alone[i]);
}

// Mask walks overlap with the forward on a thread of their own when a
// hardware thread is free (an engine with one compute thread), and run
// before it when the model's threads take every core: the tokens are the
// same either way, n>1 children included. (On a one-core machine both
// engines walk before the forward.)
TEST(EngineStructuredMaskWalksTest, SameTokensBesideOrBeforeTheForward) {
  SamplingParams p;
  p.temperature = 1.0f;
  p.max_tokens = 40;
  p.n = 2;
  p.structured_outputs = StructuredOutputsParams{};
  p.structured_outputs->json =
      R"({"type": "object", "properties": {"city": {"type": "string", "maxLength": 12},)"
      R"( "population": {"type": "integer"}}, "required": ["city", "population"]})";
  std::vector<std::vector<std::vector<int32_t>>> runs;
  for (const int threads : {1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))}) {
    EngineConfig config = TestEngineConfig(128);
    config.threads = threads;
    std::unique_ptr<Engine> engine = MakeEngine(config);
    ASSERT_NE(engine, nullptr);
    std::vector<std::vector<int32_t>> tokens;
    for (int64_t seed = 0; seed < 3; ++seed) {
      p.seed = seed;
      auto stream = engine->AddRequest("w" + std::to_string(seed), "A JSON record of a city:", p);
      ASSERT_TRUE(stream.ok()) << stream.status().ToString();
      for (const CompletionOutput& c : WaitFinal(**stream).outputs) tokens.push_back(c.token_ids);
    }
    ASSERT_EQ(tokens.size(), 6u);
    runs.push_back(std::move(tokens));
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TEST_F(EngineStructuredTest, BadConstraintsAreRefusedUpFront) {
  ASSERT_NE(engine_, nullptr);
  SamplingParams two = Choose({"a"}, 0.0f, 0);
  two.structured_outputs->regex = "a";
  EXPECT_EQ(Add(two).status().code(), StatusCode::kInvalidArgument);

  SamplingParams none;
  none.structured_outputs = StructuredOutputsParams{};
  EXPECT_EQ(Add(none).status().code(), StatusCode::kInvalidArgument);

  const Status empty = Add(Choose({}, 0.0f, 0)).status();
  EXPECT_NE(empty.message().find("choice"), std::string::npos) << empty.message();

  SamplingParams tag;
  tag.structured_outputs = StructuredOutputsParams{};
  tag.structured_outputs->structural_tag = "{}";
  EXPECT_NE(Add(tag).status().message().find("structural_tag"), std::string::npos);
}

}  // namespace
}  // namespace pagoda

namespace pagoda {
namespace {

using namespace pagoda::testing;

// With a reasoning parser, the grammar waits for the end of the reasoning:
// the thinking is free and the answer after </think> is constrained.
class GrammarAfterReasoningTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    EngineConfig config = TestEngineConfig(128);
    config.reasoning = ReasoningMarkers{"<think>", "</think>"};
    engine_ = MakeEngine(config).release();
  }
  static void TearDownTestSuite() {
    delete engine_;
    engine_ = nullptr;
  }
  static RequestOutput Run(const std::string& prompt, const SamplingParams& params) {
    auto stream = engine_->AddRequest("r" + std::to_string(next_id_++), prompt, params);
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    return stream.ok() ? WaitFinal(**stream) : RequestOutput{};
  }
  static Engine* engine_;
  static inline int next_id_ = 0;
};

Engine* GrammarAfterReasoningTest::engine_ = nullptr;

// The constraint follows a sequence token by token: free until the end
// marker, whose token may carry the answer's first bytes.
TEST_F(GrammarAfterReasoningTest, ConstraintWaitsForTheEndMarker) {
  ASSERT_NE(engine_, nullptr);
  const tokenizer::Tokenizer& tokenizer = engine_->tokenizer();
  StructuredOutputCompiler compiler(tokenizer, tokenizer.vocab_size());
  StructuredOutputsParams params;
  params.choice = std::vector<std::string>{"yes", "no"};
  auto grammar = compiler.Compile(params);
  ASSERT_TRUE(grammar.ok()) << grammar.status().ToString();
  const std::vector<int32_t> eos = {*tokenizer.eos_id()};
  for (const std::string& text : {std::string("Maybe no, maybe yes.</think>yes"), std::string("hmm</think>no")}) {
    GrammarConstraint constraint(*grammar, eos, tokenizer, "</think>");
    const std::vector<int32_t> ids = tokenizer.Encode(text, tokenizer::EncodeOptions{.add_special = false});
    const std::string end = "</think>";
    std::string seen;
    for (const int32_t id : ids) {
      constraint.ComputeNextTokenBitmask();
      EXPECT_EQ(constraint.bitmask().empty(), seen.find(end) == std::string::npos) << text << " after '" << seen << "'";
      ASSERT_TRUE(constraint.Accept(id)) << text << " after '" << seen << "'";
      seen += std::string(tokenizer.TokenToPiece(id).value());
    }
    EXPECT_TRUE(constraint.Finished()) << text;
  }
  // Reasoning that mentions an answer the grammar refuses is still free;
  // the answer after it is not.
  GrammarConstraint constraint(*grammar, eos, tokenizer, "</think>");
  for (const int32_t id : tokenizer.Encode("maybe</think>", tokenizer::EncodeOptions{.add_special = false})) {
    ASSERT_TRUE(constraint.Accept(id));
  }
  bool refused = false;
  for (const int32_t id : tokenizer.Encode("maybe", tokenizer::EncodeOptions{.add_special = false})) {
    refused = refused || !constraint.Accept(id);
  }
  EXPECT_TRUE(refused);
}

// An open <think> leaves the output free: greedy decoding is the model's own.
TEST_F(GrammarAfterReasoningTest, OpenReasoningIsUnconstrained) {
  ASSERT_NE(engine_, nullptr);
  const std::string prompt = "Question: is Paris in France? Think first.\n<think>\n";
  SamplingParams free;
  free.temperature = 0.0f;
  free.max_tokens = 8;
  SamplingParams constrained = free;
  constrained.structured_outputs = StructuredOutputsParams{};
  constrained.structured_outputs->choice = std::vector<std::string>{"yes", "no"};
  const CompletionOutput a = Run(prompt, free).outputs.at(0);
  const CompletionOutput b = Run(prompt, constrained).outputs.at(0);
  ASSERT_EQ(a.text.find("</think>"), std::string::npos) << "the model closed its reasoning: pick another prompt";
  EXPECT_EQ(a.token_ids, b.token_ids);
  EXPECT_NE(b.text, "yes");
  EXPECT_NE(b.text, "no");
}

// A prompt whose reasoning is closed already (thinking turned off) is
// constrained from the first token.
TEST_F(GrammarAfterReasoningTest, ClosedReasoningInThePromptConstrainsAtOnce) {
  ASSERT_NE(engine_, nullptr);
  SamplingParams p;
  p.temperature = 1.5f;
  p.max_tokens = 8;
  p.structured_outputs = StructuredOutputsParams{};
  p.structured_outputs->choice = std::vector<std::string>{"yes", "no"};
  for (int64_t seed = 0; seed < 4; ++seed) {
    p.seed = seed;
    const CompletionOutput c = Run("Is Paris in France?\n<think>\n\n</think>\n\n", p).outputs.at(0);
    EXPECT_TRUE(c.text == "yes" || c.text == "no") << c.text;
  }
}

}  // namespace
}  // namespace pagoda
