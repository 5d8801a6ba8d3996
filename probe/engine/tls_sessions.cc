// Per-node TLS sessions (tls_sessions.h).
#include "engine/tls_sessions.h"

#include <utility>

namespace ax::probe {

TlsPeer TlsPeerOf(const ProbeTarget& target) {
  return {target.address, EffectivePort(target.check), target.check.host};
}

SslSessionPtr TlsSessionCache::Find(const std::string& node,
                                    const TlsPeer& peer, int64_t now_ms) {
  auto it = entries_.find(node);
  if (it == entries_.end()) return nullptr;
  const Entry& entry = it->second;
  const int64_t age_ms = now_ms - entry.verified_at_ms;
  if (entry.peer != peer || age_ms < 0 || age_ms >= max_age_ms_) {
    entries_.erase(it);
    return nullptr;
  }
  SSL_SESSION_up_ref(entry.session.get());
  return SslSessionPtr(entry.session.get());
}

void TlsSessionCache::Keep(const std::string& node, const TlsPeer& peer,
                           SslSessionPtr session, bool resumed,
                           int64_t now_ms) {
  auto it = entries_.find(node);
  int64_t verified_at_ms = now_ms;
  if (resumed) {
    // Without the entry it resumed we cannot tell how old the verification
    // is: keep nothing, the next handshake verifies again.
    if (it == entries_.end()) return;
    verified_at_ms = it->second.verified_at_ms;
  }
  if (!session) {
    if (it != entries_.end()) entries_.erase(it);
    return;
  }
  entries_.insert_or_assign(node,
                            Entry{peer, std::move(session), verified_at_ms});
}

}  // namespace ax::probe
