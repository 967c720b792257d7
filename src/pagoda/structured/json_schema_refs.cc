#include "pagoda/structured/json_schema_refs.h"

#include <cctype>
#include <vector>

namespace pagoda::structured {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `fragment` with %XX decoded; false if a % is not followed by two hex digits.
bool PercentDecode(std::string_view fragment, std::string* out) {
  for (size_t i = 0; i < fragment.size(); ++i) {
    if (fragment[i] != '%') {
      *out += fragment[i];
      continue;
    }
    if (i + 2 >= fragment.size()) return false;
    const int high = HexValue(fragment[i + 1]);
    const int low = HexValue(fragment[i + 2]);
    if (high < 0 || low < 0) return false;
    *out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return true;
}

// The JSON pointer's reference tokens, unescaped; false on a bad escape.
bool SplitPointer(const std::string& pointer, std::vector<std::string>* tokens) {
  size_t start = 1;  // past the leading '/'
  while (start <= pointer.size()) {
    const size_t end = std::min(pointer.find('/', start), pointer.size());
    std::string token;
    for (size_t i = start; i < end; ++i) {
      if (pointer[i] != '~') {
        token += pointer[i];
      } else if (i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[++i] == '0' ? '~' : '/';
      } else {
        return false;
      }
    }
    tokens->push_back(std::move(token));
    start = end + 1;
  }
  return true;
}

bool IsIndex(const std::string& token) {
  if (token.empty() || token.size() > 9 || (token.size() > 1 && token[0] == '0')) return false;
  for (const char c : token) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

Located Located::Member(const std::string& key) const { return {&value->at(key), pointer + "/" + PointerToken(key)}; }

Located Located::Child(const std::string& key, const Json& member) const {
  return {&member, pointer + "/" + PointerToken(key)};
}

Located Located::Element(size_t index) const { return {&value->at(index), pointer + "/" + std::to_string(index)}; }

std::string Where(const std::string& pointer) { return "#" + pointer; }

std::string PointerToken(std::string_view token) {
  std::string out;
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

StatusOr<Located> ResolveRef(const Json& root, const Located& ref) {
  const auto refuse = [&ref](const std::string& why) {
    return InvalidArgumentError("JSON schema: $ref at " + Where(ref.pointer) + " " + why);
  };
  if (!ref.value->is_string()) return refuse("must be a string");
  const std::string& text = ref.value->get_ref<const std::string&>();
  if (text.empty() || text[0] != '#') {
    return refuse("'" + text + "' is not supported: only references within the schema (\"#...\") are");
  }
  std::string pointer;
  if (!PercentDecode(std::string_view(text).substr(1), &pointer)) return refuse("'" + text + "' has a bad %-escape");
  if (!pointer.empty() && pointer[0] != '/') {
    return refuse("'" + text + "' is not supported: anchors are not, only JSON pointers (\"#/$defs/name\")");
  }
  std::vector<std::string> tokens;
  if (!pointer.empty() && !SplitPointer(pointer, &tokens)) return refuse("'" + text + "' has a bad ~-escape");
  Located target{&root, ""};
  for (const std::string& token : tokens) {
    if (target.value->is_object() && target.value->contains(token)) {
      target = target.Member(token);
    } else if (target.value->is_array() && IsIndex(token) && std::stoul(token) < target.value->size()) {
      target = target.Element(std::stoul(token));
    } else {
      return refuse("'" + text + "' names nothing in the schema");
    }
  }
  return target;
}

}  // namespace pagoda::structured
