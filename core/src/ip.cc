// Parsing and formatting of IP addresses and prefixes (inet_pton/ntop are pure
// libc conversions, no IO).
#include "ax/ip.h"

#include <arpa/inet.h>

#include <charconv>

namespace ax {

std::optional<IpAddress> ParseIp(std::string_view text) {
  // inet_pton needs a NUL-terminated string; addresses are short, so a stack
  // copy does.
  char buf[INET6_ADDRSTRLEN + 1];
  if (text.empty() || text.size() >= sizeof(buf)) return std::nullopt;
  text.copy(buf, text.size());
  buf[text.size()] = '\0';
  IpAddress ip;
  if (inet_pton(AF_INET, buf, ip.bytes.data()) == 1) {
    ip.family = IpFamily::kV4;
    return ip;
  }
  if (inet_pton(AF_INET6, buf, ip.bytes.data()) == 1) {
    ip.family = IpFamily::kV6;
    return ip;
  }
  return std::nullopt;
}

IpAddress LastAddress(const IpPrefix& prefix) {
  IpAddress last = prefix.address;
  for (int bit = prefix.length; bit < last.BitLength(); ++bit) {
    last.bytes[bit / 8] |= static_cast<uint8_t>(0x80 >> (bit % 8));
  }
  return last;
}

bool IpPrefix::Contains(const IpAddress& ip) const {
  return ip.family == address.family && Mask(ip, length) == address;
}

std::optional<IpPrefix> ParsePrefix(std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<IpPrefix> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return fail("missing '/length'");
  auto ip = ParseIp(text.substr(0, slash));
  if (!ip)
    return fail("'" + std::string(text.substr(0, slash)) +
                "' is not an IP address");
  std::string_view len_text = text.substr(slash + 1);
  int length = -1;
  auto [ptr, ec] = std::from_chars(len_text.data(),
                                   len_text.data() + len_text.size(), length);
  if (ec != std::errc() || ptr != len_text.data() + len_text.size() ||
      len_text.empty()) {
    return fail("prefix length '" + std::string(len_text) +
                "' is not a number");
  }
  if (length < 0 || length > ip->BitLength()) {
    return fail("prefix length " + std::to_string(length) +
                " is out of range 0.." + std::to_string(ip->BitLength()));
  }
  if (Mask(*ip, length) != *ip) {
    return fail("host bits set past /" + std::to_string(length) +
                " (did you mean " + FormatIp(Mask(*ip, length)) + "/" +
                std::to_string(length) + "?)");
  }
  return IpPrefix{*ip, length};
}

std::string FormatIp(const IpAddress& ip) {
  char buf[INET6_ADDRSTRLEN];
  const int af = ip.family == IpFamily::kV4 ? AF_INET : AF_INET6;
  if (inet_ntop(af, ip.bytes.data(), buf, sizeof(buf)) == nullptr) return "?";
  return buf;
}

std::string FormatPrefix(const IpPrefix& prefix) {
  return FormatIp(prefix.address) + "/" + std::to_string(prefix.length);
}

}  // namespace ax
