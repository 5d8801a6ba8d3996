// axctl query's messages: the query written with the server's own writer, the
// answer read defensively (it comes from the network: a stray, spoofed or
// broken datagram must only ever produce an error), and its renderings.
#include "axctl/dns_query.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>

#include "wire/edns.h"
#include "wire/message_reader.h"
#include "wire/message_writer.h"
#include "wire/name.h"

namespace ax {
namespace {

using Bytes = std::span<const uint8_t>;

// RFC 6891 §6.2.5: what we can reassemble; 1232 avoids IP fragmentation on
// any path (the DNS Flag Day 2020 value, also ax-dns's own).
constexpr uint16_t kUdpPayloadSize = 1232;
constexpr size_t kRrFixedSize = 10;      // TYPE, CLASS, TTL, RDLENGTH
constexpr size_t kOptionHeaderSize = 4;  // OPTION-CODE, OPTION-LENGTH
constexpr size_t kEcsScopeAt = 3;        // after FAMILY and SOURCE (RFC 7871)
constexpr uint16_t kFlagRa = 0x0080;     // RFC 1035 §4.1.1
constexpr uint16_t kFlagAd = 0x0020;     // RFC 4035 §3.2.3

uint16_t U16(Bytes b, size_t at) {
  return static_cast<uint16_t>(b[at] << 8 | b[at + 1]);
}
uint32_t U32(Bytes b, size_t at) {
  return static_cast<uint32_t>(U16(b, at)) << 16 | U16(b, at + 2);
}

struct Named {
  uint16_t value;
  const char* name;
};
// The types --type accepts.
constexpr Named kQueryTypes[] = {
    {dns::kTypeA, "A"},     {dns::kTypeNs, "NS"},   {dns::kTypeCname, "CNAME"},
    {dns::kTypeSoa, "SOA"}, {dns::kTypeTxt, "TXT"}, {dns::kTypeAaaa, "AAAA"},
};
// Header bits, in dig's order.
constexpr Named kFlags[] = {{dns::kFlagQr, "qr"}, {dns::kFlagAa, "aa"},
                            {dns::kFlagTc, "tc"}, {dns::kFlagRd, "rd"},
                            {kFlagRa, "ra"},      {kFlagAd, "ad"},
                            {dns::kFlagCd, "cd"}};

// Mnemonic, or TYPE<n> for the rest (RFC 3597 §5).
std::string TypeText(uint16_t type) {
  for (const Named& t : kQueryTypes) {
    if (t.value == type) return t.name;
  }
  return "TYPE" + std::to_string(type);
}

std::vector<std::string> FlagNames(uint16_t flags) {
  std::vector<std::string> out;
  for (const Named& f : kFlags) {
    if (flags & f.value) out.emplace_back(f.name);
  }
  return out;
}

std::string ClassText(uint16_t klass) {
  if (klass == dns::kClassIn) return "IN";
  if (klass == dns::kClassCh) return "CH";
  return "CLASS" + std::to_string(klass);  // RFC 3597 §5
}

// RFC 1035 §5.1 escapes, so names and strings from the network print as one
// unambiguous, terminal-safe token: "\." in a label, "\"" in a quoted string,
// "\DDD" for any octet that is not printable ASCII. A space is literal only
// inside quotes.
void AppendEscaped(std::string* out, Bytes octets, bool quoted) {
  const std::string_view special = quoted ? "\"\\" : ".\"\\";
  for (const uint8_t c : octets) {
    if (c < (quoted ? 0x20 : 0x21) || c > 0x7E) {
      char digits[5];
      std::snprintf(digits, sizeof(digits), "\\%03u", c);
      out->append(digits);
      continue;
    }
    if (special.find(static_cast<char>(c)) != std::string_view::npos) {
      out->push_back('\\');
    }
    out->push_back(static_cast<char>(c));
  }
}

std::string NameText(const dns::WireName& name) {
  if (name.labels == 0) return ".";
  std::string out;
  for (size_t i = 0; name.bytes[i] != 0; i += 1 + name.bytes[i]) {
    AppendEscaped(&out, Bytes(name.bytes).subspan(i + 1, name.bytes[i]), false);
    out.push_back('.');
  }
  return out;
}

// A (possibly compressed) name that must fill RDATA [*at, end) up to `end` or
// at least stay inside it; compression pointers only go backwards, so cutting
// the message at `end` keeps every legal target.
bool ReadRdataName(Bytes message, size_t* at, size_t end, std::string* text) {
  dns::WireName name;
  if (!dns::ReadName(message.first(end), at, &name)) return false;
  *text = NameText(name);
  return true;
}

// RDATA [at, end) of `record` in presentation format (RFC 1035 §3.3, RFC 3596
// §2.2, RFC 3597 §5 for types this client does not know).
bool ReadRdata(Bytes message, size_t at, size_t end, AnswerRecord* record) {
  const Bytes rdata = message.subspan(at, end - at);
  std::string& data = record->data;
  switch (record->type) {
    case dns::kTypeA:
    case dns::kTypeAaaa: {
      const size_t size = record->type == dns::kTypeA ? 4 : 16;
      if (rdata.size() != size) return false;
      IpAddress ip;
      ip.family = size == 4 ? IpFamily::kV4 : IpFamily::kV6;
      std::copy(rdata.begin(), rdata.end(), ip.bytes.begin());
      record->address = ip;
      data = FormatIp(ip);
      return true;
    }
    case dns::kTypeNs:
    case dns::kTypeCname:
      return ReadRdataName(message, &at, end, &data) && at == end;
    case dns::kTypeSoa: {
      std::string mname, rname;
      if (!ReadRdataName(message, &at, end, &mname) ||
          !ReadRdataName(message, &at, end, &rname) || end - at != 20) {
        return false;
      }
      data = mname + " " + rname;
      // SERIAL, REFRESH, RETRY, EXPIRE, MINIMUM.
      for (size_t i = 0; i < 5; ++i) {
        data += " " + std::to_string(U32(message, at + 4 * i));
      }
      return true;
    }
    case dns::kTypeTxt:
      // One or more <character-string>s: a length octet, then that many.
      for (size_t i = 0; i < rdata.size(); i += 1 + rdata[i]) {
        if (rdata.size() - i - 1 < rdata[i]) return false;
        if (!data.empty()) data.push_back(' ');
        data.push_back('"');
        AppendEscaped(&data, rdata.subspan(i + 1, rdata[i]), true);
        data.push_back('"');
      }
      return true;
    default:
      data = "\\# " + std::to_string(rdata.size());
      if (!rdata.empty()) data.push_back(' ');
      for (const uint8_t c : rdata) {
        char hex[3];
        std::snprintf(hex, sizeof(hex), "%02x", c);
        data.append(hex);
      }
      return true;
  }
}

// One RR's owner and fixed fields (RFC 1035 §4.1.3) at `*at`, checked to lie
// inside `message` with its RDATA; `*at` moves past the RR.
struct RrFields {
  dns::WireName owner;
  uint16_t type = 0;
  uint16_t klass = 0;
  uint32_t ttl = 0;
  size_t rdata_at = 0;
  uint16_t rdlength = 0;
};
bool ReadRr(Bytes message, size_t* at, RrFields* rr) {
  if (!dns::ReadName(message, at, &rr->owner)) return false;
  if (message.size() - *at < kRrFixedSize) return false;
  rr->type = U16(message, *at);
  rr->klass = U16(message, *at + 2);
  rr->ttl = U32(message, *at + 4);
  rr->rdlength = U16(message, *at + 8);
  rr->rdata_at = *at + kRrFixedSize;
  if (message.size() - rr->rdata_at < rr->rdlength) return false;
  *at = rr->rdata_at + rr->rdlength;
  return true;
}

// The OPT record (RFC 6891 §6.1.2-3): the RCODE's upper 8 bits from its TTL
// and, from the options, the Client Subnet's SCOPE (RFC 7871 §6). Unknown
// options are skipped.
bool ReadOpt(Bytes message, const RrFields& rr, DnsReply* out) {
  out->rcode |= static_cast<uint16_t>((rr.ttl >> 24) << 4);
  const Bytes options = message.subspan(rr.rdata_at, rr.rdlength);
  for (size_t i = 0; i < options.size();) {
    if (options.size() - i < kOptionHeaderSize) return false;
    const uint16_t code = U16(options, i);
    const uint16_t length = U16(options, i + 2);
    i += kOptionHeaderSize;
    if (options.size() - i < length) return false;
    if (code == dns::kOptionClientSubnet) {
      if (length <= kEcsScopeAt) return false;
      out->ecs_scope = options[i + kEcsScopeAt];
    }
    i += length;
  }
  return true;
}

// The question at `*at` (QNAME, then QTYPE and QCLASS as one word), `*at`
// moved past it; false when it runs off the end.
bool ReadQuestion(Bytes message, size_t* at, dns::WireName* name,
                  uint32_t* type_class) {
  if (!dns::ReadName(message, at, name) || message.size() - *at < 4) {
    return false;
  }
  *type_class = U32(message, *at);
  *at += 4;
  return true;
}

// Everything after a matching question: the answer section into `out`, the
// authority section walked over, the additional section searched for OPT.
bool ReadSections(Bytes message, size_t at, const dns::Header& header,
                  DnsReply* out, std::string* error) {
  const uint32_t total =
      uint32_t{header.ancount} + header.nscount + header.arcount;
  for (uint32_t i = 0; i < total; ++i) {
    RrFields rr;
    std::string problem;
    if (!ReadRr(message, &at, &rr)) {
      problem = "has a bad owner name or runs past the end";
    } else if (i < header.ancount) {
      AnswerRecord record{NameText(rr.owner), rr.type, rr.klass, rr.ttl};
      if (ReadRdata(message, rr.rdata_at, at, &record)) {
        out->records.push_back(std::move(record));
      } else {
        problem = "has bad " + TypeText(rr.type) + " RDATA";
      }
    } else if (i >= total - header.arcount && rr.type == dns::kTypeOpt &&
               !ReadOpt(message, rr, out)) {
      problem = "has bad OPT options";
    }
    if (!problem.empty()) {
      *error = "malformed answer: RR " + std::to_string(i + 1) + " of " +
               std::to_string(total) + " " + problem;
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::vector<uint8_t>> BuildQuery(const QuerySpec& spec) {
  const std::optional<std::string> encoded = dns::EncodeName(spec.name);
  if (!encoded) return std::nullopt;
  dns::WireName name;
  size_t at = 0;
  if (!dns::ReadName(
          {reinterpret_cast<const uint8_t*>(encoded->data()), encoded->size()},
          &at, &name)) {
    return std::nullopt;
  }
  std::vector<uint8_t> out(dns::kMaxUdpWithoutEdns);  // fits the largest
  dns::MessageWriter writer(out, out.size());
  writer.header().id = spec.id;
  writer.header().flags = 0;  // QUERY; RD clear: no recursion is wanted
  writer.AddQuestion(name, spec.qtype, dns::kClassIn);
  dns::ClientSubnet ecs;
  dns::EdnsReply opt;
  opt.udp_size = kUdpPayloadSize;
  if (spec.subnet) {
    // RFC 7871 §6: SOURCE is the prefix length, SCOPE 0 in queries, ADDRESS
    // cut to ceil(SOURCE / 8) octets with the bits past SOURCE zero (Mask).
    const IpAddress masked = Mask(spec.subnet->address, spec.subnet->length);
    ecs.family =
        masked.family == IpFamily::kV4 ? dns::kEcsFamilyV4 : dns::kEcsFamilyV6;
    ecs.source_prefix = static_cast<uint8_t>(spec.subnet->length);
    ecs.address = masked.bytes;
    opt.client_subnet = &ecs;
  }
  dns::AddOpt(writer, opt);
  out.resize(writer.Finish());
  return out;
}

std::optional<uint16_t> ParseQueryType(std::string_view text) {
  for (const Named& t : kQueryTypes) {
    if (text == t.name) return t.value;
  }
  return std::nullopt;
}

std::optional<IpPrefix> ParseSubnet(std::string_view text) {
  const size_t slash = text.find('/');
  const std::optional<IpAddress> ip = ParseIp(text.substr(0, slash));
  if (!ip) return std::nullopt;
  int length = ip->BitLength();
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), length);
    if (ec != std::errc() || end != digits.data() + digits.size() ||
        length < 0 || length > ip->BitLength()) {
      return std::nullopt;
    }
  }
  return IpPrefix{Mask(*ip, length), length};
}

AnswerStatus ParseAnswer(Bytes message, Bytes query, DnsReply* out,
                         std::string* error) {
  dns::Header header, asked;
  size_t at = dns::kHeaderSize;
  size_t query_at = dns::kHeaderSize;
  dns::WireName name, asked_name;
  uint32_t type_class = 0, asked_type_class = 0;
  if (!dns::ParseHeader(message, &header) || !dns::ParseHeader(query, &asked) ||
      !ReadQuestion(query, &query_at, &asked_name, &asked_type_class) ||
      !header.qr() || header.id != asked.id) {
    return AnswerStatus::kNotOurs;
  }
  // The question must come back as asked (RFC 5452 §9.1), names compared
  // case-insensitively (RFC 4343). An error answer may carry none.
  if (header.qdcount == 1) {
    if (!ReadQuestion(message, &at, &name, &type_class) ||
        dns::ToLower(name).key() != dns::ToLower(asked_name).key() ||
        type_class != asked_type_class) {
      return AnswerStatus::kNotOurs;
    }
  } else if (header.qdcount != 0 || header.rcode() == dns::kRcodeNoError) {
    return AnswerStatus::kNotOurs;
  }
  *out = DnsReply{};
  out->flags = header.flags;
  out->rcode = header.rcode();
  return ReadSections(message, at, header, out, error)
             ? AnswerStatus::kOk
             : AnswerStatus::kMalformed;
}

std::string RcodeName(uint16_t rcode) {
  static constexpr const char* kNames[] = {
      "NOERROR",  "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
      "YXDOMAIN", "YXRRSET", "NXRRSET",  "NOTAUTH",  "NOTZONE"};  // RFC 6895
  if (rcode < std::size(kNames)) return kNames[rcode];
  if (rcode == dns::kRcodeBadVers) return "BADVERS";
  return "RCODE" + std::to_string(rcode);
}

std::string AnswerToText(const DnsReply& answer) {
  std::string flags;
  for (const std::string& f : FlagNames(answer.flags)) {
    flags += (flags.empty() ? "" : " ") + f;
  }
  std::string out = "status: " + RcodeName(answer.rcode) + ", flags: " + flags +
                    ", answers: " + std::to_string(answer.records.size());
  if (answer.ecs_scope) {
    out += ", ecs scope: /" + std::to_string(*answer.ecs_scope);
  }
  out += "\n";
  for (const AnswerRecord& r : answer.records) {
    out += r.name + " " + std::to_string(r.ttl) + " " + ClassText(r.klass) +
           " " + TypeText(r.type) + " " + r.data + "\n";
  }
  return out;
}

std::string AnswerToJson(const DnsReply& answer) {
  nlohmann::ordered_json out;
  out["rcode"] = RcodeName(answer.rcode);
  out["flags"] = FlagNames(answer.flags);
  out["answers"] = nlohmann::ordered_json::array();
  for (const AnswerRecord& r : answer.records) {
    out["answers"].push_back({{"name", r.name},
                              {"type", TypeText(r.type)},
                              {"ttl", r.ttl},
                              {"data", r.data}});
  }
  if (answer.ecs_scope) out["ecs_scope"] = *answer.ecs_scope;
  // Every string is ASCII (names and TXT are escaped), so dump cannot throw.
  return out.dump();
}

std::optional<std::string> ExpectMismatch(
    const DnsReply& answer, const std::vector<IpAddress>& expect) {
  if (expect.empty()) return std::nullopt;
  std::string got;
  for (const AnswerRecord& r : answer.records) {
    if (!r.address) continue;
    if (std::find(expect.begin(), expect.end(), *r.address) != expect.end()) {
      return std::nullopt;
    }
    got += (got.empty() ? "" : ", ") + r.data;
  }
  std::string wanted;
  for (const IpAddress& ip : expect) {
    wanted += (wanted.empty() ? "" : ", ") + FormatIp(ip);
  }
  return got.empty() ? "answer has no address, expected one of " + wanted
                     : "answer " + got + " has none of " + wanted;
}

}  // namespace ax
