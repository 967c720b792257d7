// Rendering shorthands for the unit tests.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "pagoda/chat_template/chat_template.h"

namespace pagoda::chat_template::testing {

// Renders `source` with `context` (a JSON object as text); a failure to
// parse or render becomes the returned text "ERROR: <message>", so tests can
// compare both outcomes with one EXPECT_EQ.
inline std::string Render(const std::string& source, const std::string& context = "{}",
                          const RenderLimits& limits = {}) {
  StatusOr<ChatTemplate> parsed = ChatTemplate::Parse(source);
  if (!parsed.ok()) return "ERROR: " + parsed.status().message();
  StatusOr<std::string> rendered = parsed->Render(nlohmann::ordered_json::parse(context), limits);
  if (!rendered.ok()) return "ERROR: " + rendered.status().message();
  return *rendered;
}

// True when rendering fails with a message containing `fragment`.
inline ::testing::AssertionResult FailsWith(const std::string& source, const std::string& fragment,
                                            const std::string& context = "{}", const RenderLimits& limits = {}) {
  const std::string result = Render(source, context, limits);
  if (result.rfind("ERROR: ", 0) == 0 && result.find(fragment) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "rendered \"" << result << "\", expected an error with \"" << fragment
                                       << "\"";
}

}  // namespace pagoda::chat_template::testing
