// Builds a DNS message in a caller-provided buffer (RFC 1035 §4.1): the header,
// the question copied with its case, records with name compression (§4.1.4),
// and marks to roll back to (truncation, RFC 2181 §9). Never allocates and
// never writes past its limit: a write that does not fit is dropped and sets
// overflow().
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wire/name.h"
#include "wire/protocol.h"

namespace ax::dns {

enum class Section : uint8_t { kAnswer = 0, kAuthority = 1, kAdditional = 2 };

class MessageWriter {
 public:
  // Writes into `buffer`, never past min(limit, buffer.size()) octets. The
  // header's 12 octets are reserved up front and filled in by Finish.
  // Inline: out of line, the fields it sets were read back at once, wider
  // than written (a stalled store-to-load forward per response).
  MessageWriter(std::span<uint8_t> buffer, size_t limit)
      : buffer_(buffer),
        limit_(std::min(limit, buffer.size())),
        overflow_(limit_ < kHeaderSize) {
    after_question_.overflow = overflow_;
  }

  // ID and flags; the section counts are the writer's.
  Header& header() { return header_; }
  void set_limit(size_t limit);
  size_t size() const { return size_; }
  bool overflow() const { return overflow_; }
  uint16_t count(Section section) const {
    return counts_[static_cast<size_t>(section)];
  }

  // The question section: `name` verbatim (uncompressed, case kept), so that
  // owner names compressed against it read back in the asker's case.
  void AddQuestion(const WireName& name, uint16_t qtype, uint16_t qclass);

  // One RR: StartRecord, then RDATA with the Add* calls, then EndRecord, which
  // fills in RDLENGTH and counts the record in `section`.
  void StartRecord(Section section, std::span<const uint8_t> owner,
                   uint16_t type, uint16_t klass, uint32_t ttl);
  void EndRecord();
  // A whole RR whose RDATA is known up front (an address): the same octets
  // as StartRecord, AddBytes(rdata), EndRecord, without patching RDLENGTH.
  void AddRecord(Section section, std::span<const uint8_t> owner, uint16_t type,
                 uint16_t klass, uint32_t ttl, std::span<const uint8_t> rdata);

  // A wire-format name, compressed against every name written so far
  // (case-insensitively, RFC 1035 §4.1.4 / RFC 4343).
  void AddName(std::span<const uint8_t> name);
  void AddU8(uint8_t v) { AddBytes({&v, 1}); }
  void AddU16(uint16_t v);
  void AddU32(uint32_t v);
  void AddBytes(std::span<const uint8_t> bytes);

  struct Mark {
    size_t size = 0;
    size_t compression_count = 0;
    std::array<uint16_t, 3> counts{};
    bool overflow = false;
  };
  // Inline: out of line, the fields came back through memory read wider
  // than written (a stalled store-to-load forward on every response).
  Mark mark() const { return {size_, target_count_, counts_, overflow_}; }
  // Forgets everything written after `m` (records, counts, compression
  // targets).
  void Rollback(const Mark& m);
  // Rollback to where AddQuestion left the message (the header alone when
  // it was not called): what a response falls back to when its answer does
  // not fit or is replaced by TC. Kept by AddQuestion, so the responder holds
  // no Mark of its own. (GCC still copies that Mark through the stack in
  // pieces, a stalled store-to-load forward per query, now in AddQuestion.)
  void RollbackToQuestion() { Rollback(after_question_); }

  // Writes the header; returns the message size, or 0 when something did not
  // fit.
  size_t Finish();

 private:
  static constexpr size_t kMaxCompressionTargets = 64;
  static constexpr size_t kMaxPointerOffset = 0x3FFF;

  // TYPE, CLASS, TTL, RDLENGTH (RFC 1035 §4.1.3).
  static constexpr size_t kFixedFieldsSize = 10;

  bool Reserve(size_t n);
  void AddFixedFields(uint16_t type, uint16_t klass, uint32_t ttl,
                      uint16_t rdlength);
  // Whether the name at `offset` in the output equals `suffix` (uncompressed).
  bool SameName(size_t offset, std::span<const uint8_t> suffix) const;
  void RememberLabel(size_t offset);

  std::span<uint8_t> buffer_;
  size_t limit_;
  size_t size_ = kHeaderSize;
  bool overflow_ = false;
  Header header_;
  std::array<uint16_t, 3> counts_{};
  Section section_ = Section::kAnswer;
  size_t rdlength_at_ = 0;
  std::array<uint16_t, kMaxCompressionTargets> targets_{};
  size_t target_count_ = 0;
  // Octets of the name AddQuestion wrote at kHeaderSize (0: none yet).
  size_t question_size_ = 0;
  Mark after_question_{.size = kHeaderSize};
};

}  // namespace ax::dns
