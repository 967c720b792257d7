// GrammarBuilder's refusals name the rule they are about ("... 'rule' ..."
// or "left recursion through a -> b -> a ..."), and the rule may be an
// auxiliary one made while lowering ("name_N"). A front end reads back the
// rule of its text that the refusal is about, to place the message at that
// rule's definition.
#pragma once

#include <functional>
#include <string>

#include "pagoda/base/status.h"

namespace pagoda::structured {

struct BuilderRefusal {
  // The message without GrammarBuilder's "grammar: " prefix.
  std::string what;
  // The first rule the message names for which `is_source` holds, once
  // auxiliary "name_N" names are taken back to "name"; empty if none.
  std::string rule;
};

BuilderRefusal ReadBuilderRefusal(const Status& status, const std::function<bool(const std::string&)>& is_source);

}  // namespace pagoda::structured
