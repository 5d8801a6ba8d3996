// ax-dns: the authoritative GSLB DNS server. Parses flags/env/config file,
// runs the Service until SIGTERM or SIGINT, then stops it gracefully.
// Exit codes: 0 after a clean stop, 1 when starting failed, 2 for bad flags.
#include <sys/resource.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ax/runtime/flag_table.h"
#include "ax/runtime/log.h"
#include "ax/runtime/stop_signals.h"
#include "server/config.h"
#include "server/service.h"

namespace {

// Each TCP connection costs a descriptor: take the hard limit, not the soft
// default of 1024.
void RaiseFdLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const ax::dns::ConfigResult parsed =
      ax::dns::ParseConfig(std::vector<std::string>(argv + 1, argv + argc),
                           ax::runtime::ProcessEnvironment());
  if (parsed.help) {
    std::fputs(ax::dns::HelpText().c_str(), stdout);
    return 0;
  }
  if (!parsed.ok) {
    std::fprintf(stderr, "ax-dns: %s\n", parsed.error.c_str());
    return 2;
  }
  ax::runtime::SetLogLevel(parsed.config.log_level);
  RaiseFdLimit();

  // Before any thread starts (see stop_signals.h).
  const ax::runtime::StopSignals stop_signals;

  ax::dns::Service service(parsed.config);
  std::string error;
  if (!service.Start(&error)) {
    ax::runtime::Log(ax::runtime::LogLevel::kError, "ax-dns failed to start",
                     {{"error", error}});
    return 1;
  }
  ax::runtime::Log(ax::runtime::LogLevel::kInfo, "ax-dns started",
                   {{"identity", parsed.config.identity}});
  ax::runtime::Log(ax::runtime::LogLevel::kInfo, "stopping",
                   {{"signal", stop_signals.Wait()}});
  service.Stop();
  ax::runtime::Log(ax::runtime::LogLevel::kInfo, "ax-dns stopped", {});
  return 0;
}
