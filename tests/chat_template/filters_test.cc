// Filters, checked against jinja2's output for the same templates (and
// transformers' tojson against Python's json.dumps).
#include <gtest/gtest.h>

#include "render_helpers.h"

namespace pagoda::chat_template {
namespace {

using testing::FailsWith;
using testing::Render;

constexpr char kContext[] = R"({"d": {"a": 1, "items": 2}, "l": [3, 1, 2], "s": " hi ", "n": null})";

TEST(Filters, Strings) {
  EXPECT_EQ(Render("{{ s | trim }}|{{ 'xxhixx' | trim('x') }}|{{ 'héllo' | upper }}|{{ 'ÉCOLE' | lower }}", kContext),
            "hi|hi|HÉLLO|école");
  EXPECT_EQ(Render("{{ 'Hello World' | replace('o', '0') }}{{ 'aaa' | replace('a', 'b', 2) }}"
                   "{{ 'hello WORLD' | capitalize }}{{ 'hello world' | title }}"),
            "Hell0 W0rldbbaHello worldHello World");
  // jinja2's title is not str.title.
  EXPECT_EQ(Render("{{ \"they're bill's\" | title }} {{ 'hello-world (foo)' | title }}"),
            "They're Bill's Hello-World (Foo)");
  EXPECT_EQ(Render("{{ 1.5 | string }}{{ [1, 'a'] | string }}{{ n | string }}|{{ zz | string }}|", kContext),
            "1.5[1, 'a']None||");
  EXPECT_EQ(Render("{{ {'a': 1} | safe }}"), "{'a': 1}");
}

TEST(Filters, Indent) {
  EXPECT_EQ(Render("{{ 'x' | indent(2) }}|{{ 'a\nb\n\nc' | indent(2) }}|{{ 'a\nb' | indent(4, first=true) }}|"
                   "{{ 'a\nb\n' | indent(2, blank=true) }}"),
            "x|a\n  b\n\n  c|    a\n    b|a\n  b\n  ");
}

TEST(Filters, Default) {
  EXPECT_EQ(Render("{{ 'a' | default('b') }}{{ undefined_var | default('b') }}{{ none | default('b') }}"
                   "{{ '' | default('b', true) }}{{ none | d('c', boolean=true) }}"),
            "abNonebc");
}

TEST(Filters, Numbers) {
  EXPECT_EQ(Render("{{ 3.7 | int }}{{ '42' | int }}{{ 'x' | int }}{{ '3.5' | float }}{{ 2.5 | round }}"
                   "{{ 3.14159 | round(2) }}{{ 7 | round }}"),
            "34203.52.03.147");
  EXPECT_EQ(
      Render("{{ n | int }}{{ true | int }}{{ ' 1_0 ' | int }}{{ '1.9' | int }}{{ '-3' | int }}{{ 'abc' | int(7) }}",
             kContext),
      "01101-37");
  EXPECT_EQ(Render("{{ 3 | float }}{{ '1e3' | float }}{{ 'x' | float }}{{ '0x1A' | int(base=16) }}{{ 5.0 | int }}"),
            "3.01000.00.0265");
  EXPECT_EQ(Render("{{ -3 | abs }}{{ (-3) | abs }}{{ [-1] | first | abs }}{{ 2.5 | round(method='floor') }}"),
            "3312.0");
  EXPECT_TRUE(FailsWith("{{ zz | int }}", "'zz' is undefined"));
}

TEST(Filters, Sequences) {
  EXPECT_EQ(Render("{{ l | sort }}{{ l | max }}{{ l | sum }}{{ l | first }}{{ l | last }}{{ 'abc' | first }}"
                   "{{ l | list }}{{ 'ab' | list }}",
                   kContext),
            "[1, 2, 3]3632a[3, 1, 2]['a', 'b']");
  EXPECT_EQ(Render("{{ [3, 1, 2] | sort(reverse=true) }}{{ ['b', 'A', 'a'] | sort }}{{ [1, 2, 1] | unique | list }}"
                   "{{ [1, 2] | reverse | list }}{{ 'abc' | reverse }}"),
            "[3, 2, 1]['A', 'a', 'b'][1, 2][2, 1]cba");
  EXPECT_EQ(Render("{{ l | sum(start=10) }}{{ [{'a': 1}, {'a': 2}] | sum(attribute='a') }}{{ [] | max }}"
                   "{{ ['b', 'A'] | max }}{{ ['b', 'A'] | min(case_sensitive=true) }}",
                   kContext),
            "163bA");
  EXPECT_EQ(Render("{{ [] | first }}{{ [] | first is defined }}{{ d | length }}{{ 'héllo' | length }}{{ d | list }}",
                   kContext),
            "False25['a', 'items']");
  EXPECT_EQ(Render("{{ [{'n': 'b'}, {'n': 'a'}] | sort(attribute='n') }}"), "[{'n': 'a'}, {'n': 'b'}]");
  EXPECT_TRUE(FailsWith("{{ [3, 'a'] | sort }}", "'<' not supported between instances of 'str' and 'int'"));
  EXPECT_TRUE(FailsWith("{{ n | length }}", "object of type 'NoneType' has no len()", kContext));
}

TEST(Filters, Join) {
  EXPECT_EQ(Render("{{ l | join(',') }}{{ [1, none, 'a'] | join('-') }}{{ [{'a': 'x'}, {'a': 'y'}] | join(', ', "
                   "attribute='a') }}{{ [1, 2] | join }}",
                   kContext),
            "3,1,21-None-ax, y12");
}

TEST(Filters, SelectRejectMap) {
  EXPECT_EQ(Render("{{ [{'a': 1}, {'a': 2}, {}] | selectattr('a', 'equalto', 1) | list }}"
                   "{{ [{'a': 1}, {'a': 2}, {}] | rejectattr('a') | list }}"
                   "{{ ['a', 'b'] | map('upper') | join(',') }}"),
            "[{'a': 1}][{}]A,B");
  EXPECT_EQ(
      Render("{{ [{'a': 1}, {'b': 2}] | map(attribute='a', default=0) | list }}{{ [3, 4] | map('string') | list }}"),
      "[1, 0]['3', '4']");
  EXPECT_EQ(Render("{{ [1, 2, 3] | select('odd') | list }}{{ [1, 2, 3] | reject('odd') | list }}"
                   "{{ [0, 1, '', 'a'] | select | list }}{{ [1, 2, 3] | select('gt', 1) | list }}"),
            "[1, 3][2][1, 'a'][2, 3]");
  EXPECT_EQ(Render("{{ ['x', 'code_interpreter', 'y'] | reject('equalto', 'code_interpreter') | join(', ') }}"),
            "x, y");
}

TEST(Filters, ItemsAndDictsort) {
  EXPECT_EQ(Render("{% for k, v in d | items %}{{ k }}={{ v }};{% endfor %}{{ zz | items | list }}", kContext),
            "a=1;items=2;[]");
  EXPECT_EQ(Render("{{ {'b': 1, 'a': 2} | dictsort }}{{ {'b': 1, 'a': 2} | dictsort(reverse=true) }}"
                   "{{ {'b': 1, 'a': 2} | dictsort(by='value') }}"),
            "[('a', 2), ('b', 1)][('b', 1), ('a', 2)][('b', 1), ('a', 2)]");
}

TEST(Filters, ToJsonIsPythonsJsonDumps) {
  EXPECT_EQ(Render("{{ d | tojson }}|{{ l | tojson(indent=2) }}|{{ 'é\n\u2028' | tojson }}|"
                   "{{ [1.0, 1e100, none, true] | tojson }}",
                   kContext),
            "{\"a\": 1, \"items\": 2}|[\n  3,\n  1,\n  2\n]|\"é\\n\u2028\"|[1.0, 1e+100, null, true]");
  EXPECT_EQ(
      Render("{{ 'a\tb' | tojson }}{{ {'k': [1, {'z': none}]} | tojson(indent=2) }}{{ 1 | tojson }}"
             "{{ 'é' | tojson(ensure_ascii=true) }}{{ {'b': 1, 'a': 2} | tojson(sort_keys=true) }}"
             "{{ [1, 2] | tojson(separators=(',', ':')) }}"),
      "\"a\\tb\"{\n  \"k\": [\n    1,\n    {\n      \"z\": null\n    }\n  ]\n}1\"\\u00e9\"{\"a\": 2, \"b\": 1}[1,2]");
  EXPECT_EQ(Render("{{ [3] | tojson(indent='\t') }}{{ [[]] | tojson(indent=2) }}{{ {} | tojson(indent=2) }}"
                   "{{ [1] | tojson(indent=0) }}{{ (1, 2) | tojson }}"),
            "[\n\t3\n][\n  []\n]{}[\n1\n][1, 2]");
  // Key order is the context's: ordered_json keeps it.
  EXPECT_EQ(Render("{{ tool | tojson }}", R"({"tool": {"type": "function", "function": {"name": "f"}}})"),
            R"({"type": "function", "function": {"name": "f"}})");
}

TEST(Filters, MarkupFromSafeEscapesWhatIsAddedToIt) {
  EXPECT_EQ(Render("{{ \"a\"|safe + '<\"b\">' }}|{{ '<x>' + \"a\"|safe }}|{{ \"a\"|safe ~ '<\"b\">' }}|"
                   "{{ (\"<a>\"|safe + '<b>') | trim }}|{{ (\"x\"|safe | upper) + '<' }}|{{ '<a>' | e }}|"
                   "{{ (\"x\"|safe | replace('x', 'y')) + '<' }}"),
            "a&lt;&#34;b&#34;&gt;|&lt;x&gt;a|a<\"b\">|<a>&lt;b&gt;|X&lt;|&lt;a&gt;|y<");
}

TEST(Filters, MapSelectAndRejectAreGenerators) {
  // True even when empty, iterable once, no len(), not JSON.
  EXPECT_EQ(Render("{% set g = [1, 2, 3] | select('odd') %}{{ g is iterable }}{{ g is sequence }}{{ g | list }}"
                   "{{ g | list }}{% if [] | select('odd') %}truthy{% endif %}"),
            "TrueFalse[1, 3][]truthy");
  EXPECT_TRUE(FailsWith("{{ [1] | map('string') | length }}", "object of type 'generator' has no len()"));
  EXPECT_TRUE(FailsWith("{{ [1] | map('string') | tojson }}", "Object of type generator is not JSON serializable"));
  // A false input gives an empty generator without looking at the arguments.
  EXPECT_EQ(Render("{{ none | selectattr('type', 'equalto', 'x') | list | length }}"), "0");
}

TEST(Filters, UnknownFiltersFailWhenTheTemplateIsParsed) {
  EXPECT_TRUE(FailsWith("{{ x | nosuch }}", "syntax error at line 1, column 8: no filter named 'nosuch'"));
  EXPECT_TRUE(FailsWith("{{ x is nosuch }}", "no test named 'nosuch'"));
  // Inside an if-block only when they run, as in jinja2.
  EXPECT_EQ(Render("{% if false %}{{ x | nosuch }}{% endif %}ok"), "ok");
  EXPECT_TRUE(FailsWith("{% if true %}{{ x | nosuch }}{% endif %}",
                        "chat template error at line 1, column 21: no filter named 'nosuch'"));
}

}  // namespace
}  // namespace pagoda::chat_template
