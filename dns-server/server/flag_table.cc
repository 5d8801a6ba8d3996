// ReadFlagSources and FlagHelpLines (flag_table.h): the command line, the
// environment and the config file, each as flag name -> text.
#include "server/flag_table.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "server/config_file.h"

extern char** environ;

namespace ax::dns {
namespace {

using Source = std::map<std::string, std::string>;

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
    if (eq != std::string::npos) {
      (*out)[name] = arg.substr(eq + 1);
    } else if (flag->boolean) {
      (*out)[name] = "true";
    } else if (i + 1 < args.size()) {
      (*out)[name] = args[++i];
    } else {
      *error = "flag --" + name + " needs a value";
      return false;
    }
  }
  return true;
}

bool ReadFile(const std::vector<FlagInfo>& flags, const std::string& path,
              Source* out, std::string* error) {
  ConfigValues values;
  std::vector<ZoneConfig> zones;
  const auto is_list = [&flags](const std::string& key) -> std::optional<bool> {
    if (!Find(flags, key) || key == "config") return std::nullopt;
    return false;
  };
  if (!ReadConfigFile(path, is_list, &values, &zones, error)) return false;
  if (!zones.empty()) {
    *error = "config file " + path + ": unknown key \"zones\"";
    return false;
  }
  for (auto& [key, v] : values) (*out)[key] = v.empty() ? "" : v.back();
  return true;
}

}  // namespace

FlagSources ReadFlagSources(const std::vector<FlagInfo>& flags,
                            std::string_view env_prefix,
                            const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env) {
  FlagSources result;
  Source cli, environment, file;
  if (!ReadArgs(flags, args, &cli, &result.help, &result.error)) return result;
  result.ok = true;
  if (result.help) return result;
  for (const FlagInfo& f : flags) {
    const auto it = env.find(EnvName(env_prefix, f.name));
    if (it != env.end()) environment[f.name] = it->second;
  }
  const Source& config_source = cli.count("config") ? cli : environment;
  if (const auto it = config_source.find("config");
      it != config_source.end() && !it->second.empty() &&
      !ReadFile(flags, it->second, &file, &result.error)) {
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

std::string FlagHelpLines(const std::vector<FlagInfo>& flags) {
  std::string text;
  for (const FlagInfo& f : flags) {
    std::string head = "  --" + f.name;
    if (!f.boolean) head += " " + f.arg;
    head.resize(std::max<size_t>(head.size() + 1, 30), ' ');
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

}  // namespace ax::dns
