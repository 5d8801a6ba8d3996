// HugePageBuffer: zeroed anonymous memory for large read-mostly lookup tables,
// asking for transparent huge pages (madvise mode, the Debian default). The
// compiled geo tables are tens of MiB read at random by every query; with
// 4 KiB pages nearly each read also misses the TLB, and in a VM a miss walks
// two page tables. With 2 MiB pages the whole table fits the TLB. Where the
// kernel refuses huge pages the memory works the same, only slower.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace ax::dns {

class HugePageBuffer {
 public:
  HugePageBuffer() = default;
  // Throws std::bad_alloc when the kernel has no memory, like a vector.
  explicit HugePageBuffer(size_t bytes) : size_(RoundUp(bytes)) {
    if (size_ == 0) return;
    // Huge pages must be aligned: map one extra and trim both ends.
    const size_t mapped = size_ + kHugePage;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto base = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (base + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > base) ::munmap(p, aligned - base);
    const size_t tail = base + mapped - (aligned + size_);
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + size_), tail);
    data_ = reinterpret_cast<void*>(aligned);
    ::madvise(data_, size_, MADV_HUGEPAGE);  // advice only: failure is fine
  }
  ~HugePageBuffer() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  HugePageBuffer(HugePageBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  HugePageBuffer& operator=(HugePageBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  // Whole huge pages: a partial one at the end would be split into small
  // pages anyway.
  static constexpr size_t kHugePage = size_t{2} << 20;
  static size_t RoundUp(size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }

  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ax::dns
