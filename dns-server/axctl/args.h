// axctl's command-line arguments: positional words and --flags (repeatable, or
// switches without a value). Parsing only; each command says what it accepts.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ax {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> flags;  // "--flag" -> values

  bool Has(const std::string& flag) const { return flags.count(flag) > 0; }
  // The last value given for `flag`, or "" when absent.
  std::string Get(const std::string& flag) const;
  std::vector<std::string> All(const std::string& flag) const;
};

// argv[first..]: `switches` take no value; every other --flag takes the next
// word, or what follows "=" (--output=json). kubectl's short forms -o, -n and
// -h are --output, --namespace and --help.
Args ParseArgs(int argc, char** argv, int first,
               const std::vector<std::string>& switches);

}  // namespace ax
