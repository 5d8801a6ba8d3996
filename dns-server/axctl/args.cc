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

Args ParseArgs(int argc, char** argv, int first,
               const std::vector<std::string>& switches) {
  Args args;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      args.positional.push_back(a);
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
