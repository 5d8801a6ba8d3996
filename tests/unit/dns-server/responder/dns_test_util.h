// Shared by the responder suites: queries built octet by octet (independent of
// our writer) and responses read back with ldns (independent of our reader).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ax/ip.h"
#include "responder_world.h"
#include "wire/protocol.h"

// Last: ldns's C headers define macros that break C++ standard headers after
// them.
#include <ldns/ldns.h>

namespace ax::dns::testing {

using Bytes = std::vector<uint8_t>;

inline void PutU16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}

inline void PutName(Bytes& b, const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    b.push_back(static_cast<uint8_t>(dot - start));
    b.insert(b.end(), name.begin() + start, name.begin() + dot);
    start = dot + 1;
  }
  b.push_back(0);
}

// One EDNS option: OPTION-CODE, OPTION-LENGTH, data.
inline Bytes Option(uint16_t code, const Bytes& data) {
  Bytes b;
  PutU16(b, code);
  PutU16(b, static_cast<uint16_t>(data.size()));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// An ECS option exactly as given (FAMILY, SOURCE, SCOPE, ADDRESS octets).
inline Bytes EcsRaw(uint16_t family, uint8_t source, uint8_t scope,
                    const Bytes& address) {
  Bytes data;
  PutU16(data, family);
  data.push_back(source);
  data.push_back(scope);
  data.insert(data.end(), address.begin(), address.end());
  return Option(8, data);
}

// A well-formed ECS option for `ip`/`source`: address truncated to the prefix.
inline Bytes Ecs(const std::string& ip, uint8_t source) {
  const IpAddress a = Mask(*ParseIp(ip), source);
  return EcsRaw(a.family == IpFamily::kV4 ? 1 : 2, source, 0,
                Bytes(a.bytes.begin(), a.bytes.begin() + (source + 7) / 8));
}

struct Query {
  std::string name = "www.example.test";
  uint16_t qtype = kTypeA;
  uint16_t qclass = kClassIn;
  uint16_t id = 0xBEEF;
  uint16_t flags = kFlagRd;
  uint16_t qdcount = 1;
  int opt_records = 0;  // OPT RRs in the additional section
  uint16_t udp_size = 1232;
  uint8_t version = 0;
  bool dnssec_ok = false;
  Bytes options;  // concatenated EDNS options

  Query& Edns(Bytes opts = {}) {
    opt_records = 1;
    options = std::move(opts);
    return *this;
  }
};

inline Bytes Build(const Query& q) {
  Bytes b;
  PutU16(b, q.id);
  PutU16(b, q.flags);
  PutU16(b, q.qdcount);
  PutU16(b, 0);
  PutU16(b, 0);
  PutU16(b, static_cast<uint16_t>(q.opt_records));
  for (int i = 0; i < q.qdcount; ++i) {
    PutName(b, q.name);
    PutU16(b, q.qtype);
    PutU16(b, q.qclass);
  }
  for (int i = 0; i < q.opt_records; ++i) {
    b.push_back(0);  // root owner
    PutU16(b, kTypeOpt);
    PutU16(b, q.udp_size);
    b.push_back(0);  // extended RCODE
    b.push_back(q.version);
    PutU16(b, q.dnssec_ok ? 0x8000 : 0);
    PutU16(b, static_cast<uint16_t>(q.options.size()));
    b.insert(b.end(), q.options.begin(), q.options.end());
  }
  return b;
}

struct EcsEcho {
  uint16_t family = 0;
  uint8_t source = 0;
  uint8_t scope = 0;
  Bytes address;
};

// A response as ldns reads it.
class Reply {
 public:
  explicit Reply(std::span<const uint8_t> wire) {
    if (ldns_wire2pkt(&pkt_, wire.data(), wire.size()) != LDNS_STATUS_OK) {
      pkt_ = nullptr;
    }
  }
  ~Reply() {
    if (pkt_) ldns_pkt_free(pkt_);
  }
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;

  bool ok() const { return pkt_ != nullptr; }
  ldns_pkt* pkt() const { return pkt_; }
  // The full RCODE, extended bits included (RFC 6891 §6.1.3).
  int rcode() const {
    return ldns_pkt_edns_extended_rcode(pkt_) << 4 | ldns_pkt_get_rcode(pkt_);
  }
  bool aa() const { return ldns_pkt_aa(pkt_); }
  bool tc() const { return ldns_pkt_tc(pkt_); }
  bool edns() const { return ldns_pkt_edns(pkt_); }

  std::vector<std::string> Section(ldns_pkt_section s) const {
    std::vector<std::string> out;
    ldns_rr_list* list = ldns_pkt_get_section_clone(pkt_, s);
    for (size_t i = 0; list && i < ldns_rr_list_rr_count(list); ++i) {
      char* text = ldns_rr2str(ldns_rr_list_rr(list, i));
      std::string line(text);
      free(text);
      while (!line.empty() && line.back() == '\n') line.pop_back();
      out.push_back(line);
    }
    ldns_rr_list_deep_free(list);
    return out;
  }
  std::vector<std::string> Answer() const {
    return Section(LDNS_SECTION_ANSWER);
  }
  std::vector<std::string> Authority() const {
    return Section(LDNS_SECTION_AUTHORITY);
  }
  // Without the OPT pseudo-RR, which ldns keeps apart.
  std::vector<std::string> Additional() const {
    return Section(LDNS_SECTION_ADDITIONAL);
  }
  std::vector<std::string> Question() const {
    return Section(LDNS_SECTION_QUESTION);
  }

  // The ECS option of the OPT record, if any.
  std::optional<EcsEcho> Ecs() const {
    ldns_rdf* data = ldns_pkt_edns_data(pkt_);
    if (!data) return std::nullopt;
    const uint8_t* p = ldns_rdf_data(data);
    const size_t n = ldns_rdf_size(data);
    for (size_t at = 0; at + 4 <= n;) {
      const uint16_t code = p[at] << 8 | p[at + 1];
      const uint16_t len = p[at + 2] << 8 | p[at + 3];
      if (code == 8 && len >= 4 && at + 4 + len <= n) {
        EcsEcho e;
        e.family = p[at + 4] << 8 | p[at + 5];
        e.source = p[at + 6];
        e.scope = p[at + 7];
        e.address.assign(p + at + 8, p + at + 4 + len);
        return e;
      }
      at += 4 + len;
    }
    return std::nullopt;
  }

 private:
  ldns_pkt* pkt_ = nullptr;
};

}  // namespace ax::dns::testing
