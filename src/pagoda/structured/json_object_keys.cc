#include "pagoda/structured/json_object_keys.h"

#include <map>

#include "pagoda/structured/json_string_chars.h"

namespace pagoda::structured {
namespace {

// The code points of valid UTF-8 `text`.
std::u32string DecodeUtf8(const std::string& text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<uint8_t>(text[i]);
    const int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    char32_t c = length == 1 ? lead : length == 2 ? lead & 0x1F : length == 3 ? lead & 0x0F : lead & 0x07;
    for (int k = 1; k < length && i + static_cast<size_t>(k) < text.size(); ++k) {
      c = (c << 6) | (static_cast<uint8_t>(text[i + static_cast<size_t>(k)]) & 0x3F);
    }
    out += c;
    i += static_cast<size_t>(length);
  }
  return out;
}

struct TrieNode {
  std::map<char32_t, size_t> children;
  bool terminal = false;
};

}  // namespace

ExprPtr KeyExcept(const std::vector<std::string>& names, const std::string& hint, const NamedRule& named,
                  JsonGrammarPrimitives* json) {
  if (names.empty()) return json->String();
  std::vector<TrieNode> trie(1);
  for (const std::string& name : names) {
    size_t node = 0;
    for (const char32_t c : DecodeUtf8(name)) {
      const auto [it, inserted] = trie[node].children.emplace(c, trie.size());
      const size_t next = it->second;  // before emplace_back moves the nodes
      if (inserted) trie.emplace_back();
      node = next;
    }
    trie[node].terminal = true;
  }
  // Children come after their parent: define rules from the last node back.
  std::vector<ExprPtr> rules(trie.size());
  const ExprPtr quote = Literal("\"");
  for (size_t k = trie.size(); k-- > 0;) {
    std::vector<ExprPtr> choices;
    if (!trie[k].terminal) choices.push_back(quote);
    CodePointRanges taken;
    for (const auto& [c, child] : trie[k].children) {
      choices.push_back(Sequence({JsonStringChar({{c, c}}), rules[child]}));
      taken.emplace_back(c, c);
    }
    choices.push_back(Sequence({JsonStringChar(Complement(taken)), json->StringChars(), quote}));
    rules[k] = named(hint + ".key" + std::to_string(k), Choice(std::move(choices)));
  }
  return Sequence({quote, rules[0]});
}

}  // namespace pagoda::structured
