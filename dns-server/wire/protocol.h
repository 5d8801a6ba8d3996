// DNS protocol numbers and the fixed 12-octet header (RFC 1035 §4.1.1), shared
// by the reader and the writer. Constants and trivial accessors only: parsing
// lives in message_reader.h, writing in message_writer.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ax::dns {

inline constexpr size_t kHeaderSize = 12;
inline constexpr size_t kMaxNameLength = 255;  // RFC 1035 §2.3.4, in octets
inline constexpr size_t kMaxLabelLength = 63;
inline constexpr size_t kMaxUdpWithoutEdns = 512;  // RFC 1035 §4.2.1
inline constexpr size_t kMaxMessageSize = 65535;   // TCP length prefix, §4.2.2

// RR TYPEs and QTYPEs (RFC 1035 §3.2.2-3, RFC 3596, RFC 2782, RFC 6891,
// RFC 5936).
enum RrType : uint16_t {
  kTypeA = 1,
  kTypeNs = 2,
  kTypeCname = 5,
  kTypeSoa = 6,
  kTypeTxt = 16,
  kTypeAaaa = 28,
  kTypeSrv = 33,  // RFC 2782
  kTypeOpt = 41,
  kTypeIxfr = 251,
  kTypeAxfr = 252,
  kTypeAny = 255,
};

// CLASS values (RFC 1035 §3.2.4).
enum RrClass : uint16_t {
  kClassIn = 1,
  kClassCh = 3,
};

// RCODEs; values above 15 need the OPT record's extended bits (RFC 6891
// §6.1.3).
enum Rcode : uint16_t {
  kRcodeNoError = 0,
  kRcodeFormErr = 1,
  kRcodeServFail = 2,
  kRcodeNxDomain = 3,
  kRcodeNotImp = 4,
  kRcodeRefused = 5,
  kRcodeBadVers = 16,
};

inline constexpr uint8_t kOpcodeQuery = 0;
inline constexpr uint16_t kOpcodeMask =
    0x7800;  // the opcode's bits in the flags

// Header flag bits within the second 16-bit word (RFC 1035 §4.1.1, RFC 4035
// §3.2).
inline constexpr uint16_t kFlagQr = 0x8000;
inline constexpr uint16_t kFlagAa = 0x0400;
inline constexpr uint16_t kFlagTc = 0x0200;
inline constexpr uint16_t kFlagRd = 0x0100;
inline constexpr uint16_t kFlagCd = 0x0010;

struct Header {
  uint16_t id = 0;
  uint16_t flags = 0;  // QR, opcode, AA, TC, RD, RA, Z, AD, CD and the RCODE
  uint16_t qdcount = 0;
  uint16_t ancount = 0;
  uint16_t nscount = 0;
  uint16_t arcount = 0;

  bool qr() const { return flags & kFlagQr; }
  uint8_t opcode() const { return (flags & kOpcodeMask) >> 11; }
  uint8_t rcode() const { return flags & 0xF; }
};

}  // namespace ax::dns
