// StructuredOutputsParams with vLLM's keyword arguments: exactly one
// constraint (json, regex, choice, grammar, json_object, structural_tag),
// checked on construction with a ValueError. A schema given as a dict is
// kept as JSON text in its key order, which the grammar follows.
#include <pybind11/stl.h>

#include "bindings.h"
#include "pagoda/request/structured_outputs_params.h"

namespace py = pybind11;

namespace pagoda::python {
namespace {

// A schema as JSON text: a str as given, anything else through json.dumps.
std::optional<std::string> SchemaText(const py::object& json) {
  if (json.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(json)) return json.cast<std::string>();
  return py::module_::import("json").attr("dumps")(json).cast<std::string>();
}

}  // namespace

void BindStructuredOutputsParams(py::module_& m) {
  py::class_<StructuredOutputsParams>(m, "StructuredOutputsParams")
      .def(py::init([](const py::object& json, std::optional<std::string> regex,
                       std::optional<std::vector<std::string>> choice, std::optional<std::string> grammar,
                       std::optional<bool> json_object, bool disable_fallback, bool disable_any_whitespace,
                       bool disable_additional_properties, std::optional<std::string> whitespace_pattern,
                       std::optional<std::string> structural_tag) {
             StructuredOutputsParams p;
             p.json = SchemaText(json);
             p.regex = std::move(regex);
             p.choice = std::move(choice);
             p.grammar = std::move(grammar);
             p.json_object = json_object;
             p.disable_fallback = disable_fallback;
             p.disable_any_whitespace = disable_any_whitespace;
             p.disable_additional_properties = disable_additional_properties;
             p.whitespace_pattern = std::move(whitespace_pattern);
             p.structural_tag = std::move(structural_tag);
             if (Status s = p.Validate(); !s.ok()) throw py::value_error(s.message());
             return p;
           }),
           py::kw_only(), py::arg("json") = py::none(), py::arg("regex") = py::none(),
           py::arg("choice") = py::none(), py::arg("grammar") = py::none(), py::arg("json_object") = py::none(),
           py::arg("disable_fallback") = false, py::arg("disable_any_whitespace") = false,
           py::arg("disable_additional_properties") = false, py::arg("whitespace_pattern") = py::none(),
           py::arg("structural_tag") = py::none())
      .def_readonly("json", &StructuredOutputsParams::json)
      .def_readonly("regex", &StructuredOutputsParams::regex)
      .def_readonly("choice", &StructuredOutputsParams::choice)
      .def_readonly("grammar", &StructuredOutputsParams::grammar)
      .def_readonly("json_object", &StructuredOutputsParams::json_object)
      .def_readonly("disable_fallback", &StructuredOutputsParams::disable_fallback)
      .def_readonly("disable_any_whitespace", &StructuredOutputsParams::disable_any_whitespace)
      .def_readonly("disable_additional_properties", &StructuredOutputsParams::disable_additional_properties)
      .def_readonly("whitespace_pattern", &StructuredOutputsParams::whitespace_pattern);
}

}  // namespace pagoda::python
