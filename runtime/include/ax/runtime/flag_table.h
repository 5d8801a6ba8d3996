// A program's settings as one table of flags, each settable on the command
// line (--name VALUE / --name=VALUE), from the environment (PREFIX_NAME, '-'
// as '_', lists comma-separated) and from a YAML/JSON --config file whose keys
// are flag names (plus the sections the program reads itself). Precedence:
// flag > env > file > default; each default is text run through the same
// setter as user input, so --help and the behaviour cannot disagree. The one
// flag system of ax-dns, ax-probe and ax-operator.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ax/runtime/config_file.h"
#include "ax/runtime/config_values.h"
#include "ax/runtime/log.h"
#include "ax/runtime/net.h"

namespace ax::runtime {

// A flag's values as text: one for a plain flag (the last given wins), every
// one given, in order, for a list flag. Never empty when a setter sees it.
using FlagValues = std::vector<std::string>;

template <typename Config>
using FlagSetter =
    std::function<bool(Config&, const FlagValues& values, std::string* error)>;

enum class FlagArity : uint8_t {
  kValue,   // --name VALUE
  kSwitch,  // --name alone means true (--name=false also works)
  kList,    // repeatable; env and file take comma lists and sequences
};

template <typename Config>
struct FlagSpec {
  const char* name;
  const char* arg;           // what the value is, for --help ("" for switches)
  const char* default_text;  // shown in --help and applied first
  const char* help;
  FlagSetter<Config> set;
  FlagArity arity = FlagArity::kValue;
};

// A setter of one value from a function of the last value given.
template <typename Config>
FlagSetter<Config> OneValue(
    std::function<bool(Config&, const std::string&, std::string*)> set) {
  return [set = std::move(set)](Config& c, const FlagValues& v,
                                std::string* e) { return set(c, v.back(), e); };
}

template <typename Config>
FlagSetter<Config> TextFlag(std::string Config::*field) {
  return [=](Config& c, const FlagValues& v, std::string*) {
    c.*field = v.back();
    return true;
  };
}
// Every non-empty value, in order.
template <typename Config>
FlagSetter<Config> TextListFlag(std::vector<std::string> Config::*field) {
  return [=](Config& c, const FlagValues& values, std::string*) {
    (c.*field).clear();
    for (const std::string& v : values) {
      if (!v.empty()) (c.*field).push_back(v);
    }
    return true;
  };
}
// A duration; longer than 0 unless `zero_ok`.
template <typename Config>
FlagSetter<Config> DurationFlag(std::chrono::milliseconds Config::*field,
                                bool zero_ok = false) {
  return [=](Config& c, const FlagValues& v, std::string* e) {
    if (!ParseDuration(v.back(), &(c.*field), e)) return false;
    if (zero_ok || (c.*field).count() > 0) return true;
    *e = "must be longer than 0";
    return false;
  };
}
// true/false; `negate` for --no-X switches.
template <typename Config>
FlagSetter<Config> BoolFlag(bool Config::*field, bool negate = false) {
  return [=](Config& c, const FlagValues& v, std::string* e) {
    bool b = false;
    if (!ParseBool(v.back(), &b, e)) return false;
    c.*field = negate ? !b : b;
    return true;
  };
}
template <typename Config, typename T>
FlagSetter<Config> IntFlag(T Config::*field, int64_t min, int64_t max) {
  return [=](Config& c, const FlagValues& v, std::string* e) {
    int64_t n = 0;
    if (!ParseInt(v.back(), min, max, &n, e)) return false;
    c.*field = static_cast<T>(n);
    return true;
  };
}
// A size with an optional unit ("4MiB", "512KiB", "1000"), within [min, max].
template <typename Config, typename T>
FlagSetter<Config> ByteSizeFlag(T Config::*field, int64_t min, int64_t max) {
  return [=](Config& c, const FlagValues& v, std::string* e) {
    int64_t bytes = 0;
    if (!ParseByteSize(v.back(), &bytes, e)) return false;
    if (bytes < min || bytes > max) {
      *e = "must be within " + std::to_string(min) + ".." +
           std::to_string(max) + " bytes";
      return false;
    }
    c.*field = static_cast<T>(bytes);
    return true;
  };
}
// An ADDR:PORT to listen on, or empty (the listener is off); checked here and
// parsed again where it is bound.
template <typename Config>
FlagSetter<Config> ListenFlag(std::string Config::*field) {
  return [=](Config& c, const FlagValues& v, std::string* e) {
    Endpoint at;
    if (!v.back().empty() && !ParseEndpoint(v.back(), &at, e)) return false;
    c.*field = v.back();
    return true;
  };
}
template <typename Config>
FlagSetter<Config> LogLevelFlag(LogLevel Config::*field) {
  return [=](Config& c, const FlagValues& v, std::string* e) {
    if (ParseLogLevel(v.back(), &(c.*field))) return true;
    *e = "bad log level \"" + v.back() + "\" (debug, info, warn, error)";
    return false;
  };
}

// A flag without its setter: what parsing and --help need.
struct FlagInfo {
  std::string name;
  std::string arg;
  std::string default_text;
  std::string help;
  FlagArity arity = FlagArity::kValue;
};

template <typename Config>
std::vector<FlagInfo> FlagInfos(const std::vector<FlagSpec<Config>>& flags) {
  std::vector<FlagInfo> out;
  for (const auto& f : flags) {
    out.push_back({f.name, f.arg, f.default_text, f.help, f.arity});
  }
  return out;
}

struct FlagSources {
  bool ok = false;
  bool help = false;
  std::string error;
  // Flag name -> the values that win (flag > env > file); absent: default.
  std::map<std::string, FlagValues> values;
};

// Reads `args` (without the program name), the `env_prefix` variables of
// `env` and the --config file (a flag or env value named "config"), whose
// `sections` go to their readers.
FlagSources ReadFlagSources(const std::vector<FlagInfo>& flags,
                            std::string_view env_prefix,
                            const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env,
                            const ConfigSections& sections = {});

// "  --name ARG ...             help [default: x]", a line per flag ("..."
// marks a list flag).
std::string FlagHelpLines(const std::vector<FlagInfo>& flags);

// A flag's values when no source sets it: its default text (a comma list for
// a list flag), never empty.
FlagValues DefaultValues(const FlagInfo& flag);

struct FlagResult {
  bool ok = false;
  bool help = false;  // --help given: print the help, exit 0
  std::string error;  // when !ok: "--name: why"
};

// Sets every flag of `flags` in `config` from the sources, defaults first, in
// table order (a setter may rely on the flags before it).
template <typename Config>
FlagResult ApplyFlags(const std::vector<FlagSpec<Config>>& flags,
                      std::string_view env_prefix,
                      const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env,
                      Config* config, const ConfigSections& sections = {}) {
  const std::vector<FlagInfo> infos = FlagInfos(flags);
  const FlagSources sources =
      ReadFlagSources(infos, env_prefix, args, env, sections);
  FlagResult result{sources.ok, sources.help, sources.error};
  if (!sources.ok || sources.help) return result;
  for (size_t i = 0; i < flags.size(); ++i) {
    const auto it = sources.values.find(infos[i].name);
    const FlagValues values = it == sources.values.end()
                                  ? DefaultValues(infos[i])
                              : it->second.empty() ? FlagValues{""}
                                                   : it->second;
    std::string error;
    if (!flags[i].set(*config, values, &error)) {
      result.ok = false;
      result.error = "--" + infos[i].name + ": " + error;
      return result;
    }
  }
  return result;
}

// The process's environment (environ) as a map, for the parsers above.
std::map<std::string, std::string> ProcessEnvironment();

}  // namespace ax::runtime
