// Statements and jinja2's scoping rules, checked against jinja2's output for
// the same templates.
#include <gtest/gtest.h>

#include "render_helpers.h"

namespace pagoda::chat_template {
namespace {

using testing::FailsWith;
using testing::Render;

constexpr char kContext[] = R"({"d": {"a": 1, "items": 2}, "l": [3, 1, 2]})";

TEST(Statements, IfElifElse) {
  EXPECT_EQ(Render("{% for x in [1, 2, 3] %}{% if x == 1 %}a{% elif x == 2 %}b{% else %}c{% endif %}{% endfor %}"),
            "abc");
}

TEST(Statements, LoopVariables) {
  EXPECT_EQ(Render("{% for a in [1, 2, 3] %}{{ loop.previtem }}-{{ loop.nextitem }}-{{ loop.revindex }}-"
                   "{{ loop.revindex0 }}-{{ loop.length }}-{{ loop.cycle('x', 'y') }};{% endfor %}"),
            "-2-3-2-3-x;1-3-2-1-3-y;2--1-0-3-x;");
  EXPECT_EQ(Render("{% for i in range(3) %}{{ loop.first }}{{ loop.last }}{{ loop.index0 }}{{ loop.index }} "
                   "{% endfor %}"),
            "TrueFalse01 FalseFalse12 FalseTrue23 ");
  // An inner loop's `loop` hides the outer one.
  EXPECT_EQ(
      Render("{% for i in l %}{% for j in l %}{{ loop.index }}{% endfor %}{{ loop.index }};{% endfor %}", kContext),
      "1231;1232;1233;");
  EXPECT_TRUE(FailsWith("{% for i in [1] %}{% endfor %}{{ loop.index }}", "'loop' is undefined"));
}

TEST(Statements, LoopFilterElseBreakContinue) {
  EXPECT_EQ(Render("{% for a in [1, 2, 3] if a > 1 %}{{ loop.index }}/{{ loop.length }} {% else %}none{% endfor %}"),
            "1/2 2/2 ");
  EXPECT_EQ(Render("{% for a in [] %}x{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(Render("{% for i in l %}{% break %}{% endfor %}x{% for i in l %}{% if i == 1 %}{% continue %}{% endif %}"
                   "{{ i }}{% endfor %}",
                   kContext),
            "x32");
}

TEST(Statements, LoopsOverDictsStringsAndPairs) {
  EXPECT_EQ(Render("{% for a, b in [[1, 2], [3, 4]] %}{{ a }}{{ b }}{% endfor %}{% for k, v in d.items() %}{{ k }}="
                   "{{ v }},{% endfor %}{% for k in d %}{{ k }}{% endfor %}{% for c in 'hé' %}[{{ c }}]{% endfor %}",
                   kContext),
            "1234a=1,items=2,aitems[h][é]");
  EXPECT_EQ(Render("{% for x in undefined_list %}x{% endfor %}ok"), "ok");
  EXPECT_TRUE(FailsWith("{% for a, b in [[1, 2, 3]] %}{% endfor %}", "too many values to unpack (expected 2)"));
  EXPECT_TRUE(FailsWith("{% for x in none %}{% endfor %}", "'NoneType' object is not iterable"));
}

TEST(Statements, SetInsideALoopStaysInTheIteration) {
  EXPECT_EQ(Render("{% for i in range(3) %}{% if i == 0 %}{% set x = 'a' %}{% endif %}{{ x }}{% endfor %}"), "a");
  EXPECT_EQ(Render("{% set x = 'g' %}{% for i in range(3) %}{% if i == 1 %}{% set x = 'a' %}{% endif %}{{ x }}"
                   "{% endfor %}{{ x }}"),
            "gagg");
  EXPECT_EQ(Render("{% set x = 'g' %}{% for i in range(2) %}{{ x }}{% set x = i %}{{ x }}{% endfor %}"), "g0g1");
  // if-blocks are no scope.
  EXPECT_EQ(Render("{% if true %}{% set x = 1 %}{% endif %}{{ x }}"), "1");
}

TEST(Statements, NamespacesCarryStateOutOfLoops) {
  EXPECT_EQ(
      Render("{% set ns = namespace(x=0) %}{% for i in l %}{% set ns.x = ns.x + i %}{% endfor %}{{ ns.x }}", kContext),
      "6");
  EXPECT_EQ(Render("{% set ns = namespace(a=1) %}{{ ns.b }}|{{ ns.b is defined }}{{ ns['a'] }}"), "|False1");
  EXPECT_EQ(Render("{% set x = namespace(items=[]) %}{% set x.items = x.items + [1] %}{{ x.items }}"), "[1]");
  EXPECT_TRUE(FailsWith("{% set x = 1 %}{% set x.a = 2 %}", "cannot assign attribute on non-namespace object"));
  EXPECT_TRUE(FailsWith("{% set ns = namespace() %}{% set ns._x = 1 %}", "underscore-prefixed attributes"));
}

TEST(Statements, SetForms) {
  EXPECT_EQ(Render("{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set t = 1, 2 %}{{ t }}"), "12(1, 2)");
  EXPECT_EQ(Render("{% set x %}hello {{ 1 }}{% endset %}[{{ x }}]{% set y | upper | trim %} abc {% endset %}[{{ y }}]"),
            "[hello 1][ABC]");
  EXPECT_EQ(Render("{% set x = 5 %}{% set x = x + 1 %}{{ x }}"), "6");
}

TEST(Statements, Macros) {
  EXPECT_EQ(Render("{% macro m(a, b=2) %}[{{ a }}{{ b }}]{% endmacro %}{{ m(1) }}{{ m(1, 3) }}{{ m(b=5, a=0) }}"),
            "[12][13][05]");
  EXPECT_EQ(Render("{% macro m(a, b) %}[{{ a }}{{ b is defined }}]{% endmacro %}{{ m(1) }}"), "[1False]");
  EXPECT_EQ(Render("{% macro m() %}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, k=3) }}"), "(1, 2){'k': 3}");
  EXPECT_EQ(Render("{% macro m(n) %}{% if n > 0 %}{{ n }}{{ m(n - 1) }}{% endif %}{% endmacro %}{{ m(3) }}"), "321");
  EXPECT_TRUE(FailsWith("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}", "macro 'm' takes not more than 1"));
  EXPECT_TRUE(FailsWith("{% macro m(a) %}{% endmacro %}{{ m(b=1) }}", "macro 'm' takes no keyword argument 'b'"));
}

TEST(Statements, MacrosSeeTemplateGlobalsNotCallerLocals) {
  EXPECT_EQ(Render("{% set x = 0 %}{% macro m() %}{{ x }}{% endmacro %}{% set x = 1 %}{{ m() }}"), "1");
  EXPECT_EQ(Render("{% macro m() %}{{ i }}{% endmacro %}{% for i in l %}{{ m() }}{% endfor %}", kContext), "");
  EXPECT_EQ(Render("{% macro m() %}{{ l }}{% set l = 5 %}{{ l }}{% endmacro %}{{ m() }}{{ l }}", kContext),
            "[3, 1, 2]5[3, 1, 2]");
  // Namespaces are shared, so a macro can count.
  EXPECT_EQ(Render("{% set c = namespace(n=0) %}{% macro bump() %}{% set c.n = c.n + 1 %}{% endmacro %}"
                   "{{ bump() }}{{ bump() }}{{ c.n }}"),
            "2");
}

TEST(Statements, FilterAndGenerationBlocks) {
  EXPECT_EQ(Render("{% filter upper %}abc {{ 'd' }}{% endfilter %}"), "ABC D");
  // transformers' {% generation %} marks assistant text; it renders as is.
  EXPECT_EQ(Render("a{% generation %}b{{ 'c' }}{% endgeneration %}d"), "abcd");
}

}  // namespace
}  // namespace pagoda::chat_template
