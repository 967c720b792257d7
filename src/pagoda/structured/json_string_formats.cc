#include "pagoda/structured/json_string_formats.h"

#include <string>
#include <utility>
#include <vector>

#include "pagoda/structured/numeral_ranges.h"

namespace pagoda::structured {
namespace {

constexpr int kMaxFractionDigits = 9;
constexpr int kMaxEmailLocalPart = 64;
constexpr int kMaxEmailDomain = 255;

ExprPtr Chars(std::string_view chars) {
  ByteSet set;
  for (const char c : chars) set.Add(static_cast<uint8_t>(c));
  return Bytes(set);
}

ExprPtr Range(char first, char last) {
  return Bytes(ByteSet::Range(static_cast<uint8_t>(first), static_cast<uint8_t>(last)));
}

ExprPtr Decimal(int lo, int hi, int width) {
  return FixedWidthNumerals(static_cast<uint64_t>(lo), static_cast<uint64_t>(hi), width, Radix::kDecimal);
}

// Two-digit multiples of 4 but 00.
ExprPtr MultipleOfFour() {
  return Choice({Sequence({Literal("0"), Chars("48")}), Sequence({Chars("2468"), Chars("048")}),
                 Sequence({Chars("13579"), Chars("26")})});
}

ExprPtr LeapYear() {
  return Choice({Sequence({Range('0', '9'), Range('0', '9'), MultipleOfFour()}), Sequence({MultipleOfFour(), Literal("00")})});
}

ExprPtr Date() {
  const ExprPtr month_day = Choice({
      Sequence({Choice({Literal("01"), Literal("03"), Literal("05"), Literal("07"), Literal("08"), Literal("10"),
                        Literal("12")}),
                Literal("-"), Decimal(1, 31, 2)}),
      Sequence({Choice({Literal("04"), Literal("06"), Literal("09"), Literal("11")}), Literal("-"), Decimal(1, 30, 2)}),
      Sequence({Literal("02-"), Decimal(1, 28, 2)}),
  });
  return Choice({Sequence({Decimal(1, 9999, 4), Literal("-"), month_day}), Sequence({LeapYear(), Literal("-02-29")})});
}

ExprPtr Time() {
  const ExprPtr hour = Decimal(0, 23, 2);
  const ExprPtr minute = Decimal(0, 59, 2);
  // RFC 3339 puts no bound on the fraction; generated ones stop at
  // nanoseconds, so that a model cannot run on in digits for ever.
  const ExprPtr fraction = Optional(Sequence({Literal("."), Repeat(Range('0', '9'), 1, kMaxFractionDigits)}));
  const ExprPtr offset = Choice({Chars("Zz"), Sequence({Chars("+-"), hour, Literal(":"), minute})});
  return Sequence({hour, Literal(":"), minute, Literal(":"), minute, fraction, offset});
}

ExprPtr Uuid() {
  const ExprPtr hex = FixedWidthNumerals(0, 15, 1, Radix::kHex);
  const auto group = [&hex](int n) { return Repeat(hex, n, n); };
  return Sequence({group(8), Literal("-"), group(4), Literal("-"), group(4), Literal("-"), group(4), Literal("-"),
                   group(12)});
}

ExprPtr Ipv4() {
  const ExprPtr octet = Choice({Decimal(0, 9, 1), Decimal(10, 99, 2), Decimal(100, 255, 3)});
  return Sequence({octet, Literal("."), octet, Literal("."), octet, Literal("."), octet});
}

// Dot-separated runs of `unit` of at most `max_length` bytes in all, each
// run starting and ending with `unit`; within a run `joiner` may stand
// between units (the hyphens of a domain label). Built from the end: by[k]
// is what may follow a unit with k bytes left, so each length is one node,
// shared by everything that reaches it (GrammarBuilder lowers it once).
ExprPtr BoundedDotRuns(const ExprPtr& unit, const ExprPtr& joiner, int max_length) {
  std::vector<ExprPtr> after_unit(static_cast<size_t>(max_length) + 1);    // a unit just ended a run
  std::vector<ExprPtr> after_joiner(static_cast<size_t>(max_length) + 1);  // a joiner: a unit must follow
  std::vector<ExprPtr> run_start(static_cast<size_t>(max_length) + 1);     // a unit must follow
  for (int k = 0; k <= max_length; ++k) {
    const auto at = [](const std::vector<ExprPtr>& v, int i) { return v[static_cast<size_t>(i)]; };
    run_start[k] = k >= 1 ? Sequence({unit, at(after_unit, k - 1)}) : Choice({});
    std::vector<ExprPtr> next = {Empty()};
    if (k >= 1) next.push_back(Sequence({unit, at(after_unit, k - 1)}));
    if (k >= 2) next.push_back(Sequence({Literal("."), at(run_start, k - 1)}));
    if (joiner && k >= 2) next.push_back(Sequence({joiner, at(after_joiner, k - 1)}));
    after_unit[k] = Choice(std::move(next));
    if (joiner) {
      std::vector<ExprPtr> more;
      if (k >= 1) more.push_back(Sequence({unit, at(after_unit, k - 1)}));
      if (k >= 2) more.push_back(Sequence({joiner, at(after_joiner, k - 1)}));
      after_joiner[k] = Choice(std::move(more));
    }
  }
  return run_start[static_cast<size_t>(max_length)];
}

// A dot-atom local part and a host name, within RFC 5321's limits (64 and
// 255 bytes, section 4.5.3.1): jsonschema checks only for an "@", but
// without a bound a model can run on in an address for ever.
ExprPtr Email() {
  const ExprPtr atom_char = Choice({Range('a', 'z'), Range('A', 'Z'), Range('0', '9'), Chars("!#$%&'*+/=?^_`{|}~-")});
  const ExprPtr alnum = Choice({Range('a', 'z'), Range('A', 'Z'), Range('0', '9')});
  return Sequence({BoundedDotRuns(atom_char, nullptr, kMaxEmailLocalPart), Literal("@"),
                   BoundedDotRuns(alnum, Literal("-"), kMaxEmailDomain)});
}

// RFC 3986 (appendix A), as rfc3986-validator (jsonschema's "uri" and
// "uri-reference" checker) spells it, without IP-literal hosts ("[...]").
// IPv4 hosts are reg-names already.
struct UriParts {
  ExprPtr pct_encoded = Sequence({Literal("%"), Repeat(FixedWidthNumerals(0, 15, 1, Radix::kHex), 2, 2)});
  ExprPtr unreserved_sub_delims = Choice({Range('a', 'z'), Range('A', 'Z'), Range('0', '9'), Chars("_.~-!$&'()*+,;=")});
  ExprPtr pchar = Choice({unreserved_sub_delims, Chars(":@"), pct_encoded});
  ExprPtr query = Star(Choice({pchar, Chars("/?")}));  // fragment too
  ExprPtr segments = Star(Sequence({Literal("/"), Star(pchar)}));
  ExprPtr authority = Sequence({
      Optional(Sequence({Star(Choice({unreserved_sub_delims, Literal(":"), pct_encoded})), Literal("@")})),
      Star(Choice({unreserved_sub_delims, pct_encoded})),
      Optional(Sequence({Literal(":"), Star(Range('0', '9'))})),
  });
  // "//" authority path-abempty, path-absolute and the empty path; the
  // rootless or noscheme path is the caller's.
  ExprPtr Hierarchy(ExprPtr first_segment) const {
    return Choice({Sequence({Literal("//"), authority, segments}),
                   Sequence({Literal("/"), Optional(Sequence({Plus(pchar), segments}))}),
                   Sequence({std::move(first_segment), segments}), Empty()});
  }
  ExprPtr QueryAndFragment() const {
    return Sequence({Optional(Sequence({Literal("?"), query})), Optional(Sequence({Literal("#"), query}))});
  }
  ExprPtr Uri() const {
    const ExprPtr scheme = Sequence({Choice({Range('a', 'z'), Range('A', 'Z')}),
                                     Star(Choice({Range('a', 'z'), Range('A', 'Z'), Range('0', '9'), Chars("+.-")}))});
    return Sequence({scheme, Literal(":"), Hierarchy(Plus(pchar)), QueryAndFragment()});
  }
  ExprPtr RelativeRef() const {
    const ExprPtr noscheme = Plus(Choice({unreserved_sub_delims, Literal("@"), pct_encoded}));
    return Sequence({Hierarchy(noscheme), QueryAndFragment()});
  }
};

}  // namespace

ExprPtr FormatStringContents(std::string_view format) {
  if (format == "date") return Date();
  if (format == "time") return Time();
  if (format == "date-time") return Sequence({Date(), Chars("Tt"), Time()});
  if (format == "uuid") return Uuid();
  if (format == "ipv4") return Ipv4();
  if (format == "email") {
    // Built once: ~770 length-counting nodes that GrammarBuilder then lowers
    // once per grammar, however many properties are emails.
    static const ExprPtr email = Email();
    return email;
  }
  if (format == "uri") return UriParts().Uri();
  if (format == "uri-reference") return Choice({UriParts().Uri(), UriParts().RelativeRef()});
  return nullptr;
}

}  // namespace pagoda::structured
