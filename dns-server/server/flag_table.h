// A program's settings as one table of flags, each settable on the command
// line (--name VALUE / --name=VALUE), from the environment (PREFIX_NAME, '-'
// as '_') and from a YAML/JSON --config file whose keys are flag names.
// Precedence: flag > env > file > default; each default is text run through
// the same setter as user input, so --help and the behaviour cannot disagree.
// Shared by ax-probe and ax-operator (ax-dns has list flags and zones).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "server/config_values.h"
#include "server/log.h"
#include "server/net.h"

namespace ax::dns {

template <typename Config>
using FlagSetter =
    std::function<bool(Config&, const std::string& value, std::string* error)>;

template <typename Config>
struct FlagSpec {
  const char* name;
  const char* arg;           // what the value is, for --help ("" for bool)
  const char* default_text;  // shown in --help and applied first
  const char* help;
  FlagSetter<Config> set;
  bool boolean = false;  // takes no value on the command line
};

template <typename Config>
FlagSetter<Config> TextFlag(std::string Config::*field) {
  return [=](Config& c, const std::string& v, std::string*) {
    c.*field = v;
    return true;
  };
}
// A duration longer than 0.
template <typename Config>
FlagSetter<Config> DurationFlag(std::chrono::milliseconds Config::*field) {
  return [=](Config& c, const std::string& v, std::string* e) {
    if (!ParseDuration(v, &(c.*field), e)) return false;
    if ((c.*field).count() > 0) return true;
    *e = "must be longer than 0";
    return false;
  };
}
template <typename Config>
FlagSetter<Config> BoolFlag(bool Config::*field) {
  return [=](Config& c, const std::string& v, std::string* e) {
    return ParseBool(v, &(c.*field), e);
  };
}

// An ADDR:PORT to listen on, or empty (the listener is off).
template <typename Config>
FlagSetter<Config> ListenFlag(std::string Config::*field) {
  return [=](Config& c, const std::string& v, std::string* e) {
    Endpoint at;
    if (!v.empty() && !ParseEndpoint(v, &at, e)) return false;
    c.*field = v;
    return true;
  };
}
template <typename Config>
FlagSetter<Config> LogLevelFlag(LogLevel Config::*field) {
  return [=](Config& c, const std::string& v, std::string* e) {
    if (ParseLogLevel(v, &(c.*field))) return true;
    *e = "bad log level \"" + v + "\" (debug, info, warn, error)";
    return false;
  };
}

// A flag without its setter: what parsing and --help need.
struct FlagInfo {
  std::string name;
  std::string arg;
  std::string default_text;
  std::string help;
  bool boolean = false;
};

template <typename Config>
std::vector<FlagInfo> FlagInfos(const std::vector<FlagSpec<Config>>& flags) {
  std::vector<FlagInfo> out;
  for (const auto& f : flags) {
    out.push_back({f.name, f.arg, f.default_text, f.help, f.boolean});
  }
  return out;
}

struct FlagSources {
  bool ok = false;
  bool help = false;
  std::string error;
  // Flag name -> the text that wins (flag > env > file); absent: default.
  std::map<std::string, std::string> values;
};

// Reads `args` (without the program name), the `env_prefix` variables of
// `env` and the --config file (a flag or env value named "config").
FlagSources ReadFlagSources(const std::vector<FlagInfo>& flags,
                            std::string_view env_prefix,
                            const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env);

// "  --name ARG                  help [default: x]", a line per flag.
std::string FlagHelpLines(const std::vector<FlagInfo>& flags);

struct FlagResult {
  bool ok = false;
  bool help = false;  // --help given: print the help, exit 0
  std::string error;  // when !ok: "--name: why"
};

// Sets every flag of `flags` in `config` from the sources, defaults first.
template <typename Config>
FlagResult ApplyFlags(const std::vector<FlagSpec<Config>>& flags,
                      std::string_view env_prefix,
                      const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env,
                      Config* config) {
  const FlagSources sources =
      ReadFlagSources(FlagInfos(flags), env_prefix, args, env);
  FlagResult result{sources.ok, sources.help, sources.error};
  if (!sources.ok || sources.help) return result;
  for (const auto& f : flags) {
    const auto it = sources.values.find(f.name);
    const std::string value =
        it == sources.values.end() ? f.default_text : it->second;
    std::string error;
    if (!f.set(*config, value, &error)) {
      result.ok = false;
      result.error = "--" + std::string(f.name) + ": " + error;
      return result;
    }
  }
  return result;
}

// The process's environment (environ) as a map, for the parsers above.
std::map<std::string, std::string> ProcessEnvironment();

}  // namespace ax::dns
