// StackPool: the stacks of one native process's virtual ranks, carved from one large lazily-committed
// mapping (one mapping per stack would exceed vm.max_map_count near 65,530). Layer: libxsim/runtime/core (xsim_core).
// Overflow detection: a PROT_NONE guard page below each stack while the guard mappings fit under
// vm.max_map_count, and always a canary at the bottom of each stack. Without guard pages the canary is checked
// on every switch out of a rank (switch_check_ok); with them, when the rank ends (a write below the canary
// faults on the guard page, and a write into the canary stays inside the rank's own stack, so checking it on
// every switch would only cost a page the TLB must hold: 10% of a token ring's time at 16,384 ranks).
// Without guard pages, the slots start 64 bytes below a page boundary, so that each stack's canary shares
// a page with the top of the stack below it (a rank then commits one page fewer, and checking the canary
// of a rank resumed right after its neighbour touches a page already in the TLB).
// Released stacks return their pages to the system (MADV_DONTNEED) in batches: a stack that ends is noted,
// and every kReleaseBatch notes the pages of each run of consecutive ended stacks go back in one system
// call (without guard pages this also frees the pages a stack shares with an ended neighbour, which a
// release of one stack must keep). Single-threaded use only. The stacks are
// executable when the executable asks for an executable stack (PT_GNU_STACK: gfortran's trampolines).
#pragma once
#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace xsim {

// A Boost.Context stack allocator for memory xsim manages itself (a pool slot, a thread's mapping): it hands
// out [top - size, top) and frees nothing.
struct FixedStack {
  void* top;
  size_t size;
  boost::context::stack_context allocate() {
    boost::context::stack_context sc;
    sc.size = size;
    sc.sp = top;
    return sc;
  }
  void deallocate(boost::context::stack_context&) noexcept {}
};

class StackPool {
 public:
  // The stack size of -xsim-stack auto (the default) for `count` stacks in one process. Stacks cost only
  // the pages a rank touches, but each 2 MiB of address space a rank touches also costs a 4 KiB page-table
  // page: 8 MiB (Linux's default for a main thread: NetPIPE and other deep callers run as natively) while
  // the stacks' address space stays within 16 GiB (2,048 ranks), then halving with the rank count down to
  // 64 KiB (262,144 ranks and more). The page tables are the reason for the floor's size: with 256 KiB
  // stacks, a million ranks touch 131,072 page-table pages (512 MiB the kernel allocates and zeroes, which
  // made `hello` at 1,048,576 ranks spend 8.3 of its 10.0 s in the kernel; with 64 KiB, 1.8 of 3.3 s).
  static size_t auto_size(size_t count) {
    constexpr size_t kMax = size_t{8} << 20, kMin = size_t{64} << 10, kBudget = size_t{16} << 30;
    size_t s = kMax;
    while (s > kMin && count * s > kBudget) s /= 2;
    return s;
  }
  // `stack_size` as configured: 0 (auto) becomes auto_size(count).
  static size_t effective_size(size_t stack_size, size_t count) {
    return stack_size ? stack_size : auto_size(count);
  }
  // Reserves `count` stacks of `stack_size` usable bytes each (rounded up to whole pages).
  // Throws std::runtime_error with advice when the reservation or the guard pages cannot be set up.
  StackPool(size_t count, size_t stack_size);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  // Top (highest address, exclusive) and usable size of stack `i`.
  void* top(size_t i) const { return origin_ + (i + 1) * slot_; }
  size_t usable_size() const { return slot_ - guard_; }
  bool has_guard_pages() const { return guard_ != 0; }

  void write_canary(size_t i);
  bool canary_intact(size_t i) const {
    const uint64_t* c = canary(i);
    return c[0] == kCanary && c[1] == kCanary;
  }
  // The check on a switch out of stack i: its canary, unless guard pages stand below the stacks (see the
  // top of this file). Reads the canary's page only when it is checked.
  bool switch_check_ok(size_t i) const { return guard_ || canary_intact(i); }
  const void* canary_address(size_t i) const { return canary(i); }
  // The stack's rank has ended: its pages go back to the system (its content is lost) with the next batch.
  void release(size_t i);
  // Releases the pending batch now.
  void flush_released();
  uint64_t release_calls() const { return release_calls_; }  // madvise calls so far
  // The stack pages ranks touched, measured (mincore) on every kSampleEvery-th stack when its rank ends:
  // stacks measured, their touched bytes in all, the most one touched. The canary's page counts only when
  // it is the stack's top page too (without guard pages it is shared with the stack below).
  uint64_t touched_samples() const { return touched_samples_; }
  uint64_t touched_bytes() const { return touched_bytes_; }
  uint64_t touched_max() const { return touched_max_; }
  static constexpr size_t kSampleEvery = 64;
  // If `addr` lies in stack i's guard page or canary zone, returns i; else -1.
  long overflow_slot(const void* addr) const;
  // If `addr` lies anywhere in stack i (guard included), returns i; else -1.
  long slot_of(const void* addr) const;

 private:
  static constexpr uint64_t kCanary = 0x5853494d43414e59ull;  // "XSIMCANY"
  static constexpr size_t kCanaryZone = 64;
  static constexpr size_t kReleaseBatch = 256;  // stacks; at most this many ended stacks keep their pages
  void release_range(size_t first, size_t last);  // stacks first..last, all ended
  void measure_touched(size_t i);                 // adds stack i to the touched-pages sample
  uint64_t* canary(size_t i) const { return reinterpret_cast<uint64_t*>(origin_ + i * slot_ + guard_); }
  char* base_ = nullptr;    // the mapping
  char* origin_ = nullptr;  // slot 0 (base_, or 64 bytes below base_'s second page without guard pages)
  size_t count_ = 0, slot_ = 0, guard_ = 0, bytes_ = 0, page_ = 0;
  std::vector<size_t> ended_;  // stacks released since the last batch
  uint64_t release_calls_ = 0;
  uint64_t touched_samples_ = 0, touched_bytes_ = 0, touched_max_ = 0;
};

}  // namespace xsim
