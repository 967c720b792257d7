// The field policy against tests/fixtures/server/request_fields.json (every
// field of OpenAI's and vLLM's schemas is classified), refusals and their
// accepted "off" values, metadata checks, vLLM's warning about unknown
// fields, and the request options (request_id, truncate_prompt_tokens,
// cache_salt).
#include "pagoda/server/request_fields.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <fstream>

#include "pagoda/server/request_options.h"

namespace pagoda::server {
namespace {

using Json = nlohmann::json;

Json Fixture() {
  std::ifstream file(PAGODA_FIXTURES_DIR "/server/request_fields.json");
  return Json::parse(file);
}

// The error a body gets from the screen (nullopt: none).
std::optional<ApiError> Screen(const Json& body, Endpoint endpoint) {
  FieldReader r(body);
  ScreenRequestFields(r, endpoint, "test-id");
  return r.error();
}

// Captures the default logger's lines while alive.
class LogCapture {
 public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64)), previous_(spdlog::default_logger()) {
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink_));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::vector<std::string> Lines() { return sink_->last_formatted(); }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST(RequestFieldsTest, EveryFieldOfBothSchemasHasAPolicy) {
  const Json fixture = Fixture();
  for (const auto& [name, endpoint] : {std::pair{"completions", Endpoint::kCompletions}, {"chat", Endpoint::kChat}}) {
    ASSERT_GT(fixture.at(name).size(), 40u);
    for (const auto& [field, sources] : fixture.at(name).items()) {
      EXPECT_TRUE(PolicyOf(endpoint, field).has_value()) << name << " field '" << field << "' (" << sources.dump()
                                                         << ") has no policy";
    }
  }
}

TEST(RequestFieldsTest, FieldsOfTheOtherEndpointAreUnknown) {
  EXPECT_EQ(PolicyOf(Endpoint::kChat, "prompt"), std::nullopt);
  EXPECT_EQ(PolicyOf(Endpoint::kCompletions, "messages"), std::nullopt);
  EXPECT_EQ(PolicyOf(Endpoint::kCompletions, "suffix"), FieldPolicy::kRefused);
  EXPECT_EQ(PolicyOf(Endpoint::kChat, "user"), FieldPolicy::kMetadata);
  EXPECT_EQ(UnknownFields({{"prompt", "x"}, {"zeta", 1}, {"messages", Json::array()}, {"alpha", nullptr}},
                          Endpoint::kCompletions),
            (std::vector<std::string>{"alpha", "messages", "zeta"}));
}

TEST(RequestFieldsTest, RefusalsNameTheFieldAndOffValuesPass) {
  const std::vector<std::tuple<Endpoint, std::string, Json>> refused = {
      {Endpoint::kCompletions, "suffix", "end"},
      {Endpoint::kCompletions, "prompt_embeds", Json::array({"AAAA"})},
      {Endpoint::kCompletions, "logits_processors", Json::array({"my.Processor"})},
      {Endpoint::kChat, "kv_transfer_params", {{"do_remote_prefill", true}}},
      {Endpoint::kChat, "vllm_xargs", {{"k", 1}}},
      {Endpoint::kChat, "max_repetition_pattern_size", 8},
      {Endpoint::kChat, "audio", {{"voice", "alloy"}, {"format", "wav"}}},
      {Endpoint::kChat, "modalities", Json::array({"text", "audio"})},
      {Endpoint::kChat, "prediction", {{"type", "content"}, {"content", "x"}}},
      {Endpoint::kChat, "moderation", {{"model", "omni-moderation-latest"}}},
      {Endpoint::kChat, "web_search_options", Json::object()},
      {Endpoint::kChat, "verbosity", "low"},
      {Endpoint::kChat, "chat_template", "{{ messages }}"},
      {Endpoint::kChat, "mm_processor_kwargs", {{"fps", 2}}},
      {Endpoint::kChat, "structural_tag", "{}"},
      {Endpoint::kChat, "store", true},
      {Endpoint::kChat, "service_tier", "flex"},
  };
  for (const auto& [endpoint, field, value] : refused) {
    const std::optional<ApiError> error = Screen({{field, value}}, endpoint);
    ASSERT_TRUE(error) << field;
    EXPECT_EQ(error->status, 400);
    EXPECT_EQ(error->param, field);
    EXPECT_NE(error->message.find(field), std::string::npos) << error->message;
  }
  const std::vector<std::tuple<Endpoint, std::string, Json>> off = {
      {Endpoint::kCompletions, "suffix", ""},
      {Endpoint::kCompletions, "suffix", nullptr},
      {Endpoint::kCompletions, "prompt_embeds", Json::array()},
      {Endpoint::kChat, "logits_processors", Json::array()},
      {Endpoint::kChat, "kv_transfer_params", Json::object()},
      {Endpoint::kChat, "repetition_min_count", 0},
      {Endpoint::kChat, "modalities", Json::array({"text"})},
      {Endpoint::kChat, "store", false},
      {Endpoint::kChat, "service_tier", "auto"},
      {Endpoint::kChat, "service_tier", "default"},
  };
  for (const auto& [endpoint, field, value] : off) {
    const std::optional<ApiError> error = Screen({{field, value}}, endpoint);
    EXPECT_FALSE(error) << field << " = " << value.dump() << ": " << error->message;
  }
}

TEST(RequestFieldsTest, MetadataIsCheckedAsOpenAIDoesAndLoggedWithTheId) {
  Json big = Json::object();
  for (int i = 0; i < 17; ++i) big[fmt::format("k{}", i)] = "v";
  EXPECT_EQ(Screen({{"metadata", big}}, Endpoint::kChat)->param, "metadata");
  EXPECT_EQ(Screen({{"metadata", {{"k", 1}}}}, Endpoint::kChat)->param, "metadata");
  EXPECT_EQ(Screen({{"metadata", {{std::string(65, 'k'), "v"}}}}, Endpoint::kChat)->param, "metadata");
  EXPECT_EQ(Screen({{"user", 5}}, Endpoint::kCompletions)->param, "user");
  EXPECT_EQ(Screen({{"prompt_cache_retention", "forever"}}, Endpoint::kChat)->param, "prompt_cache_retention");
  EXPECT_EQ(Screen({{"prompt_cache_options", "x"}}, Endpoint::kChat)->param, "prompt_cache_options");

  LogCapture capture;
  EXPECT_FALSE(Screen({{"user", "u-1"},
                       {"metadata", {{"team", "a"}}},
                       {"safety_identifier", "s"},
                       {"prompt_cache_key", "k"},
                       {"prompt_cache_retention", "24h"},
                       {"prompt_cache_options", {{"mode", "implicit"}}}},
                      Endpoint::kChat));
  const std::vector<std::string> lines = capture.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("test-id: request metadata {\"metadata\":{\"team\":\"a\"}"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"user\":\"u-1\""), std::string::npos) << lines[0];
}

TEST(RequestFieldsTest, UnknownFieldsGetOneWarningInVllmsWords) {
  LogCapture capture;
  EXPECT_FALSE(Screen({{"model", "m"}, {"foo", 1}, {"bar", {{"x", 1}}}}, Endpoint::kChat));
  EXPECT_FALSE(Screen({{"model", "m"}}, Endpoint::kChat));
  const std::vector<std::string> lines = capture.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("[warning] The following fields were present in the request but ignored: {'bar', 'foo'}"),
            std::string::npos)
      << lines[0];
}

TEST(RequestFieldsTest, TheWarningEscapesNamesAndNamesAFew) {
  EXPECT_EQ(IgnoredFieldsWarning({"a\nb"}), "The following fields were present in the request but ignored: {'a\\nb'}");
  std::vector<std::string> many;
  for (int i = 0; i < 40; ++i) many.push_back(fmt::format("f{}", 100 + i));
  const std::string warning = IgnoredFieldsWarning(many);
  EXPECT_NE(warning.find("'f131', ... (8 more)}"), std::string::npos) << warning;
  EXPECT_EQ(warning.find("f132"), std::string::npos);
}

TEST(RequestOptionsTest, RequestIdNamesTheResponse) {
  Json body = {{"request_id", "abc"}, {"return_token_ids", true}, {"return_tokens_as_token_ids", true}};
  FieldReader r(body);
  const RequestOptions options = ReadRequestOptions(r, "chatcmpl");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(options.id, "chatcmpl-abc");
  EXPECT_TRUE(options.return_token_ids);
  EXPECT_TRUE(options.tokens_as_ids);

  for (const Json& missing : {Json::object(), Json{{"request_id", ""}}}) {
    FieldReader m(missing);
    const std::string id = ReadRequestOptions(m, "cmpl").id;
    EXPECT_TRUE(id.starts_with("cmpl-")) << id;
    EXPECT_EQ(id.size(), 5u + 32u) << id;
  }
  Json bad = {{"request_id", 7}};
  FieldReader b(bad);
  EXPECT_FALSE(ReadRequestOptions(b, "cmpl").id.empty());
  EXPECT_EQ(b.error()->param, "request_id");
}

std::optional<ApiError> Truncate(std::vector<int32_t>& ids, int64_t k, std::optional<int64_t> max_tokens) {
  Json body = {{"truncate_prompt_tokens", k}};
  FieldReader r(body);
  const RequestOptions options = ReadRequestOptions(r, "cmpl");
  EXPECT_TRUE(r.ok());
  return TruncatePrompt(ids, options, max_tokens, ServingLimits{.max_model_len = 10, .vocab_size = 100});
}

TEST(RequestOptionsTest, TruncationKeepsTheLastTokensAsVllm) {
  std::vector<int32_t> ids = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_FALSE(Truncate(ids, 3, 4));
  EXPECT_EQ(ids, (std::vector<int32_t>{6, 7, 8}));
  EXPECT_FALSE(Truncate(ids, 5, 4));  // already shorter
  EXPECT_EQ(ids.size(), 3u);

  // -1: what leaves room for max_tokens (10 - 4).
  ids = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_FALSE(Truncate(ids, -1, 4));
  EXPECT_EQ(ids, (std::vector<int32_t>{3, 4, 5, 6, 7, 8}));
  ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  EXPECT_FALSE(Truncate(ids, -1, std::nullopt));  // chat without max_tokens: the whole context
  EXPECT_EQ(ids.size(), 10u);

  std::optional<ApiError> error = Truncate(ids, 7, 4);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->param, "truncate_prompt_tokens");
  EXPECT_NE(error->message.find("max_model_len - max_tokens = 6"), std::string::npos) << error->message;
  EXPECT_EQ(Truncate(ids, 0, 4)->param, "truncate_prompt_tokens");

  Json body = {{"truncate_prompt_tokens", -2}};
  FieldReader r(body);
  ReadRequestOptions(r, "cmpl");
  EXPECT_EQ(r.error()->param, "truncate_prompt_tokens");
}

TEST(RequestOptionsTest, CacheSaltReachesTheSamplingParams) {
  const ServingLimits limits{.max_model_len = 100, .vocab_size = 1000};
  Json body = {{"cache_salt", "tenant-a"}};
  FieldReader r(body);
  const nlohmann::ordered_json ordered = body;
  std::optional<SamplingRequest> request =
      ReadSamplingRequest(r, ordered, Endpoint::kChat, OutputKind::kFinalOnly, limits);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->params.cache_salt, "tenant-a");

  Json empty = {{"cache_salt", ""}};
  FieldReader e(empty);
  EXPECT_FALSE(ReadSamplingRequest(e, empty, Endpoint::kChat, OutputKind::kFinalOnly, limits));
  EXPECT_EQ(e.error()->param, "cache_salt");
}

}  // namespace
}  // namespace pagoda::server
