// `pagoda quantize INPUT.gguf OUTPUT.gguf TYPE`: llama-quantize's command
// line for the file types Pagoda writes (see quantize/requantize.h).
#include <iostream>

#include "pagoda/apps/commands.h"
#include "pagoda/quantize/requantize.h"

namespace pagoda::apps {

void RegisterQuantize(CLI::App& app, Command& command) {
  auto* sub = app.add_subcommand("quantize", "Write a GGUF model in another quantization type, as llama-quantize does");
  struct Args {
    std::string input;
    std::string output;
    std::string type;
    bool allow_requantize = false;
  };
  auto args = std::make_shared<Args>();
  sub->add_option("input", args->input, "GGUF file to read")->required();
  sub->add_option("output", args->output, "GGUF file to write")->required();
  sub->add_option("type", args->type, "file type: " + quantize::SupportedFileTypeNames())->required();
  sub->add_flag("--allow-requantize", args->allow_requantize,
                "allow tensors that are already quantized (they are dequantized first)");
  sub->callback([&command, args] {
    command = [args]() -> Status {
      const std::optional<quantize::FileType> type = quantize::ParseFileType(args->type);
      if (!type) {
        return InvalidArgumentError("quantize: unknown type '" + args->type + "'; supported: " +
                                    quantize::SupportedFileTypeNames());
      }
      if (args->input == args->output) return InvalidArgumentError("quantize: the output must not be the input");
      return quantize::Requantize(args->input, args->output, {*type, args->allow_requantize}, std::cerr);
    };
  });
}

}  // namespace pagoda::apps
