// Expressions with Python's semantics, checked against jinja2's output for
// the same templates.
#include <gtest/gtest.h>

#include "render_helpers.h"

namespace pagoda::chat_template {
namespace {

using testing::FailsWith;
using testing::Render;

constexpr char kContext[] = R"({"d": {"a": 1, "items": 2}, "l": [3, 1, 2], "s": " hi ", "n": null,
  "message": {"role": "user", "content": "Hello"}})";

TEST(Expressions, Arithmetic) {
  EXPECT_EQ(Render("{{ 7 // -2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 2 ** -1 }} {{ 10 / 4 }} {{ 3 * 'ab' }} {{ [1] * 3 }}"),
            "-4 2 1024 0.5 2.5 ababab [1, 1, 1]");
  EXPECT_EQ(Render("{{ -7.5 // 2 }} {{ 7.5 % -2 }} {{ 7 % -3 }} {{ 4 / 2 }} {{ 0.1 * 3 }}"),
            "-4.0 -0.5 -2 2.0 0.30000000000000004");
  EXPECT_EQ(Render("{{ true + 1 }} {{ 'a' * 0 }}{{ [1] + [2] }}"), "2 [1, 2]");
  EXPECT_EQ(Render("{{ 2 * 3 + 1 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }}"), "7 64 4");
}

TEST(Expressions, ArithmeticErrors) {
  EXPECT_TRUE(FailsWith("{{ 1 / 0 }}", "division by zero"));
  EXPECT_TRUE(FailsWith("{{ 1 // 0 }}", "integer division or modulo by zero"));
  EXPECT_TRUE(FailsWith("{{ 'a' + 1 }}", "can only concatenate str (not \"int\") to str"));
  // `~` binds tighter than `+`: ('a' ~ 1) + 2 and 1 + (2 ~ 'a').
  EXPECT_TRUE(FailsWith("{{ 'a' ~ 1 + 2 }}", "can only concatenate str"));
  EXPECT_TRUE(FailsWith("{{ 1 + 2 ~ 'a' }}", "unsupported operand type(s) for +: 'int' and 'str'"));
  EXPECT_TRUE(FailsWith("{{ 9223372036854775807 + 1 }}", "integer overflow"));
}

TEST(Expressions, Comparisons) {
  EXPECT_EQ(
      Render("{{ 1 == 1.0 }} {{ true == 1 }} {{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}"),
      "True True True True True False");
  EXPECT_EQ(Render("{{ [1, [2]] == [1, [2]] }} {{ {'a': 1} == {'a': 1.0} }} {{ (1, 2) == [1, 2] }} {{ none == none }}"),
            "True True False True");
  EXPECT_EQ(Render("{{ 1 in [1] }} {{ 1 not in [1] }} {{ 'a' in {'a': 1} }} {{ 'ell' in 'hello' }}"),
            "True False True True");
  EXPECT_TRUE(FailsWith("{{ 'a' < 1 }}", "'<' not supported between instances of 'str' and 'int'"));
}

TEST(Expressions, LogicReturnsOperands) {
  EXPECT_EQ(Render("{{ true and 'x' }}|{{ 0 or 'y' }}|{{ '' and 1 }}|{{ [] or {} }}|{{ not [] }}"), "x|y||{}|True");
  // Short-circuit: the right side is not evaluated.
  EXPECT_EQ(Render("{{ false and undefined_thing.attr }}"), "False");
}

TEST(Expressions, ConditionalExpressions) {
  EXPECT_EQ(Render("{{ 1 if true else 2 }}{{ 'a' if false else 'b' if true else 'c' }}"), "1b");
  EXPECT_EQ(Render("[{{ x if false }}]{{ (x if false) is defined }}"), "[]False");
}

TEST(Expressions, AttributeAndItemAccessOnDicts) {
  EXPECT_EQ(Render("{{ message.role }} {{ message['content'] }}", kContext), "user Hello");
  // A dict method wins over an item for `.`; an item wins for `[]`.
  EXPECT_EQ(Render("{{ d['items'] }} {{ d.get('items') }} {{ d.a }}", kContext), "2 2 1");
  // Missing attributes are undefined, not errors.
  EXPECT_EQ(Render("[{{ d.zz }}] {{ d.zz is defined }} [{{ d['zz'] }}] [{{ n.x }}] [{{ l.x }}] [{{ l[5] }}]", kContext),
            "[] False [] [] [] []");
}

TEST(Expressions, UndefinedValues) {
  // Printing, `~`, tests, iteration, length and default work on undefined...
  EXPECT_EQ(Render("[{{ zz }}]{{ zz ~ 'a' }}|{{ zz | length }}|{{ 'x' in zz }}|{{ zz | default('d') }}"),
            "[]a|0|False|d");
  EXPECT_EQ(Render("{{ zz == zz2 }} {{ not zz }} {{ zz is none }} {{ zz is iterable }}"), "True True False True");
  // ...anything needing a value does not.
  EXPECT_TRUE(FailsWith("{{ d.zz.yy }}", "'dict object' has no attribute 'zz'", kContext));
  EXPECT_TRUE(FailsWith("{{ d.zz + 'a' }}", "'dict object' has no attribute 'zz'", kContext));
  EXPECT_TRUE(FailsWith("{{ zz < 1 }}", "'zz' is undefined"));
  EXPECT_TRUE(FailsWith("{{ zz() }}", "'zz' is undefined"));
  EXPECT_TRUE(FailsWith("{{ zz | tojson }}", "Object of type Undefined is not JSON serializable"));
}

TEST(Expressions, Slicing) {
  EXPECT_EQ(
      Render("{{ l[::-1] }} {{ 'abc'[1:] }} {{ 'abc'[-1] }} {{ [1, 2, 3, 4][-2:] }} {{ [1, 2, 3][:-1] }}", kContext),
      "[2, 1, 3] bc c [3, 4] [1, 2]");
  EXPECT_EQ(Render("{{ [1, 2, 3][-5:10] }} {{ 'hello'[::-2] }} {{ 'abcdef'[::2] }} {{ 'héllo'[1] }}"),
            "[1, 2, 3] olh ace é");
  EXPECT_TRUE(FailsWith("{{ [1, 2][1:2:0] }}", "slice step cannot be zero"));
}

TEST(Expressions, PrintingUsesPythonRepr) {
  EXPECT_EQ(Render("{{ l }}{{ (1, 2) }}{{ (1,) }}{{ {'a': 'b\\'c', 'x': [none, true, 1.0, 1e20, 1.5e-7]} }}", kContext),
            "[3, 1, 2](1, 2)(1,){'a': \"b'c\", 'x': [None, True, 1.0, 1e+20, 1.5e-07]}");
  EXPECT_EQ(Render(R"({{ ["it's"] }}{{ ['a"b'] }}{{ ['a\'b"c'] }}{{ ['\n\x01\x7f\u00a0\u200b'] }})"),
            R"(["it's"]['a"b']['a\'b"c']['\n\x01\x7f\xa0\u200b'])");
  EXPECT_EQ(Render("{{ n }}|{{ 'a' ~ 1.5 ~ none ~ true }}|{{ namespace(a=[1], b='x') }}", kContext),
            "None|a1.5NoneTrue|<Namespace {'a': [1], 'b': 'x'}>");
}

TEST(Expressions, FloatsPrintLikePython) {
  EXPECT_EQ(Render("{{ 1.0 }} {{ 0.1 + 0.2 }} {{ 1e16 }} {{ 1e15 }} {{ 123456789012345678.0 }} {{ -0.0 }}"),
            "1.0 0.30000000000000004 1e+16 1000000000000000.0 1.2345678901234568e+17 -0.0");
  EXPECT_EQ(Render("{{ 1 / 3 }} {{ 1e-7 }} {{ 5e-324 }} {{ 1.7976931348623157e308 }} {{ 1.5e-5 }} {{ 0.0001 }}"),
            "0.3333333333333333 1e-07 5e-324 1.7976931348623157e+308 1.5e-05 0.0001");
  EXPECT_EQ(Render("{{ 1e300 * 1e10 }} {{ 100.0 }} {{ 1e22 }}"), "inf 100.0 1e+22");
}

TEST(Expressions, StringMethods) {
  EXPECT_EQ(Render("{{ s.strip() }}|{{ s.split() }}|{{ 'a,b,,c'.split(',') }}|{{ 'hello world'.title() }}", kContext),
            "hi|['hi']|['a', 'b', '', 'c']|Hello World");
  EXPECT_EQ(Render("{{ 'aXbXc'.split('X', 1) }}{{ '  x  '.lstrip() }}|{{ 'xxhixx'.strip('x') }}"
                   "{{ 'abc'.startswith(('x', 'a')) }}{{ 'abc'.endswith('bc') }}{{ 'aaa'.replace('a', 'b', 1) }}"
                   "{{ 'abc'.find('c') }}"),
            "['a', 'bXc']x  |hiTrueTruebaa2");
  EXPECT_EQ(Render("{{ 'ab'.upper() }}{{ 'AB'.lower() }}{{ 'aBc'.capitalize() }}{{ 'abab'.count('a') }}"
                   "{{ ', '.join(['a', 'b']) }}{{ 'a-b'.split('-', maxsplit=1) }}"),
            "ABabAbc2a, b['a', 'b']");
  EXPECT_EQ(Render("{{ \"they're bill's\".title() }} {{ 'ß'.upper() }} {{ 'ÉCOLE'.lower() }} {{ 'a\u00a0b'.split() }}"),
            "They'Re Bill'S SS école ['a', 'b']");
  EXPECT_EQ(Render("{{ '{0}-{1}-{0}'.format('x', 'y') }}{{ '{a}!'.format(a=1) }}{{ '{{}}{}'.format(2) }}"),
            "x-y-x1!{}2");
  EXPECT_TRUE(FailsWith("{{ 'ab'.split('') }}", "empty separator"));
}

TEST(Expressions, DictKeysMayBeAnyHashableValue) {
  EXPECT_EQ(Render("{% set d = {0: 'a', 512: 'b', 'k': 'c', none: 'n', (1, 2): 't'} %}{{ d[0] }}{{ d[512] }}"
                   "{{ d['k'] }}{{ d[none] }}{{ d[(1, 2)] }}{{ d[1.0 - 1] }}|{{ d }}|{{ {2: 1, 1: 2} | dictsort }}"),
            "abcnta|{0: 'a', 512: 'b', 'k': 'c', None: 'n', (1, 2): 't'}|[(1, 2), (2, 1)]");
  // 1 and True are one key; tojson writes keys as JSON does.
  EXPECT_EQ(Render("{{ {1: 'a', 2.5: 'b', true: 'c', none: 'd'} | tojson }}"),
            R"({"1": "c", "2.5": "b", "null": "d"})");
  EXPECT_TRUE(FailsWith("{{ {(1, 2): 'a'} | tojson }}", "keys must be str, int, float, bool or None, not tuple"));
  EXPECT_TRUE(FailsWith("{{ {[1]: 2} }}", "unhashable type: 'list'"));
}

TEST(Expressions, DictMethods) {
  EXPECT_EQ(Render("{{ d.get('a') }}{{ d.get('zz') }}{{ d.get('zz', 5) }}{{ d.keys() | list }}{{ d.values() | list }}"
                   "{{ d.items() | list }}",
                   kContext),
            "1None5['a', 'items'][1, 2][('a', 1), ('items', 2)]");
}

TEST(Expressions, TheSandboxRefusesMutation) {
  EXPECT_TRUE(FailsWith("{{ l.append(4) }}", "access to attribute 'append' of 'list' object is unsafe.", kContext));
  EXPECT_TRUE(FailsWith("{{ d.update({}) }}", "access to attribute 'update' of 'dict' object is unsafe.", kContext));
}

TEST(Expressions, Tests) {
  EXPECT_EQ(Render("{{ 'abc' is string }}{{ d is mapping }}{{ l is iterable }}{{ n is iterable }}{{ 5 is odd }}"
                   "{{ 4 is divisibleby 2 }}{{ 'a' is in 'abc' }}{{ 1 is eq 1 }}",
                   kContext),
            "TrueTrueTrueFalseTrueTrueTrueTrue");
  EXPECT_EQ(Render("{{ none is none }}{{ 1 is number }}{{ true is number }}{{ 'a' is sequence }}{{ d is sequence }}"
                   "{{ 1.0 is integer }}{{ true is boolean }}{{ 1 is true }}{{ true is true }}{{ 1 is boolean }}",
                   kContext),
            "TrueTrueTrueTrueTrueFalseTrueFalseTrueFalse");
  EXPECT_EQ(Render("{{ 3 is divisibleby(2) }}{{ 'AB' is upper }}{{ 'x' is lower }}{{ 2 is even }}{{ 1 is ne 2 }}"
                   "{{ 1 is lt 2 }}{{ 1 is ge 2 }}{{ x is not defined }}{{ range is callable }}"),
            "FalseTrueTrueTrueTrueTrueFalseTrueTrue");
}

TEST(Expressions, Globals) {
  EXPECT_EQ(Render("{{ range(3) | list }}{{ range(1, 10, 3) | list }}{{ range(5, 0, -2) | list }}"),
            "[0, 1, 2][1, 4, 7][5, 3, 1]");
  EXPECT_EQ(Render("{{ dict(a=1, b=2) }}{{ dict(a=1).a }}"), "{'a': 1, 'b': 2}1");
  EXPECT_TRUE(FailsWith("{{ range(100001) | length }}", "Range too big"));
  // Context variables shadow globals.
  EXPECT_EQ(Render("{{ range }}", R"({"range": "mine"})"), "mine");
}

TEST(Expressions, StrftimeNowFormatsTheLocalDate) {
  const std::string year = Render("{{ strftime_now('%Y') }}");
  ASSERT_EQ(year.size(), 4u) << year;
  EXPECT_GE(year, "2024");
  EXPECT_EQ(Render("{{ strftime_now('%d %b %Y') | length }}"), "11");
}

}  // namespace
}  // namespace pagoda::chat_template
