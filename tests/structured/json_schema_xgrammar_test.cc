// The JSON Schema grammar against xgrammar's: for every case of
// tests/fixtures/structured/json_schema_xgrammar (make_cases.py), Pagoda's
// grammar in xgrammar's compact layout (no whitespace, separators ", " and
// ": ", strict mode) accepts a text exactly when xgrammar does, but where
// the fixture names a deliberate departure (the script's DEPARTURES say
// why) and expects Pagoda's own answer.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grammar_test_util.h"
#include "pagoda/structured/json_schema_to_grammar.h"

namespace pagoda::structured {
namespace {

const std::vector<nlohmann::json>& Cases() {
  static const std::vector<nlohmann::json> cases = [] {
    std::vector<nlohmann::json> out;
    std::ifstream in(PAGODA_FIXTURES_DIR "/structured/json_schema_xgrammar/xgrammar_cases.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }();
  return cases;
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const nlohmann::json& c : Cases()) names.push_back(c.at("name"));
  return names;
}

class structured_json_schema_xgrammar : public ::testing::TestWithParam<std::string> {};

TEST_P(structured_json_schema_xgrammar, AgreesWithXgrammar) {
  const nlohmann::json* c = nullptr;
  for (const nlohmann::json& candidate : Cases()) {
    if (candidate.at("name") == GetParam()) c = &candidate;
  }
  ASSERT_NE(c, nullptr);
  JsonSchemaOptions options;  // xgrammar's any_whitespace=False
  options.max_whitespace = 0;
  options.item_separator = ", ";
  options.key_separator = ": ";
  const std::string schema = c->at("schema");
  auto built = JsonSchemaToGrammar(schema, options);
  ASSERT_TRUE(built.ok()) << schema << ": " << built.status().ToString();
  const auto grammar = std::make_shared<const Grammar>(std::move(*built));
  int accepted = 0;
  for (const nlohmann::json& instance : c->at("instances")) {
    const std::string text = instance.at("text");
    const bool got = testing::Accepts(grammar, text);
    accepted += got;
    EXPECT_EQ(got, instance.at("expect").get<bool>())
        << schema << "\n  text: " << text << "\n  xgrammar: " << instance.at("xgrammar")
        << ", jsonschema: " << instance.at("jsonschema") << ", departure: " << instance.value("departure", "none");
  }
  EXPECT_GT(accepted, 0);
}

INSTANTIATE_TEST_SUITE_P(Fixture, structured_json_schema_xgrammar, ::testing::ValuesIn(CaseNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace pagoda::structured
