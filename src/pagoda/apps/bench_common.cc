#include "pagoda/apps/bench_common.h"

#include <fmt/format.h>

#include <fstream>

namespace pagoda::apps {

std::vector<int32_t> PromptVocabulary(const tokenizer::Tokenizer& tok) {
  std::vector<int32_t> vocab;
  for (int32_t id = 0; id < tok.vocab_size(); ++id) {
    if (!tok.IsSpecial(id)) vocab.push_back(id);
  }
  return vocab;
}

Status WriteJsonFile(const std::string& path, const nlohmann::json& result) {
  std::ofstream out(path);
  out << result.dump(2) << "\n";
  if (!out) return InternalError(fmt::format("cannot write {}", path));
  return Status::Ok();
}

}  // namespace pagoda::apps
