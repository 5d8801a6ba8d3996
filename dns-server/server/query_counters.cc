// Label tables of the query counters. Index 0 of each table is what unknown
// values fold into, so a new QTYPE never needs a new series.
#include "server/query_counters.h"

#include "wire/protocol.h"

namespace ax::dns {
namespace {

struct Named {
  uint16_t value;
  std::string_view label;
};

// Index 0 ("other") stands for every QTYPE not listed.
constexpr std::array<Named, kQtypeLabels> kQtypes = {{
    {0, "other"},
    {kTypeA, "A"},
    {kTypeNs, "NS"},
    {kTypeCname, "CNAME"},
    {kTypeSoa, "SOA"},
    {12, "PTR"},
    {15, "MX"},
    {kTypeTxt, "TXT"},
    {kTypeAaaa, "AAAA"},
    {kTypeSrv, "SRV"},
    {64, "SVCB"},
    {65, "HTTPS"},
    {kTypeAxfr, "AXFR"},
    {kTypeAny, "ANY"},
}};

constexpr std::array<Named, kRcodeLabels> kRcodes = {{
    {0xFFFF, "other"},
    {kRcodeNoError, "NOERROR"},
    {kRcodeFormErr, "FORMERR"},
    {kRcodeServFail, "SERVFAIL"},
    {kRcodeNxDomain, "NXDOMAIN"},
    {kRcodeNotImp, "NOTIMP"},
    {kRcodeRefused, "REFUSED"},
    {kRcodeBadVers, "BADVERS"},
}};

}  // namespace

std::string_view ProtocolLabel(size_t protocol) {
  return protocol == 0 ? "udp" : "tcp";
}

size_t QtypeIndex(uint16_t qtype) {
  for (size_t i = 1; i < kQtypes.size(); ++i) {
    if (kQtypes[i].value == qtype) return i;
  }
  return 0;
}

std::string_view QtypeLabel(size_t index) { return kQtypes[index].label; }

std::string QtypeText(uint16_t qtype) {
  const size_t i = QtypeIndex(qtype);
  return i ? std::string(kQtypes[i].label) : "TYPE" + std::to_string(qtype);
}

size_t RcodeIndex(uint8_t rcode) {
  for (size_t i = 1; i < kRcodes.size(); ++i) {
    if (kRcodes[i].value == rcode) return i;
  }
  return 0;
}

std::string_view RcodeLabel(size_t index) { return kRcodes[index].label; }

}  // namespace ax::dns
