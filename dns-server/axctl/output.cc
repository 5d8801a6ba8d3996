// axctl's output formats (output.h).
#include "axctl/output.h"

#include <iostream>

#include "axctl/yaml_out.h"

namespace ax {

std::optional<OutputFormat> OutputFormatOf(const Args& args,
                                           std::string_view verb) {
  const std::string o = args.Get("--output");
  if (!args.Has("--output") || o == "text") return OutputFormat::kText;
  if (o == "json") return OutputFormat::kJson;
  if (o == "yaml") return OutputFormat::kYaml;
  std::cerr << verb << ": -o/--output is json, yaml or text, not \"" << o
            << "\"\n";
  return std::nullopt;
}

void PrintAs(OutputFormat format, const nlohmann::json& value) {
  if (format == OutputFormat::kJson) {
    std::cout << value.dump(2) << "\n";
  } else if (format == OutputFormat::kYaml) {
    std::cout << YamlDocument(nlohmann::ordered_json::parse(value.dump()));
  }
}

}  // namespace ax
