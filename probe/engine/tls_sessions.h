// TLS session resumption per node: the engine keeps each HTTPS node's last
// session and offers it on that node's next connection, so a probe costs an
// abbreviated handshake instead of a full one with certificate verification.
// A resumed handshake verifies nothing, so a session is only offered to the
// exact peer it was made with, only for a bounded time after the full
// handshake that verified the certificate, and never after a failed probe
// (the engine drops it then). Engine thread only: no locking.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "ax/ip.h"
#include "engine/target.h"
#include "engine/tls.h"

namespace ax::probe {

// Whom a session was made with: the address and port connected to and the
// name sent as SNI and checked in the certificate. The CA settings are not
// here because they are the engine's: one cache never sees two.
struct TlsPeer {
  IpAddress address;
  uint16_t port = 0;
  std::string host;
  bool operator==(const TlsPeer&) const = default;
};
TlsPeer TlsPeerOf(const ProbeTarget& target);

class TlsSessionCache {
 public:
  // `max_age_ms`: how long after a full handshake its certificate is trusted
  // without verifying it again (0: never resume).
  explicit TlsSessionCache(int64_t max_age_ms) : max_age_ms_(max_age_ms) {}

  // The session to offer on the node's next connection to `peer` (a new
  // reference), or null: none kept, kept for another peer, or the
  // certificate was verified max_age_ms or longer ago. An expired or
  // mismatched session is dropped: the next handshake is full. `now_ms`
  // before the verification time (a clock stepped back) counts as expired,
  // so a clock step can never extend the trust.
  SslSessionPtr Find(const std::string& node, const TlsPeer& peer,
                     int64_t now_ms);

  // After a successful probe: `session` (null: the server gave none) is the
  // one to offer next. `resumed`: that probe resumed the session Find gave,
  // so its certificate was last verified when that one's was.
  void Keep(const std::string& node, const TlsPeer& peer, SslSessionPtr session,
            bool resumed, int64_t now_ms);

  // A failed probe, or a removed or changed node: the next handshake is full.
  void Drop(const std::string& node) { entries_.erase(node); }

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    TlsPeer peer;
    SslSessionPtr session;
    int64_t verified_at_ms = 0;  // the full handshake this one descends from
  };

  int64_t max_age_ms_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace ax::probe
