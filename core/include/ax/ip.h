// IP addresses and prefixes as plain values: parsing, formatting, masking,
// containment. Pure and allocation-free on the query path; no sockets or name
// resolution here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ax {

enum class IpFamily : uint8_t { kV4 = 4, kV6 = 6 };

// An IPv4 or IPv6 address. IPv4 uses the first 4 bytes of `bytes`; the rest
// stay zero so that equality and hashing work on the whole array.
struct IpAddress {
  IpFamily family = IpFamily::kV4;
  std::array<uint8_t, 16> bytes{};

  int BitLength() const { return family == IpFamily::kV4 ? 32 : 128; }
  // Bit `i` counted from the most significant bit of the first byte.
  bool Bit(int i) const { return (bytes[i / 8] >> (7 - i % 8)) & 1; }
  bool operator==(const IpAddress&) const = default;
  auto operator<=>(const IpAddress&) const = default;
};

// A network prefix. `address` has every bit past `length` cleared.
struct IpPrefix {
  IpAddress address;
  int length = 0;

  bool Contains(const IpAddress& ip) const;
  bool operator==(const IpPrefix&) const = default;
  auto operator<=>(const IpPrefix&) const = default;
};

// Parses "192.0.2.1" or "2001:db8::1". Returns nullopt on anything else.
std::optional<IpAddress> ParseIp(std::string_view text);

// Parses "10.0.0.0/8" or "2001:db8::/32" strictly: the prefix length must fit
// the family and no bit past it may be set (a typo like 10.0.0.1/8 is an error,
// not a silent mask). On failure returns nullopt and, if `error` is given, says
// why.
std::optional<IpPrefix> ParsePrefix(std::string_view text,
                                    std::string* error = nullptr);

// Clears every bit past `length` (clamped to the family's bit length).
IpAddress Mask(const IpAddress& ip, int length);
// The last address of `prefix` (every bit past its length set).
IpAddress LastAddress(const IpPrefix& prefix);

std::string FormatIp(const IpAddress& ip);
std::string FormatPrefix(const IpPrefix& prefix);

}  // namespace ax
