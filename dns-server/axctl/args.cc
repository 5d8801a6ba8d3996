// Argument parsing for axctl.
#include "axctl/args.h"

#include <algorithm>

namespace ax {

std::string Args::Get(const std::string& flag) const {
  auto it = flags.find(flag);
  return it == flags.end() || it->second.empty() ? "" : it->second.back();
}

std::vector<std::string> Args::All(const std::string& flag) const {
  auto it = flags.find(flag);
  return it == flags.end() ? std::vector<std::string>{} : it->second;
}

namespace {

std::string LongForm(const std::string& a) {
  if (a == "-o") return "--output";
  if (a == "-n") return "--namespace";
  if (a == "-h") return "--help";
  return a;
}

}  // namespace

Args ParseArgs(int argc, char** argv, int first,
               const std::vector<std::string>& switches) {
  Args args;
  for (int i = first; i < argc; ++i) {
    std::string a = LongForm(argv[i]);
    if (a.rfind("--", 0) != 0) {
      args.positional.push_back(a);
      continue;
    }
    if (const size_t eq = a.find('='); eq != std::string::npos) {
      args.flags[a.substr(0, eq)].push_back(a.substr(eq + 1));
      continue;
    }
    const bool is_switch =
        std::find(switches.begin(), switches.end(), a) != switches.end();
    if (is_switch || i + 1 >= argc) {
      args.flags[a].push_back("");
    } else {
      args.flags[a].push_back(argv[++i]);
    }
  }
  return args;
}

}  // namespace ax
