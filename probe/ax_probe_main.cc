// ax-probe: the health-probe sidecar. Parses flags/env/config file, runs the
// ProbeSidecar until SIGTERM or SIGINT, then stops it cleanly.
// Exit codes: 0 after a clean stop, 1 when starting failed, 2 for bad flags.

#include <cstdio>
#include <string>
#include <vector>

#include "ax/runtime/flag_table.h"
#include "ax/runtime/log.h"
#include "ax/runtime/random_seed.h"
#include "ax/runtime/stop_signals.h"
#include "sidecar/config.h"
#include "sidecar/sidecar.h"

int main(int argc, char** argv) {
  const ax::probe::SidecarConfigResult parsed = ax::probe::ParseSidecarConfig(
      std::vector<std::string>(argv + 1, argv + argc),
      ax::runtime::ProcessEnvironment());
  if (parsed.help) {
    std::fputs(ax::probe::SidecarHelpText().c_str(), stdout);
    return 0;
  }
  if (!parsed.ok) {
    std::fprintf(stderr, "ax-probe: %s\n", parsed.error.c_str());
    return 2;
  }
  ax::runtime::SetLogLevel(parsed.config.log_level);

  // Before any thread starts (see stop_signals.h).
  const ax::runtime::StopSignals stop_signals;

  ax::probe::ProbeSidecar sidecar(parsed.config, ax::runtime::RandomSeed());
  std::string error;
  if (!sidecar.Start(&error)) {
    ax::runtime::Log(ax::runtime::LogLevel::kError, "ax-probe failed to start",
                     {{"error", error}});
    return 1;
  }
  ax::runtime::Log(
      ax::runtime::LogLevel::kInfo, "ax-probe started",
      {{"vantage", parsed.config.vantage},
       {"nodes", parsed.config.nodes_api ? std::string("api")
                                         : parsed.config.manifests_dir},
       {"report", parsed.config.report}});
  ax::runtime::Log(ax::runtime::LogLevel::kInfo, "stopping",
                   {{"signal", stop_signals.Wait()}});
  sidecar.Stop();
  ax::runtime::Log(ax::runtime::LogLevel::kInfo, "ax-probe stopped", {});
  return 0;
}
