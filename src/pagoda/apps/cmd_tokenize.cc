// `pagoda tokenize` and `pagoda detokenize`: text to token ids (a JSON array)
// and back, with the model's own tokenizer.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <iterator>

#include "pagoda/apps/commands.h"
#include "pagoda/engine/model_files.h"

namespace pagoda::apps {
namespace {

std::string ReadStdin() { return std::string(std::istreambuf_iterator<char>(std::cin), {}); }

struct TokenizeArgs {
  std::string model;
  std::optional<std::string> text;
  bool no_special = false;
};

struct DetokenizeArgs {
  std::string model;
  std::optional<std::string> ids;
  bool skip_special = false;
};

Status Tokenize(const TokenizeArgs& args) {
  PAGODA_ASSIGN_OR_RETURN(LoadedModel m, LoadModelFiles(args.model, /*with_weights=*/false));
  const std::string text = args.text ? *args.text : ReadStdin();
  tokenizer::EncodeOptions options;
  options.add_special = !args.no_special;
  options.parse_special = !args.no_special;
  std::cout << nlohmann::json(m.tokenizer->Encode(text, options)).dump() << "\n";
  return Status::Ok();
}

Status Detokenize(const DetokenizeArgs& args) {
  PAGODA_ASSIGN_OR_RETURN(LoadedModel m, LoadModelFiles(args.model, /*with_weights=*/false));
  const std::string input = args.ids ? *args.ids : ReadStdin();
  const auto parsed = nlohmann::json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return InvalidArgumentError("expected a JSON array of token ids");
  std::vector<tokenizer::TokenId> ids;
  for (const auto& v : parsed) {
    if (!v.is_number_integer()) return InvalidArgumentError(fmt::format("not a token id: {}", v.dump()));
    const int64_t id = v.get<int64_t>();
    if (id < 0 || id >= m.tokenizer->vocab_size()) {
      return OutOfRangeError(fmt::format("token id {} is outside the vocabulary (size {})", id,
                                         m.tokenizer->vocab_size()));
    }
    ids.push_back(static_cast<tokenizer::TokenId>(id));
  }
  PAGODA_ASSIGN_OR_RETURN(std::string text, m.tokenizer->Decode(ids, args.skip_special));
  std::cout << text;
  return Status::Ok();
}

}  // namespace

void RegisterTokenize(CLI::App& app, Command& command) {
  auto tok = std::make_shared<TokenizeArgs>();
  auto* t = app.add_subcommand("tokenize", "Print the token ids of a text as a JSON array");
  t->add_option("--model", tok->model, "GGUF model file (default: the default model)");
  t->add_option("--text", tok->text, "Text to tokenize (default: read standard input)");
  t->add_flag("--no-special", tok->no_special, "Treat special-token strings as plain text and add no BOS/EOS");
  t->callback([&command, tok] { command = [tok] { return Tokenize(*tok); }; });

  auto detok = std::make_shared<DetokenizeArgs>();
  auto* d = app.add_subcommand("detokenize", "Print the text of a JSON array of token ids");
  d->add_option("--model", detok->model, "GGUF model file (default: the default model)");
  d->add_option("--ids", detok->ids, "JSON array of ids (default: read standard input)");
  d->add_flag("--skip-special-tokens", detok->skip_special, "Leave out special tokens");
  d->callback([&command, detok] { command = [detok] { return Detokenize(*detok); }; });
}

}  // namespace pagoda::apps
