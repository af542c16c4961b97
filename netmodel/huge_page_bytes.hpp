// A fixed-size byte array for large lookup tables read at random (internal to netmodel). Arrays of 1 MiB
// or more are aligned to 2 MiB and offered to the kernel as transparent huge pages (madvise
// MADV_HUGEPAGE, Linux; elsewhere, or where the kernel declines, ordinary pages): a random read of a
// table of hundreds of MiB then misses the TLB rarely, instead of on nearly every read (a page walk that
// costs as much as the cache miss itself, more under a hypervisor). Contents and addressing do not
// change; only where the bytes live. Move-only; immutable use is thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace xsim::net::detail {

class HugePageBytes {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kHugeFrom = size_t{1} << 20;  // smaller arrays: ordinary allocation

  // n bytes, every one equal to `value` (the previous contents are dropped).
  void assign(size_t n, uint8_t value) {
    data_.reset();
    size_ = 0;
    if (n == 0) return;
    uint8_t* p;
    if (n >= kHugeFrom) {
      const size_t rounded = (n + kHugePage - 1) / kHugePage * kHugePage;  // aligned_alloc wants a multiple
      p = static_cast<uint8_t*>(std::aligned_alloc(kHugePage, rounded));
      if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      (void)madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ordinary pages if declined
#endif
    } else {
      p = static_cast<uint8_t*>(std::malloc(n));
      if (p == nullptr) throw std::bad_alloc();
    }
    std::memset(p, value, n);  // touched after the advice, so the pages are faulted in huge
    data_.reset(p);
    size_ = n;
  }
  void clear() { assign(0, 0); }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  uint8_t& operator[](size_t i) { return data_[i]; }
  const uint8_t& operator[](size_t i) const { return data_[i]; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> data_;
  size_t size_ = 0;
};

}  // namespace xsim::net::detail
