// MessageWriter: bounded appends, RDLENGTH patching and suffix compression.
#include "wire/message_writer.h"

#include <algorithm>
#include <cstring>

namespace ax::dns {

void MessageWriter::set_limit(size_t limit) {
  limit_ = std::min(limit, buffer_.size());
}

bool MessageWriter::Reserve(size_t n) {
  if (overflow_ || size_ + n > limit_) {
    overflow_ = true;
    return false;
  }
  return true;
}

void MessageWriter::AddBytes(std::span<const uint8_t> bytes) {
  if (!Reserve(bytes.size())) return;
  if (!bytes.empty()) std::memcpy(&buffer_[size_], bytes.data(), bytes.size());
  size_ += bytes.size();
}

void MessageWriter::AddU16(uint16_t v) {
  const uint8_t b[2] = {static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
  AddBytes(b);
}

void MessageWriter::AddU32(uint32_t v) {
  const uint8_t b[4] = {static_cast<uint8_t>(v >> 24),
                        static_cast<uint8_t>(v >> 16),
                        static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
  AddBytes(b);
}

void MessageWriter::RememberLabel(size_t offset) {
  if (offset <= kMaxPointerOffset && target_count_ < kMaxCompressionTargets) {
    targets_[target_count_++] = static_cast<uint16_t>(offset);
  }
}

bool MessageWriter::SameName(size_t offset,
                             std::span<const uint8_t> suffix) const {
  // The output holds only names this writer produced: well-formed, with
  // pointers that go strictly backwards, so the walk ends.
  size_t i = 0;
  while (true) {
    uint8_t len = buffer_[offset];
    if ((len & 0xC0) == 0xC0) {
      offset = static_cast<size_t>(len & 0x3F) << 8 | buffer_[offset + 1];
      continue;
    }
    if (len != suffix[i]) return false;
    if (len == 0) return true;
    for (size_t j = 1; j <= len; ++j) {
      if (LowerOctet(buffer_[offset + j]) != LowerOctet(suffix[i + j]))
        return false;
    }
    offset += 1 + len;
    i += 1 + len;
  }
}

void MessageWriter::AddName(std::span<const uint8_t> name) {
  // Most names written are the question's (every answer's owner): one
  // memcmp against the question's bytes instead of the label-wise walk.
  if (question_size_ != 0 && name.size() == question_size_ &&
      std::memcmp(&buffer_[kHeaderSize], name.data(), name.size()) == 0) {
    AddU16(static_cast<uint16_t>(0xC000 | kHeaderSize));
    return;
  }
  // Longest suffix first, so the pointer replaces as much as possible.
  size_t start = 0;
  while (start < name.size() && name[start] != 0) {
    const std::span<const uint8_t> suffix = name.subspan(start);
    for (size_t t = 0; t < target_count_; ++t) {
      if (!SameName(targets_[t], suffix)) continue;
      const size_t label_start = size_;
      AddBytes(name.first(start));
      if (overflow_) return;
      for (size_t l = 0; l < start; l += 1 + name[l])
        RememberLabel(label_start + l);
      AddU16(static_cast<uint16_t>(0xC000 | targets_[t]));
      return;
    }
    start += 1 + name[start];
  }
  const size_t label_start = size_;
  AddBytes(name);
  if (overflow_) return;
  for (size_t l = 0; l + 1 < name.size(); l += 1 + name[l]) {
    RememberLabel(label_start + l);
  }
}

void MessageWriter::AddQuestion(const WireName& name, uint16_t qtype,
                                uint16_t qclass) {
  // The question comes first, right after the header (RFC 1035 §4.1).
  const bool first = size_ == kHeaderSize;
  AddName(name.wire());
  AddU16(qtype);
  AddU16(qclass);
  if (!overflow_) {
    header_.qdcount = 1;
    if (first) question_size_ = name.size;
  }
  after_question_ = mark();
}

void MessageWriter::AddFixedFields(uint16_t type, uint16_t klass, uint32_t ttl,
                                   uint16_t rdlength) {
  const uint8_t fixed[kFixedFieldsSize] = {
      static_cast<uint8_t>(type >> 8),     static_cast<uint8_t>(type),
      static_cast<uint8_t>(klass >> 8),    static_cast<uint8_t>(klass),
      static_cast<uint8_t>(ttl >> 24),     static_cast<uint8_t>(ttl >> 16),
      static_cast<uint8_t>(ttl >> 8),      static_cast<uint8_t>(ttl),
      static_cast<uint8_t>(rdlength >> 8), static_cast<uint8_t>(rdlength)};
  AddBytes(fixed);
}

void MessageWriter::StartRecord(Section section, std::span<const uint8_t> owner,
                                uint16_t type, uint16_t klass, uint32_t ttl) {
  section_ = section;
  AddName(owner);
  rdlength_at_ = size_ + kFixedFieldsSize - 2;  // filled in by EndRecord
  AddFixedFields(type, klass, ttl, 0);
}

void MessageWriter::EndRecord() {
  if (overflow_) return;
  const size_t rdlength = size_ - rdlength_at_ - 2;
  buffer_[rdlength_at_] = static_cast<uint8_t>(rdlength >> 8);
  buffer_[rdlength_at_ + 1] = static_cast<uint8_t>(rdlength);
  ++counts_[static_cast<size_t>(section_)];
}

void MessageWriter::AddRecord(Section section, std::span<const uint8_t> owner,
                              uint16_t type, uint16_t klass, uint32_t ttl,
                              std::span<const uint8_t> rdata) {
  AddName(owner);
  if (!Reserve(kFixedFieldsSize + rdata.size())) return;
  AddFixedFields(type, klass, ttl, static_cast<uint16_t>(rdata.size()));
  AddBytes(rdata);
  ++counts_[static_cast<size_t>(section)];
}

void MessageWriter::Rollback(const Mark& m) {
  size_ = m.size;
  if (size_ <= kHeaderSize) question_size_ = 0;
  target_count_ = m.compression_count;
  counts_ = m.counts;
  overflow_ = m.overflow;
}

size_t MessageWriter::Finish() {
  if (overflow_) return 0;
  const uint16_t words[6] = {header_.id, header_.flags, header_.qdcount,
                             counts_[0], counts_[1],    counts_[2]};
  for (size_t i = 0; i < 6; ++i) {
    buffer_[2 * i] = static_cast<uint8_t>(words[i] >> 8);
    buffer_[2 * i + 1] = static_cast<uint8_t>(words[i]);
  }
  return size_;
}

}  // namespace ax::dns
