// The JSON Schema grammar against the `jsonschema` package: for every case
// of tests/fixtures/structured/json_schema (make_json_schema_cases.py), the
// grammar accepts exactly the instances labelled "expect": those jsonschema
// calls valid, less the documented places where the grammar is stricter
// (whitespace bound, integer spelling, uuid/email subsets; the script
// checks that nothing else differs).
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

struct Instance {
  std::string text;
  bool valid;
  bool expect;
};

struct Case {
  std::string name;
  std::string grammar;  // "schema" or "json_object"
  std::string schema;
  bool strict;
  std::vector<Instance> instances;
};

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

std::vector<Case> LoadCases() {
  std::ifstream in(PAGODA_FIXTURES_DIR "/structured/json_schema/json_schema_cases.jsonl");
  std::vector<Case> cases;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    Case c{j.at("name"), j.at("grammar"), j.at("schema"), j.at("strict"), {}};
    for (const auto& instance : j.at("instances")) {
      const std::string text = instance.contains("hex") ? FromHex(instance.at("hex")) : instance.at("text").get<std::string>();
      c.instances.push_back({text, instance.at("valid"), instance.at("expect")});
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = LoadCases();
  return cases;
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const Case& c : Cases()) names.push_back(c.name);
  return names;
}

class structured_json_schema_fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(structured_json_schema_fixture, AcceptsExactlyTheExpectedInstances) {
  const Case* c = nullptr;
  for (const Case& candidate : Cases()) {
    if (candidate.name == GetParam()) c = &candidate;
  }
  ASSERT_NE(c, nullptr);
  JsonSchemaOptions options;
  options.strict = c->strict;
  auto built = c->grammar == "json_object" ? AnyJsonGrammar(options) : JsonSchemaToGrammar(c->schema, options);
  ASSERT_TRUE(built.ok()) << c->schema << ": " << built.status().ToString();
  const auto grammar = std::make_shared<const Grammar>(std::move(*built));
  int mismatches = 0;
  for (const Instance& instance : c->instances) {
    GrammarMatcher matcher(grammar);
    const bool accepted = matcher.AcceptBytes(instance.text) && matcher.IsAccepting();
    EXPECT_FALSE(matcher.Overflowed()) << instance.text;
    if (accepted != instance.expect && ++mismatches <= 8) {
      ADD_FAILURE() << "schema " << c->schema << "\n  text " << instance.text << "\n  grammar "
                    << (accepted ? "accepts" : "rejects") << ", jsonschema says "
                    << (instance.valid ? "valid" : "invalid") << (instance.valid != instance.expect ? " (stricter policy)" : "");
    }
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Cases, structured_json_schema_fixture, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(structured_json_schema_fixture_file, HasTheCases) {
  size_t instances = 0, expected = 0, stricter = 0;
  for (const Case& c : Cases()) {
    instances += c.instances.size();
    for (const Instance& i : c.instances) {
      expected += i.expect;
      stricter += i.valid && !i.expect;
    }
  }
  EXPECT_GE(Cases().size(), 60u);
  EXPECT_GE(instances, 2000u);
  EXPECT_GT(expected, 500u);
  EXPECT_GT(stricter, 20u);  // the stricter places are exercised too
}

}  // namespace
}  // namespace pagoda::structured
