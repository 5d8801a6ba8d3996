// ax-operator: parses flags/env/config file, runs the OperatorService until
// SIGTERM or SIGINT, then stops it cleanly (releasing the lease).
// Exit codes: 0 after a clean stop, 1 when starting failed, 2 for bad flags.

#include <cstdio>
#include <string>
#include <vector>

#include "ax/runtime/flag_table.h"
#include "ax/runtime/log.h"
#include "ax/runtime/stop_signals.h"
#include "config.h"
#include "operator_service.h"

int main(int argc, char** argv) {
  const ax::controller::OperatorConfigResult parsed =
      ax::controller::ParseOperatorConfig(
          std::vector<std::string>(argv + 1, argv + argc),
          ax::runtime::ProcessEnvironment());
  if (parsed.help) {
    std::fputs(ax::controller::OperatorHelpText().c_str(), stdout);
    return 0;
  }
  if (!parsed.ok) {
    std::fprintf(stderr, "ax-operator: %s\n", parsed.error.c_str());
    return 2;
  }
  ax::runtime::SetLogLevel(parsed.config.log_level);

  // Before any thread starts (see stop_signals.h).
  const ax::runtime::StopSignals stop_signals;

  ax::controller::OperatorService service(parsed.config);
  std::string error;
  if (!service.Start(&error)) {
    ax::runtime::Log(ax::runtime::LogLevel::kError,
                     "ax-operator failed to start", {{"error", error}});
    return 1;
  }
  ax::runtime::Log(ax::runtime::LogLevel::kInfo, "stopping",
                   {{"signal", stop_signals.Wait()}});
  service.Stop();
  ax::runtime::Log(ax::runtime::LogLevel::kInfo, "ax-operator stopped", {});
  return 0;
}
