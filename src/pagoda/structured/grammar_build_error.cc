#include "pagoda/structured/grammar_build_error.h"

namespace pagoda::structured {
namespace {

// The rule of the text that a GrammarBuilder rule name stands for: the name
// itself, or an auxiliary rule "name_N" made while lowering `name`.
std::string SourceRule(std::string name, const std::function<bool(const std::string&)>& is_source) {
  for (;;) {
    if (is_source(name)) return name;
    const size_t underscore = name.rfind('_');
    if (underscore == std::string::npos || underscore + 1 == name.size() ||
        name.find_first_not_of("0123456789", underscore + 1) != std::string::npos) {
      return "";
    }
    name.resize(underscore);
  }
}

}  // namespace

BuilderRefusal ReadBuilderRefusal(const Status& status, const std::function<bool(const std::string&)>& is_source) {
  BuilderRefusal refusal{status.message(), ""};
  std::string& what = refusal.what;
  if (what.starts_with("grammar: ")) what.erase(0, 9);
  if (const size_t quote = what.find('\''); quote != std::string::npos) {
    const size_t end = what.find('\'', quote + 1);
    if (end != std::string::npos) refusal.rule = SourceRule(what.substr(quote + 1, end - quote - 1), is_source);
  }
  if (const size_t through = what.find(" through "); refusal.rule.empty() && through != std::string::npos) {
    size_t at = through + 9;
    while (refusal.rule.empty() && at < what.size()) {
      const size_t end = what.find_first_of(" ", at);
      const std::string name = what.substr(at, end == std::string::npos ? std::string::npos : end - at);
      refusal.rule = SourceRule(name, is_source);
      if (end == std::string::npos || what.compare(end, 4, " -> ") != 0) break;
      at = end + 4;
    }
  }
  return refusal;
}

}  // namespace pagoda::structured
