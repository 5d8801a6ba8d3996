// axctl's -o/--output: text (each verb's own lines), json or yaml (the object
// or document the verb produced, as kubectl -o prints). Choosing and printing
// only.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "axctl/args.h"

namespace ax {

enum class OutputFormat { kText, kJson, kYaml };

// nullopt after saying on stderr (prefixed with `verb`) what is accepted.
std::optional<OutputFormat> OutputFormatOf(const Args& args,
                                           std::string_view verb);

// `value` as JSON (indented) or as one YAML document; nothing for kText.
void PrintAs(OutputFormat format, const nlohmann::json& value);

}  // namespace ax
