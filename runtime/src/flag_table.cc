// ReadFlagSources, FlagHelpLines and DefaultValues (flag_table.h): the command
// line, the environment and the config file, each as flag name -> values.
#include "ax/runtime/flag_table.h"

#include <algorithm>
#include <cctype>
#include <optional>

extern char** environ;

namespace ax::runtime {
namespace {

using Source = std::map<std::string, FlagValues>;

const FlagInfo* Find(const std::vector<FlagInfo>& flags,
                     std::string_view name) {
  for (const FlagInfo& f : flags) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string EnvName(std::string_view prefix, std::string_view flag) {
  std::string name(prefix);
  for (char ch : flag) {
    name += ch == '-' ? '_' : static_cast<char>(std::toupper(ch));
  }
  return name;
}

FlagValues SplitList(const std::string& text) {
  FlagValues out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

bool ReadArgs(const std::vector<FlagInfo>& flags,
              const std::vector<std::string>& args, Source* out, bool* help,
              std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      *error = "unexpected argument \"" + arg + "\" (see --help)";
      return false;
    }
    const size_t eq = arg.find('=');
    const std::string name =
        arg.substr(2, eq == std::string::npos ? eq : eq - 2);
    const FlagInfo* flag = Find(flags, name);
    if (!flag) {
      *error = "unknown flag --" + name + " (see --help)";
      return false;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (flag->arity == FlagArity::kSwitch) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      *error = "flag --" + name + " needs a value";
      return false;
    }
    FlagValues& values = (*out)[name];
    if (flag->arity != FlagArity::kList) values.clear();
    values.push_back(std::move(value));
  }
  return true;
}

void ReadEnv(const std::vector<FlagInfo>& flags, std::string_view prefix,
             const std::map<std::string, std::string>& env, Source* out) {
  for (const FlagInfo& f : flags) {
    const auto it = env.find(EnvName(prefix, f.name));
    if (it == env.end()) continue;
    (*out)[f.name] = f.arity == FlagArity::kList ? SplitList(it->second)
                                                 : FlagValues{it->second};
  }
}

bool ReadFile(const std::vector<FlagInfo>& flags, const std::string& path,
              const ConfigSections& sections, Source* out, std::string* error) {
  const auto is_list = [&flags](const std::string& key) -> std::optional<bool> {
    const FlagInfo* flag = Find(flags, key);
    if (!flag || key == "config") return std::nullopt;
    return flag->arity == FlagArity::kList;
  };
  return ReadConfigFile(path, is_list, sections, out, error);
}

}  // namespace

FlagSources ReadFlagSources(const std::vector<FlagInfo>& flags,
                            std::string_view env_prefix,
                            const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env,
                            const ConfigSections& sections) {
  FlagSources result;
  Source cli, environment, file;
  if (!ReadArgs(flags, args, &cli, &result.help, &result.error)) return result;
  result.ok = true;
  if (result.help) return result;
  ReadEnv(flags, env_prefix, env, &environment);
  const Source& config_source = cli.count("config") ? cli : environment;
  if (const auto it = config_source.find("config");
      it != config_source.end() && !it->second.empty() &&
      !it->second.back().empty() &&
      !ReadFile(flags, it->second.back(), sections, &file, &result.error)) {
    result.ok = false;
    return result;
  }
  for (const FlagInfo& f : flags) {
    for (const Source* from : {&cli, &environment, &file}) {
      if (const auto it = from->find(f.name); it != from->end()) {
        result.values[f.name] = it->second;
        break;
      }
    }
  }
  return result;
}

FlagValues DefaultValues(const FlagInfo& flag) {
  if (flag.arity != FlagArity::kList) return {flag.default_text};
  FlagValues values = SplitList(flag.default_text);
  if (values.empty()) values.emplace_back();
  return values;
}

std::string FlagHelpLines(const std::vector<FlagInfo>& flags) {
  std::string text;
  for (const FlagInfo& f : flags) {
    std::string head = "  --" + f.name;
    if (f.arity != FlagArity::kSwitch) head += " " + f.arg;
    if (f.arity == FlagArity::kList) head += " ...";
    head.resize(std::max<size_t>(head.size() + 1, 36), ' ');
    text += head + f.help;
    if (!f.default_text.empty()) text += " [default: " + f.default_text + "]";
    text += "\n";
  }
  return text;
}

std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) {
      env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
  }
  return env;
}

}  // namespace ax::runtime
