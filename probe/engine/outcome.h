// What one probe produced, in full detail: the phase timings, the error kind,
// the HTTP status and any self-reported load. ProbeResult (ax/health.h) is the
// narrow view the health state machine consumes; ToProbeResult derives it.
// Nothing here does I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ax/health.h"
#include "ax/node_status.h"
#include "engine/probe_error.h"
#include "engine/verdict.h"

namespace ax::probe {

// Milliseconds from the start of the probe (socket creation) to the end of
// each phase, like curl's time_connect / time_appconnect / time_starttransfer
// / time_total: so connect <= tls <= first_byte <= total whenever present.
// A phase that was not reached (or does not apply, e.g. tls over plain HTTP)
// is absent. Subtract neighbours for per-phase durations.
struct Phases {
  std::optional<double> connect_ms;
  std::optional<double> tls_ms;
  std::optional<double> first_byte_ms;
  std::optional<double> total_ms;
};

struct ProbeOutcome {
  ProbeError error = ProbeError::kNone;
  std::string detail;   // human-readable cause; empty when ok
  int http_status = 0;  // 0 when no status line was read
  Phases phases;
  SelfReport self;  // load and error rate from a JSON body, if it had one
  // HTTPS: the handshake resumed an earlier session, so it did not verify
  // the certificate again (that handshake did).
  bool tls_resumed = false;

  bool ok() const { return error == ProbeError::kNone; }
};

// Each phase on its own, for a per-phase histogram: "connect" (TCP
// handshake), "tls" (TLS handshake), "first_byte" (request sent and the
// server thinking), "transfer" (rest of the response), and "total" (all of
// it). Only phases that were reached are listed, in that order.
struct PhaseDuration {
  const char* phase;
  double ms;
};
std::vector<PhaseDuration> PhaseDurations(const Phases& phases);

// The health state machine's view: ok, latency = total time, load and error
// rate, `at_ms`, error = "<reason>: <detail>".
ProbeResult ToProbeResult(const ProbeOutcome& outcome, int64_t at_ms);

}  // namespace ax::probe
