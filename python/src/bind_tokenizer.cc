// LLM.get_tokenizer(): the model's tokenizer and chat template with the
// parts of Hugging Face's tokenizer API that vLLM users call (encode,
// decode, apply_chat_template, the special token ids, the vocabulary),
// running Pagoda's own tokenizer and Jinja engine (chat_template/).
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include "bindings.h"
#include "pagoda/chat_template/apply_chat_template.h"
#include "pagoda/engine/engine.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace py = pybind11;

namespace pagoda::python {
namespace {

using Json = nlohmann::ordered_json;

// Borrowed from the engine, which the Python object keeps alive.
struct TokenizerView {
  const tokenizer::Tokenizer* tokenizer;
  std::optional<std::string> chat_template;  // the model's source
};

// A Python value as JSON, through json.dumps (which keeps dict order, as
// templates show it); what json cannot write raises its TypeError.
Json ToJson(const py::handle& value) {
  const std::string text = py::module_::import("json").attr("dumps")(value).cast<std::string>();
  return Json::parse(text);
}

std::optional<std::string> TokenString(const tokenizer::Tokenizer& t, std::optional<int32_t> id) {
  if (!id || !t.IsValidId(*id)) return std::nullopt;
  return t.TokenText(*id);
}

// The special tokens transformers gives every template (those the model has).
Json SpecialTokens(const tokenizer::Tokenizer& t) {
  Json tokens = Json::object();
  const std::pair<const char*, std::optional<int32_t>> named[] = {
      {"bos_token", t.bos_id()}, {"eos_token", t.eos_id()}, {"unk_token", t.unk_id()}, {"pad_token", t.pad_id()}};
  for (const auto& [name, id] : named) {
    if (std::optional<std::string> text = TokenString(t, id)) tokens[name] = *text;
  }
  return tokens;
}

std::vector<int32_t> Encode(const TokenizerView& v, const std::string& text, bool add_special_tokens) {
  return v.tokenizer->Encode(text, {.add_special = add_special_tokens, .parse_special = true});
}

std::string Decode(const TokenizerView& v, const py::object& ids, bool skip_special_tokens) {
  // HF also takes a single id.
  std::vector<int32_t> list =
      py::isinstance<py::int_>(ids) ? std::vector<int32_t>{ids.cast<int32_t>()} : ids.cast<std::vector<int32_t>>();
  StatusOr<std::string> text = v.tokenizer->Decode(list, skip_special_tokens);
  if (!text.ok()) throw py::value_error(text.status().message());
  return std::move(*text);
}

// One conversation rendered, as transformers' apply_chat_template(...,
// tokenize=False) renders it.
std::string Render(const TokenizerView& v, const py::handle& conversation, const py::object& tools,
                   const py::object& documents, const std::optional<std::string>& chat_template,
                   bool add_generation_prompt, bool continue_final_message, const py::dict& kwargs) {
  const std::optional<std::string>& source = chat_template ? chat_template : v.chat_template;
  if (!source) {
    throw py::value_error(
        "Cannot use chat template functions because tokenizer.chat_template is not set and no template argument "
        "was passed!");
  }
  StatusOr<chat_template::ChatTemplate> parsed = chat_template::ChatTemplate::Parse(*source);
  if (!parsed.ok()) throw py::value_error("the chat template does not parse: " + parsed.status().message());
  chat_template::ChatTemplateInputs inputs;
  inputs.messages = ToJson(conversation);
  if (!tools.is_none()) inputs.tools = ToJson(tools);
  if (!documents.is_none()) inputs.documents = ToJson(documents);
  inputs.add_generation_prompt = add_generation_prompt;
  inputs.continue_final_message = continue_final_message;
  inputs.special_tokens = SpecialTokens(*v.tokenizer);
  inputs.kwargs = ToJson(kwargs);
  StatusOr<std::string> rendered = chat_template::ApplyChatTemplate(*parsed, inputs);
  if (!rendered.ok()) throw py::value_error(rendered.status().message());
  return std::move(*rendered);
}

// A batch is a list of conversations (lists), as in transformers.
bool IsBatch(const py::object& conversation) {
  if (!py::isinstance<py::list>(conversation) && !py::isinstance<py::tuple>(conversation)) return false;
  py::sequence seq = conversation;
  return py::len(seq) > 0 && (py::isinstance<py::list>(seq[0]) || py::isinstance<py::tuple>(seq[0]));
}

}  // namespace

py::object MakeTokenizer(const Engine& engine) {
  return py::cast(TokenizerView{&engine.tokenizer(), engine.chat_template()});
}

void BindTokenizer(py::module_& m) {
  py::class_<TokenizerView>(m, "Tokenizer", "The model's tokenizer, with Hugging Face's method names")
      .def("encode", &Encode, py::arg("text"), py::arg("add_special_tokens") = true,
           "Token ids of `text`; special tokens written in it are recognized, and with add_special_tokens the "
           "model's BOS/EOS are added as its tokenizer says.")
      .def("decode", &Decode, py::arg("token_ids"), py::arg("skip_special_tokens") = false)
      .def(
          "apply_chat_template",
          [](const TokenizerView& v, const py::object& conversation, const py::object& tools,
             const py::object& documents, const std::optional<std::string>& chat_template,
             bool add_generation_prompt, bool continue_final_message, bool tokenize,
             const py::kwargs& kwargs) -> py::object {
            // Extra keyword arguments reach the template as variables, as in transformers.
            py::dict template_kwargs;
            for (const auto& [key, value] : kwargs) template_kwargs[key] = value;
            auto one = [&](const py::handle& c) -> py::object {
              std::string text = Render(v, c, tools, documents, chat_template, add_generation_prompt,
                                        continue_final_message, template_kwargs);
              // transformers tokenizes the rendering without adding special tokens.
              if (tokenize) return py::cast(Encode(v, text, false));
              return py::str(text);
            };
            if (!IsBatch(conversation)) return one(conversation);
            py::list out;
            for (const py::handle& c : conversation) out.append(one(c));
            return out;
          },
          py::arg("conversation"), py::kw_only(), py::arg("tools") = py::none(), py::arg("documents") = py::none(),
          py::arg("chat_template") = py::none(), py::arg("add_generation_prompt") = false,
          py::arg("continue_final_message") = false, py::arg("tokenize") = true)
      .def("convert_ids_to_tokens",
           [](const TokenizerView& v, const py::object& ids) -> py::object {
             auto text = [&](int32_t id) {
               if (!v.tokenizer->IsValidId(id)) throw py::value_error("token id " + std::to_string(id) + " is out of the vocabulary");
               return v.tokenizer->TokenText(id);
             };
             if (py::isinstance<py::int_>(ids)) return py::str(text(ids.cast<int32_t>()));
             py::list out;
             for (int32_t id : ids.cast<std::vector<int32_t>>()) out.append(py::str(text(id)));
             return out;
           })
      .def("convert_tokens_to_ids",
           [](const TokenizerView& v, const py::object& tokens) -> py::object {
             auto id = [&](const std::string& t) -> py::object {
               std::optional<int32_t> found = v.tokenizer->FindToken(t);
               return found ? py::object(py::int_(*found)) : py::none();
             };
             if (py::isinstance<py::str>(tokens)) return id(tokens.cast<std::string>());
             py::list out;
             for (const std::string& t : tokens.cast<std::vector<std::string>>()) out.append(id(t));
             return out;
           })
      .def_property_readonly("vocab_size", [](const TokenizerView& v) { return v.tokenizer->vocab_size(); })
      .def("__len__", [](const TokenizerView& v) { return v.tokenizer->vocab_size(); })
      .def_property_readonly("bos_token_id", [](const TokenizerView& v) { return v.tokenizer->bos_id(); })
      .def_property_readonly("eos_token_id", [](const TokenizerView& v) { return v.tokenizer->eos_id(); })
      .def_property_readonly("pad_token_id", [](const TokenizerView& v) { return v.tokenizer->pad_id(); })
      .def_property_readonly("unk_token_id", [](const TokenizerView& v) { return v.tokenizer->unk_id(); })
      .def_property_readonly("bos_token",
                             [](const TokenizerView& v) { return TokenString(*v.tokenizer, v.tokenizer->bos_id()); })
      .def_property_readonly("eos_token",
                             [](const TokenizerView& v) { return TokenString(*v.tokenizer, v.tokenizer->eos_id()); })
      .def_readonly("chat_template", &TokenizerView::chat_template);
}

}  // namespace pagoda::python
