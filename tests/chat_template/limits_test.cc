// A hostile template or context fails cleanly: no stack overflow, no
// unbounded memory or time.
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <string>

#include "render_helpers.h"

namespace pagoda::chat_template {
namespace {

using testing::FailsWith;
using testing::Render;

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Runs `fn` on a thread with a small stack, as a server's worker might have:
// 1 MiB, or under AddressSanitizer, whose redzones make every frame several
// times larger, the 8 MiB a thread gets by default.
void OnSmallStack(std::function<void()> fn) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr size_t kStackBytes = size_t{8} << 20;
#else
  constexpr size_t kStackBytes = size_t{1} << 20;
#endif
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, &fn), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

TEST(Limits, DeepNestingIsASyntaxError) {
  EXPECT_TRUE(FailsWith("{{ " + Repeat("(", 5000) + "1" + Repeat(")", 5000) + " }}", "nests too deeply"));
  EXPECT_TRUE(FailsWith("{{ " + Repeat("-", 100000) + "1 }}", "nests too deeply"));
  EXPECT_TRUE(FailsWith("{{ " + Repeat("not ", 100000) + "1 }}", "nests too deeply"));
  EXPECT_TRUE(FailsWith("{{ " + Repeat("[", 5000) + Repeat("]", 5000) + " }}", "nests too deeply"));
  EXPECT_TRUE(FailsWith(Repeat("{% if true %}", 5000) + Repeat("{% endif %}", 5000), "nests too deeply"));
  // Long operator chains build deep trees without any brackets.
  EXPECT_TRUE(FailsWith("{{ 1" + Repeat(" + 1", 100000) + " }}", "expression nests too deeply"));
  EXPECT_TRUE(FailsWith("{{ x" + Repeat(" | trim", 100000) + " }}", "expression nests too deeply"));
  EXPECT_TRUE(FailsWith("{{ x" + Repeat(".a", 100000) + " }}", "expression nests too deeply"));
  // Within the limits, it works.
  EXPECT_EQ(Render("{{ " + Repeat("(", 50) + "1" + Repeat(")", 50) + Repeat(" + 1", 200) + " }}"), "201");
}

TEST(Limits, TheDeepestTemplatesWorkOnASmallStack) {
  OnSmallStack([] {
    EXPECT_EQ(Render("{{ " + Repeat("(", 120) + "1" + Repeat(")", 120) + " }}"), "1");
    EXPECT_EQ(Render("{{ " + Repeat("[", 120) + Repeat("]", 120) + " | length }}"), "1");
    EXPECT_TRUE(FailsWith("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recursion is too deep"));
    // As deep as the limits allow, in each nested statement.
    EXPECT_TRUE(FailsWith("{% macro f(n) %}" + Repeat("{% if true %}", 90) + "{{ f([[[[[[n]]]]]]) }}" +
                              Repeat("{% endif %}", 90) + "{% endmacro %}{{ f(0) }}",
                          "recursion is too deep"));
  });
}

TEST(Limits, OutputSize) {
  RenderLimits limits;
  limits.max_output_bytes = 1 << 20;
  EXPECT_TRUE(FailsWith("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "exceed the limit of 1048576 bytes",
                        "{}", limits));
  EXPECT_TRUE(
      FailsWith("{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}"
                "{% endfor %}",
                "exceed the limit", "{}", limits));
  EXPECT_TRUE(FailsWith("{{ 'x' * 10000000000 }}", "exceed the limit", "{}", limits));
  EXPECT_TRUE(FailsWith("{{ [1] | tojson(indent=100000000) }}", "too large", "{}", limits));
  EXPECT_TRUE(
      FailsWith("{{ 'ab' | replace('', 'x' * 1000) * 1 }}", "exceed the limit", "{}", RenderLimits{1000, 1000000}));
}

TEST(Limits, Work) {
  EXPECT_TRUE(
      FailsWith("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "work limit"));
  EXPECT_TRUE(
      FailsWith("{% set ns = namespace(l=[1]) %}{% for i in range(100) %}{% set ns.l = ns.l + ns.l %}"
                "{% endfor %}",
                "list would exceed 4194304 items"));
  EXPECT_TRUE(FailsWith("{{ range(1000000) }}", "Range too big"));
  RenderLimits limits;
  limits.max_work = 1000;
  EXPECT_TRUE(FailsWith("{% for i in range(2000) %}{% endfor %}", "work limit", "{}", limits));
}

TEST(Limits, DeepValues) {
  // Built by the template...
  EXPECT_TRUE(FailsWith("{% set ns = namespace(v=1) %}{% for i in range(1000) %}{% set ns.v = [ns.v] %}{% endfor %}",
                        "values nest deeper than 128 levels"));
  // ...or given in the context.
  EXPECT_TRUE(FailsWith("{{ x }}", "context nests deeper than 128 levels",
                        R"({"x": )" + Repeat("[", 10000) + Repeat("]", 10000) + "}"));
  // A namespace holding itself cannot be printed forever.
  EXPECT_TRUE(FailsWith("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}", "too deeply to print"));
}

}  // namespace
}  // namespace pagoda::chat_template
