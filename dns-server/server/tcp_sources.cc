// TcpSources (tcp_sources.h): a count per source under one lock.
#include "server/tcp_sources.h"

namespace ax::dns {

IpAddress TcpSources::SourceOf(const IpAddress& peer) {
  return Mask(peer, peer.family == IpFamily::kV4 ? 32 : 64);
}

bool TcpSources::Admit(const IpAddress& peer) {
  std::lock_guard lock(mu_);
  int& open = open_[SourceOf(peer)];
  if (limit_ > 0 && open >= limit_) {
    return false;
  }
  ++open;
  return true;
}

void TcpSources::Release(const IpAddress& peer) {
  std::lock_guard lock(mu_);
  const auto it = open_.find(SourceOf(peer));
  if (it == open_.end()) return;
  if (--it->second <= 0) open_.erase(it);
}

int TcpSources::Count(const IpAddress& peer) const {
  std::lock_guard lock(mu_);
  const auto it = open_.find(SourceOf(peer));
  return it == open_.end() ? 0 : it->second;
}

}  // namespace ax::dns
