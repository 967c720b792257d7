// Whitespace control as transformers configures jinja2: trim_blocks,
// lstrip_blocks, `-` and `+` markers, and the dropped trailing newline.
// Expected texts are jinja2's output for the same sources.
#include <gtest/gtest.h>

#include "render_helpers.h"

namespace pagoda::chat_template {
namespace {

using testing::Render;

TEST(Whitespace, TrimBlocksDropsTheNewlineAfterABlockTag) {
  EXPECT_EQ(Render("a\n{% set x = 1 %}\nb"), "a\nb");
  EXPECT_EQ(Render("{% if true %}\n  yes\n  {% endif %}\ndone"), "  yes\ndone");
  EXPECT_EQ(Render("a{# comment #}\nb"), "ab");  // comments too
}

TEST(Whitespace, VariableTagsKeepTheirNewline) { EXPECT_EQ(Render("{{ 'a' }}\n{{ 'b' }}"), "a\nb"); }

TEST(Whitespace, LstripBlocksDropsIndentationBeforeBlockTags) {
  EXPECT_EQ(Render("  {% if true %}\n    a\n  {% endif %}\n  {{ 'b' }}\n  {# c #}\nz"), "    a\n  b\nz");
  EXPECT_EQ(Render("\t{% if true %}tab{% endif %}"), "tab");
  // Only indentation: text before the tag on the same line stays.
  EXPECT_EQ(Render("text   {% if true %}x{% endif %}"), "text   x");
}

TEST(Whitespace, MinusStripsAllWhitespaceOnThatSide) {
  EXPECT_EQ(Render("{%- for x in [1, 2] -%}\n  {{ x }}\n{%- endfor %}"), "12");
  EXPECT_EQ(Render("a  {{- 'b' -}}  \n c"), "abc");
  EXPECT_EQ(Render("a {#- c -#} b"), "ab");
  EXPECT_EQ(Render("{% if true -%}\n\n  x\n{%- endif %}"), "x");
  EXPECT_EQ(Render("x\u3000 {{- 'y' }}"), "xy");  // Unicode spaces count, as in Python
}

TEST(Whitespace, PlusKeepsWhitespace) { EXPECT_EQ(Render("x {%+ if true %}y{% endif +%}\nz"), "x y\nz"); }

TEST(Whitespace, OneTrailingNewlineIsDropped) {
  EXPECT_EQ(Render("line\n"), "line");
  EXPECT_EQ(Render("line\n\n"), "line\n");
  EXPECT_EQ(Render("a\r\nb\rc"), "a\nb\nc");
}

TEST(Whitespace, RawBlocksAreVerbatim) {
  EXPECT_EQ(Render("{% raw %}{{ x }}{% if %}{% endraw %}"), "{{ x }}{% if %}");
  EXPECT_EQ(Render("{%- raw -%}  {{ x }}  {%- endraw %}"), "{{ x }}");
}

TEST(Literals, StringsUsePythonEscapes) {
  EXPECT_EQ(Render(R"({{ "a\nb" }}|{{ 'it\'s' }}|{{ "\u00e9\x41\101" }}|{{ 'a\qb' }})"), "a\nb|it's|éAA|a\\qb");
  EXPECT_EQ(Render("{{ 'a' 'b' }}"), "ab");
  EXPECT_EQ(Render("{{ 'multi\nline' }}"), "multi\nline");
}

TEST(Literals, Numbers) {
  EXPECT_EQ(Render("{{ 1_000 }} {{ 0x1F }} {{ 0b101 }} {{ 0o17 }} {{ 1.5e3 }} {{ 2e-3 }} {{ 1_0.5 }}"),
            "1000 31 5 15 1500.0 0.002 10.5");
  EXPECT_EQ(Render("{{ [1, 2, 3].1 }}"), "2");
  EXPECT_EQ(Render("{{ true }} {{ False }} {{ none }} {{ None }}"), "True False None None");
}

}  // namespace
}  // namespace pagoda::chat_template
