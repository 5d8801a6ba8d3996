// ax-operator: parses flags/env/config file, runs the OperatorService until
// SIGTERM or SIGINT, then stops it cleanly (releasing the lease).
// Exit codes: 0 after a clean stop, 1 when starting failed, 2 for bad flags.

#include <cstdio>
#include <string>
#include <vector>

#include "config.h"
#include "operator_service.h"
#include "server/flag_table.h"
#include "server/log.h"
#include "server/stop_signals.h"

int main(int argc, char** argv) {
  using ax::dns::Log;
  using ax::dns::LogLevel;
  const ax::controller::OperatorConfigResult parsed =
      ax::controller::ParseOperatorConfig(
          std::vector<std::string>(argv + 1, argv + argc),
          ax::dns::ProcessEnvironment());
  if (parsed.help) {
    std::fputs(ax::controller::OperatorHelpText().c_str(), stdout);
    return 0;
  }
  if (!parsed.ok) {
    std::fprintf(stderr, "ax-operator: %s\n", parsed.error.c_str());
    return 2;
  }
  ax::dns::SetLogLevel(parsed.config.log_level);

  // Before any thread starts (see stop_signals.h).
  const ax::dns::StopSignals stop_signals;

  ax::controller::OperatorService service(parsed.config);
  std::string error;
  if (!service.Start(&error)) {
    Log(LogLevel::kError, "ax-operator failed to start", {{"error", error}});
    return 1;
  }
  Log(LogLevel::kInfo, "stopping", {{"signal", stop_signals.Wait()}});
  service.Stop();
  Log(LogLevel::kInfo, "ax-operator stopped", {});
  return 0;
}
