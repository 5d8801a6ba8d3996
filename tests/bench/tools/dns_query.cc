#include "dns_query.h"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <cstring>
#include <utility>

namespace ax::bench {
namespace {

constexpr std::array<std::pair<std::string_view, uint16_t>, 12> kTypes = {{
    {"A", 1},
    {"NS", 2},
    {"CNAME", 5},
    {"SOA", 6},
    {"PTR", 12},
    {"MX", 15},
    {"TXT", 16},
    {"AAAA", 28},
    {"SRV", 33},
    {"HTTPS", 65},
    {"CAA", 257},
    {"ANY", 255},
}};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

void Append16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}

}  // namespace

std::optional<ClientSubnet> ParseClientSubnet(std::string_view text) {
  ClientSubnet subnet;
  std::string address(text);
  const size_t slash = text.find('/');
  int prefix = -1;
  if (slash != std::string_view::npos) {
    address = std::string(text.substr(0, slash));
    const std::string_view bits = text.substr(slash + 1);
    const auto [end, ec] =
        std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
    if (ec != std::errc() || end != bits.data() + bits.size()) {
      return std::nullopt;
    }
  }
  if (::inet_pton(AF_INET, address.c_str(), subnet.address) == 1) {
    subnet.ipv6 = false;
    if (prefix < 0) prefix = 32;
    if (prefix > 32) return std::nullopt;
  } else if (::inet_pton(AF_INET6, address.c_str(), subnet.address) == 1) {
    subnet.ipv6 = true;
    if (prefix < 0) prefix = 128;
    if (prefix > 128) return std::nullopt;
  } else {
    return std::nullopt;
  }
  subnet.prefix = prefix;
  return subnet;
}

std::string FormatClientSubnet(const ClientSubnet& subnet) {
  char text[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(subnet.ipv6 ? AF_INET6 : AF_INET, subnet.address, text,
              sizeof(text));
  return std::string(text) + "/" + std::to_string(subnet.prefix);
}

std::optional<uint16_t> ParseQtype(std::string_view text) {
  for (const auto& [name, code] : kTypes) {
    if (EqualsIgnoreCase(name, text)) return code;
  }
  if (text.size() > 4 && EqualsIgnoreCase(text.substr(0, 4), "TYPE")) {
    unsigned value = 0;
    const std::string_view digits = text.substr(4);
    const auto [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc() && end == digits.data() + digits.size() &&
        value <= 0xFFFF) {
      return static_cast<uint16_t>(value);
    }
  }
  return std::nullopt;
}

std::optional<std::vector<uint8_t>> BuildQuery(
    std::string_view name, uint16_t qtype, bool edns,
    const std::optional<ClientSubnet>& ecs) {
  std::vector<uint8_t> out(kDnsHeaderSize, 0);
  WriteU16(&out[4], 1);                    // QDCOUNT
  if (edns || ecs) WriteU16(&out[10], 1);  // ARCOUNT: the OPT RR

  if (!name.empty() && name.back() == '.') name.remove_suffix(1);
  size_t wire_length = 1;
  while (!name.empty()) {
    const size_t dot = name.find('.');
    const std::string_view label = name.substr(0, dot);
    if (label.empty() || label.size() > 63) return std::nullopt;
    wire_length += label.size() + 1;
    out.push_back(static_cast<uint8_t>(label.size()));
    out.insert(out.end(), label.begin(), label.end());
    name = dot == std::string_view::npos ? std::string_view{}
                                         : name.substr(dot + 1);
    if (dot != std::string_view::npos && name.empty()) return std::nullopt;
  }
  if (wire_length > 255) return std::nullopt;
  out.push_back(0);
  Append16(out, qtype);
  Append16(out, 1);  // IN

  if (edns || ecs) {
    out.push_back(0);  // root owner
    Append16(out, kTypeOpt);
    Append16(out, 1232);                  // UDP payload size
    out.insert(out.end(), {0, 0, 0, 0});  // ext-rcode, version, flags
    std::vector<uint8_t> rdata;
    if (ecs) {
      const size_t bytes = static_cast<size_t>((ecs->prefix + 7) / 8);
      Append16(rdata, kOptionEcs);
      Append16(rdata, static_cast<uint16_t>(4 + bytes));
      Append16(rdata, ecs->ipv6 ? 2 : 1);  // family
      rdata.push_back(static_cast<uint8_t>(ecs->prefix));
      rdata.push_back(0);  // scope
      // RFC 7871: only the prefix's bytes, the bits past it zero.
      for (size_t i = 0; i < bytes; ++i) {
        uint8_t b = ecs->address[i];
        const int remaining = ecs->prefix - static_cast<int>(i * 8);
        if (remaining < 8) b &= static_cast<uint8_t>(0xFF << (8 - remaining));
        rdata.push_back(b);
      }
    }
    Append16(out, static_cast<uint16_t>(rdata.size()));
    out.insert(out.end(), rdata.begin(), rdata.end());
  }
  return out;
}

size_t QuestionEnd(const uint8_t* message, size_t size) {
  if (size < kDnsHeaderSize || ReadU16(message + 4) != 1) return 0;
  size_t at = kDnsHeaderSize;
  while (at < size) {
    const uint8_t length = message[at];
    if (length == 0) {
      at += 1 + 4;  // root label, QTYPE, QCLASS
      return at <= size ? at : 0;
    }
    if (length > 63) return 0;  // no compression in a question we sent
    at += 1 + length;
  }
  return 0;
}

}  // namespace ax::bench
