#include "pagoda/chat_template/filters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pagoda/chat_template/access.h"
#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/generator_object.h"
#include "pagoda/chat_template/interpreter.h"
#include "pagoda/chat_template/json_dumps.h"
#include "pagoda/chat_template/operators.h"
#include "pagoda/chat_template/py_str.h"
#include "pagoda/chat_template/unicode.h"
#include "pagoda/chat_template/value_format.h"

namespace pagoda::chat_template {
namespace {

using Kind = Value::Kind;

bool IsTrue(const Value* v) { return v != nullptr && v->Truthy(); }

// The filters that are Python generators in jinja2 return one here too.
Value MakeGenerator(Interpreter& interp, std::vector<Value> items) {
  interp.Charge(items.size());
  return Value::FromObject(std::make_shared<Generator>(std::move(items)));
}

// jinja2's make_attrgetter: "a.b.0" looks up each part with [], numeric
// parts as integers.
Value GetAttrPath(const Value& item, std::string_view path) {
  Value v = item;
  for (const std::string& part : py::Split(path, ".", -1)) {
    const bool numeric = !part.empty() && part.size() < 18 &&
                         std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    v = GetItem(v, numeric ? Value::Int(std::stoll(part)) : Value::String(part));
  }
  return v;
}

const std::string& RequireStringArg(const Value& v, std::string_view filter) {
  if (!v.is_string()) ThrowRuntime("filter '{}' needs a string argument, got {}", filter, TypeName(v));
  return v.string_value();
}

// The optional `attribute=` of sort, min, max, unique, join, sum.
Value Attribute(const Value& item, const Value* attribute) {
  if (attribute == nullptr || attribute->is_none()) return item;
  if (attribute->is_integral()) return GetItem(item, *attribute);
  return GetAttrPath(item, RequireStringArg(*attribute, "attribute"));
}

// jinja2's ignore_case: strings compare lower-cased unless case_sensitive.
Value SortKey(Interpreter& interp, const Value& item, const Value* attribute, bool case_sensitive) {
  Value key = Attribute(item, attribute);
  if (!case_sensitive && key.is_string()) return interp.MakeString(py::Lower(key.string_value()));
  return key;
}

Value Abs(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("abs", args, {});
  RequireDefined(input);
  if (input.kind() == Kind::kFloat) return Value::Float(std::fabs(input.number_value()));
  if (input.is_integral()) {
    if (input.int_value() == std::numeric_limits<int64_t>::min()) ThrowRuntime("integer overflow");
    return Value::Int(std::llabs(input.int_value()));
  }
  ThrowRuntime("bad operand type for abs(): '{}'", TypeName(input));
}

// What jinja2's soft_str-based filters return: Markup stays Markup.
Value LikeInput(Interpreter& interp, const Value& input, std::string text) {
  return input.is_markup() ? interp.MakeMarkup(std::move(text)) : interp.MakeString(std::move(text));
}

Value Capitalize(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("capitalize", args, {});
  return LikeInput(interp, input, py::Capitalize(interp.Str(input)));
}

Value Default(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("default", args, {"default_value", "boolean"});
  static const Value kEmpty = Value::String("");
  if (input.is_undefined() || (IsTrue(a.Get(1)) && !input.Truthy())) return a.Get(0, kEmpty);
  return input;
}

Value Dictsort(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("dictsort", args, {"case_sensitive", "by", "reverse"});
  RequireDefined(input);
  if (input.kind() != Kind::kDict) ThrowRuntime("dictsort needs a mapping, got {}", TypeName(input));
  const bool case_sensitive = IsTrue(a.Get(0));
  int pos = 0;
  if (const Value* by = a.Get(1); by != nullptr) {
    const std::string& b = RequireStringArg(*by, "dictsort");
    if (b == "value") {
      pos = 1;
    } else if (b != "key") {
      ThrowRuntime("You can only sort by either \"key\" or \"value\"");
    }
  }
  struct Entry {
    Value pair;
    Value key;
  };
  std::vector<Entry> entries;
  for (const auto& [key, value] : input.dict().entries()) {
    Value pair = interp.MakeList({key, value}, /*is_tuple=*/true);
    entries.push_back({pair, SortKey(interp, pair.list().items[pos], nullptr, case_sensitive)});
  }
  const bool reverse = IsTrue(a.Get(2));
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const Entry& x, const Entry& y) { return reverse ? Less(y.key, x.key) : Less(x.key, y.key); });
  std::vector<Value> out;
  for (auto& e : entries) out.push_back(std::move(e.pair));
  return interp.MakeList(std::move(out));
}

Value First(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("first", args, {});
  std::vector<Value> items = Iterate(input);
  return items.empty() ? Value::Undefined("No first item, sequence was empty.") : items.front();
}

Value Last(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("last", args, {});
  std::vector<Value> items = Iterate(input);
  return items.empty() ? Value::Undefined("No last item, sequence was empty.") : items.back();
}

// Python's float(str): surrounding whitespace, underscores between digits,
// inf and nan allowed.
bool ParseFloat(const std::string& text, double* out) {
  std::string s = py::Strip(text, nullptr, true, true);
  std::string digits;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      if (i == 0 || i + 1 == s.size() || !std::isdigit(static_cast<unsigned char>(s[i - 1])) ||
          !std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
        return false;
      }
      continue;
    }
    digits.push_back(s[i]);
  }
  if (digits.empty() || digits.find_first_of("xXpP") != std::string::npos) return false;  // no hex floats
  char* end = nullptr;
  *out = std::strtod(digits.c_str(), &end);
  return end == digits.c_str() + digits.size();
}

// Python's int(str, base): sign, whitespace, underscores, and a prefix
// matching the base.
bool ParseInt(const std::string& text, int64_t base, int64_t* out) {
  std::string s = py::Strip(text, nullptr, true, true);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i + 1 < s.size() && s[i] == '0') {
    const char p = s[i + 1] | 0x20;
    if ((p == 'x' && base == 16) || (p == 'o' && base == 8) || (p == 'b' && base == 2)) i += 2;
  }
  if (i >= s.size()) return false;
  unsigned __int128 value = 0;
  bool last_digit = false;
  for (; i < s.size(); ++i) {
    if (s[i] == '_' && last_digit) {
      last_digit = false;
      continue;
    }
    const char c = s[i] | 0x20;
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : 99;
    if (d >= base) return false;
    value = value * base + d;
    if (value > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) + 1) return false;
    last_digit = true;
  }
  if (!last_digit) return false;
  if (!negative && value > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) return false;
  *out = negative ? static_cast<int64_t>(-static_cast<__int128>(value)) : static_cast<int64_t>(value);
  return true;
}

Value Float(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("float", args, {"default"});
  RequireDefined(input);
  if (input.is_number()) return Value::Float(input.number_value());
  double f;
  if (input.is_string() && ParseFloat(input.string_value(), &f)) return Value::Float(f);
  return a.Get(0, Value::Float(0.0));
}

Value Int(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("int", args, {"default", "base"});
  RequireDefined(input);
  const Value fallback = a.Get(0, Value::Int(0));
  int64_t base = 10;
  if (const Value* b = a.Get(1); b != nullptr) {
    if (!b->is_integral() || b->int_value() < 2 || b->int_value() > 36) ThrowRuntime("int() base must be 2 to 36");
    base = b->int_value();
  }
  if (input.is_integral()) return Value::Int(input.int_value());
  if (input.kind() == Kind::kFloat) {
    const double f = input.number_value();
    if (!std::isfinite(f) || std::fabs(f) >= 9.2e18) return fallback;
    return Value::Int(static_cast<int64_t>(f));
  }
  if (!input.is_string()) return fallback;
  int64_t i;
  if (ParseInt(input.string_value(), base, &i)) return Value::Int(i);
  double f;  // then int(float(value))
  if (ParseFloat(input.string_value(), &f) && std::isfinite(f) && std::fabs(f) < 9.2e18) {
    return Value::Int(static_cast<int64_t>(f));
  }
  return fallback;
}

// jinja2's indent: every line but the first (unless `first`), and blank
// lines only with `blank`; the text gets a trailing newline for
// splitlines() first, so a final newline ends the last line.
Value Indent(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("indent", args, {"width", "first", "blank"});
  std::string indentation = "    ";
  if (const Value* w = a.Get(0); w != nullptr) {
    if (w->is_string()) {
      indentation = w->string_value();
    } else if (w->is_integral()) {
      const int64_t n = std::max<int64_t>(0, w->int_value());
      if (static_cast<uint64_t>(n) > interp.max_string_bytes()) ThrowRuntime("indent width too large");
      indentation.assign(n, ' ');
    } else {
      ThrowRuntime("indent width must be an int or a string");
    }
  }
  const std::vector<std::string> lines = py::SplitLines(interp.Str(input) + "\n");
  BoundedString out = interp.NewBuffer();
  if (IsTrue(a.Get(1))) out.Append(indentation);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) {
      out.Append('\n');
      if (IsTrue(a.Get(2)) || !lines[i].empty()) out.Append(indentation);
    }
    out.Append(lines[i]);
  }
  return interp.MakeString(std::move(out).Take());
}

Value Items(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("items", args, {});
  if (input.is_undefined()) return MakeGenerator(interp, {});
  if (input.kind() != Kind::kDict) ThrowRuntime("Can only get item pairs from a mapping.");
  std::vector<Value> pairs;
  for (const auto& [key, value] : input.dict().entries()) {
    pairs.push_back(interp.MakeList({key, value}, /*is_tuple=*/true));
  }
  return MakeGenerator(interp, std::move(pairs));
}

Value Join(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("join", args, {"d", "attribute"});
  const std::string separator = a.Get(0) != nullptr ? interp.Str(*a.Get(0)) : "";
  BoundedString out = interp.NewBuffer();
  bool first = true;
  for (const Value& item : Iterate(input)) {
    if (!first) out.Append(separator);
    first = false;
    AppendStr(Attribute(item, a.Get(1)), &out);
  }
  return interp.MakeString(std::move(out).Take());
}

Value Length(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("length", args, {});
  switch (input.kind()) {
    case Kind::kUndefined: return Value::Int(0);
    case Kind::kString: return Value::Int(static_cast<int64_t>(CodepointCount(input.string_value())));
    case Kind::kList: return Value::Int(static_cast<int64_t>(input.list().items.size()));
    case Kind::kDict: return Value::Int(static_cast<int64_t>(input.dict().size()));
    default: ThrowRuntime("object of type '{}' has no len()", TypeName(input));
  }
}

Value ToList(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("list", args, {});
  return interp.MakeList(Iterate(input));
}

Value Lower(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("lower", args, {});
  return LikeInput(interp, input, py::Lower(interp.Str(input)));
}

Value Upper(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("upper", args, {});
  return LikeInput(interp, input, py::Upper(interp.Str(input)));
}

// map(attribute='x', default=d) or map('filter', *args, **kwargs). Like
// select and reject, it gives nothing for a false input (none, []), as
// jinja2's `if value:` guard does.
Value Map(Interpreter& interp, const Value& input, const CallArgs& args) {
  if (!input.Truthy()) return MakeGenerator(interp, {});
  std::vector<Value> out;
  const std::vector<Value> items = Iterate(input);
  if (args.positional.empty()) {
    const Value* attribute = nullptr;
    const Value* fallback = nullptr;
    for (const auto& [key, value] : args.keyword) {
      if (key == "attribute") {
        attribute = &value;
      } else if (key == "default") {
        fallback = &value;
      } else {
        ThrowRuntime("Unexpected keyword argument '{}' to map", key);
      }
    }
    if (attribute == nullptr) ThrowRuntime("map requires a filter argument");
    for (const Value& item : items) {
      Value v = Attribute(item, attribute);
      out.push_back(v.is_undefined() && fallback != nullptr ? *fallback : v);
    }
    return MakeGenerator(interp, std::move(out));
  }
  const std::string& filter = RequireStringArg(args.positional[0], "map");
  CallArgs rest{{args.positional.begin() + 1, args.positional.end()}, args.keyword};
  for (const Value& item : items) out.push_back(interp.ApplyFilter(filter, item, rest));
  return MakeGenerator(interp, std::move(out));
}

template <bool kMax>
Value MinMax(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a(kMax ? "max" : "min", args, {"case_sensitive", "attribute"});
  const bool case_sensitive = IsTrue(a.Get(0));
  const std::vector<Value> items = Iterate(input);
  if (items.empty()) return Value::Undefined("No aggregated item, sequence was empty.");
  size_t best = 0;
  Value best_key = SortKey(interp, items[0], a.Get(1), case_sensitive);
  for (size_t i = 1; i < items.size(); ++i) {
    Value key = SortKey(interp, items[i], a.Get(1), case_sensitive);
    if (kMax ? Less(best_key, key) : Less(key, best_key)) {
      best = i;
      best_key = std::move(key);
    }
  }
  return items[best];
}

// select/reject(test, *args) and selectattr/rejectattr(attr, test, *args);
// with no test, items are kept by their truth value.
template <bool kSelect, bool kByAttribute>
Value SelectOrReject(Interpreter& interp, const Value& input, const CallArgs& args) {
  if (!input.Truthy()) return MakeGenerator(interp, {});
  size_t next = 0;
  const Value* attribute = nullptr;
  if (kByAttribute) {
    if (args.positional.empty()) ThrowRuntime("Missing parameter for attribute name");
    attribute = &args.positional[next++];
  }
  const std::string* test = nullptr;
  if (next < args.positional.size()) test = &RequireStringArg(args.positional[next++], "select");
  CallArgs test_args{{args.positional.begin() + next, args.positional.end()}, args.keyword};
  std::vector<Value> out;
  for (const Value& item : Iterate(input)) {
    const Value v = kByAttribute ? Attribute(item, attribute) : item;
    const bool passed = test != nullptr ? interp.ApplyTest(*test, v, test_args) : v.Truthy();
    if (passed == kSelect) out.push_back(item);
  }
  return MakeGenerator(interp, std::move(out));
}

Value Replace(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("replace", args, {"old", "new", "count"}, 2);
  int64_t count = -1;
  if (const Value* c = a.Get(2); c != nullptr && !c->is_none()) {
    if (!c->is_integral()) ThrowRuntime("replace count must be an int");
    count = c->int_value();
  }
  return interp.MakeString(
      py::Replace(interp.Str(input), interp.Str(*a.Get(0)), interp.Str(*a.Get(1)), count, interp.max_string_bytes()));
}

Value Reverse(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("reverse", args, {});
  if (input.is_string()) {
    std::u32string chars = ToCodepoints(input.string_value());
    std::reverse(chars.begin(), chars.end());
    return interp.MakeString(FromCodepoints(chars));
  }
  std::vector<Value> items = Iterate(input);
  std::reverse(items.begin(), items.end());
  return MakeGenerator(interp, std::move(items));
}

// Python's round(x, n): correctly rounded, ties to even on the exact binary
// value, which is what printf's %.*f does too.
double RoundHalfEven(double x, int64_t digits) {
  if (!std::isfinite(x)) return x;
  char buf[1024];  // up to 309 integer digits and 300 decimals
  std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(digits), x);
  return std::strtod(buf, nullptr);
}

Value Round(Interpreter&, const Value& input, const CallArgs& args) {
  ArgBinder a("round", args, {"precision", "method"});
  RequireDefined(input);
  if (!input.is_number()) ThrowRuntime("round needs a number, got {}", TypeName(input));
  int64_t precision = 0;
  if (const Value* p = a.Get(0); p != nullptr) {
    if (!p->is_integral() || p->int_value() < 0 || p->int_value() > 300) {
      ThrowRuntime("round precision must be an int from 0 to 300");
    }
    precision = p->int_value();
  }
  std::string method = "common";
  if (const Value* m = a.Get(1); m != nullptr) method = RequireStringArg(*m, "round");
  // jinja2 returns round(value, precision): an int stays an int.
  if (input.is_integral()) return Value::Int(input.int_value());
  const double x = input.number_value();
  if (method == "common") return Value::Float(RoundHalfEven(x, precision));
  if (method != "ceil" && method != "floor") ThrowRuntime("method must be common, ceil or floor");
  const double scale = std::pow(10.0, static_cast<double>(precision));
  return Value::Float((method == "ceil" ? std::ceil(x * scale) : std::floor(x * scale)) / scale);
}

Value Safe(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("safe", args, {});
  return interp.MakeMarkup(interp.Str(input));
}

Value Escape(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("escape", args, {});
  if (input.is_markup()) return input;
  return interp.MakeMarkup(EscapeHtml(interp.Str(input)));
}

Value Sort(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("sort", args, {"reverse", "case_sensitive", "attribute"});
  const bool reverse = IsTrue(a.Get(0));
  const bool case_sensitive = IsTrue(a.Get(1));
  struct Entry {
    Value item;
    Value key;
  };
  std::vector<Entry> entries;
  for (Value& item : Iterate(input)) {
    Value key = SortKey(interp, item, a.Get(2), case_sensitive);
    entries.push_back({std::move(item), std::move(key)});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const Entry& x, const Entry& y) { return reverse ? Less(y.key, x.key) : Less(x.key, y.key); });
  std::vector<Value> out;
  for (auto& e : entries) out.push_back(std::move(e.item));
  return interp.MakeList(std::move(out));
}

Value String(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("string", args, {});
  return input.is_string() ? input : interp.MakeString(interp.Str(input));  // Markup stays Markup
}

Value Sum(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("sum", args, {"attribute", "start"});
  Value total = a.Get(1, Value::Int(0));
  for (const Value& item : Iterate(input)) {
    total = Arithmetic(interp, ast::Binary::Op::kAdd, total, Attribute(item, a.Get(0)));
  }
  return total;
}

// jinja2's title, which is not str.title: words start after '-', space or an
// opening bracket, and the rest of each word is lower-cased.
Value Title(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("title", args, {});
  const std::string text = interp.Str(input);
  std::string out;
  bool word_start = true;
  for (size_t i = 0; i < text.size();) {
    const char32_t c = DecodeUtf8(text, &i);
    const bool separator = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || IsPythonSpace(c);
    if (separator) {
      AppendUtf8(c, &out);
    } else if (word_start && c == 0xDF) {
      out += "SS";
    } else {
      AppendUtf8(word_start ? ToUpper(c) : ToLower(c), &out);
    }
    word_start = separator;
  }
  return LikeInput(interp, input, std::move(out));
}

// transformers' tojson: json.dumps(x, ensure_ascii=False, indent=None,
// separators=None, sort_keys=False), not jinja2's HTML-safe one.
Value ToJson(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("tojson", args, {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonDumpOptions options;
  options.ensure_ascii = IsTrue(a.Get(0));
  options.sort_keys = IsTrue(a.Get(3));
  if (const Value* indent = a.Get(1); indent != nullptr && !indent->is_none()) {
    if (indent->is_string()) {
      options.indent = indent->string_value();
    } else if (indent->is_integral()) {
      const int64_t n = std::max<int64_t>(0, indent->int_value());
      if (static_cast<uint64_t>(n) > interp.max_string_bytes()) ThrowRuntime("tojson indent too large");
      options.indent = std::string(n, ' ');
    } else {
      ThrowRuntime("tojson indent must be an int or a string");
    }
    options.item_separator.assign(1, ',');  // json.dumps drops the space when indenting
  }
  if (const Value* separators = a.Get(2); separators != nullptr && !separators->is_none()) {
    if (separators->kind() != Kind::kList || separators->list().items.size() != 2 ||
        !separators->list().items[0].is_string() || !separators->list().items[1].is_string()) {
      ThrowRuntime("tojson separators must be a pair of strings");
    }
    options.item_separator = separators->list().items[0].string_value();
    options.key_separator = separators->list().items[1].string_value();
  }
  BoundedString out = interp.NewBuffer();
  AppendJson(input, options, &out);
  return interp.MakeString(std::move(out).Take());
}

Value Trim(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("trim", args, {"chars"});
  const std::string* chars = nullptr;
  if (const Value* c = a.Get(0); c != nullptr && !c->is_none()) chars = &RequireStringArg(*c, "trim");
  return LikeInput(interp, input, py::Strip(interp.Str(input), chars, true, true));
}

Value Unique(Interpreter& interp, const Value& input, const CallArgs& args) {
  ArgBinder a("unique", args, {"case_sensitive", "attribute"});
  const bool case_sensitive = IsTrue(a.Get(0));
  std::unordered_set<std::string> seen;
  std::vector<Value> out;
  for (const Value& item : Iterate(input)) {
    if (seen.insert(HashKey(SortKey(interp, item, a.Get(1), case_sensitive))).second) out.push_back(item);
  }
  return MakeGenerator(interp, std::move(out));
}

const std::unordered_map<std::string_view, FilterFn>& Filters() {
  static const std::unordered_map<std::string_view, FilterFn> filters = {
      {"abs", Abs},
      {"capitalize", Capitalize},
      {"count", Length},
      {"d", Default},
      {"default", Default},
      {"dictsort", Dictsort},
      {"e", Escape},
      {"escape", Escape},
      {"first", First},
      {"float", Float},
      {"indent", Indent},
      {"int", Int},
      {"items", Items},
      {"join", Join},
      {"last", Last},
      {"length", Length},
      {"list", ToList},
      {"lower", Lower},
      {"map", Map},
      {"max", MinMax<true>},
      {"min", MinMax<false>},
      {"reject", SelectOrReject<false, false>},
      {"rejectattr", SelectOrReject<false, true>},
      {"replace", Replace},
      {"reverse", Reverse},
      {"round", Round},
      {"safe", Safe},
      {"select", SelectOrReject<true, false>},
      {"selectattr", SelectOrReject<true, true>},
      {"sort", Sort},
      {"string", String},
      {"sum", Sum},
      {"title", Title},
      {"tojson", ToJson},
      {"trim", Trim},
      {"unique", Unique},
      {"upper", Upper},
  };
  return filters;
}

}  // namespace

bool HasFilter(std::string_view name) { return FindFilter(name) != nullptr; }

FilterFn FindFilter(std::string_view name) {
  const auto& filters = Filters();
  auto it = filters.find(name);
  return it == filters.end() ? nullptr : it->second;
}

}  // namespace pagoda::chat_template
