// Open TCP connections per client source, shared by every TCP loop, so that
// one address cannot hold the whole connection limit: a source is an IPv4
// address or an IPv6 /64 (what one host or one customer gets). Touched on
// accept and close only, never per query.
#pragma once

#include <map>
#include <mutex>

#include "ax/ip.h"

namespace ax::dns {

class TcpSources {
 public:
  explicit TcpSources(int limit) : limit_(limit) {}  // 0: no limit

  // Counts a connection from `peer` unless its source already holds `limit`.
  bool Admit(const IpAddress& peer);
  // A connection Admit counted has closed.
  void Release(const IpAddress& peer);
  // Open connections of `peer`'s source.
  int Count(const IpAddress& peer) const;

 private:
  static IpAddress SourceOf(const IpAddress& peer);

  const int limit_;
  mutable std::mutex mu_;
  std::map<IpAddress, int> open_;  // sources with at least one connection
};

}  // namespace ax::dns
