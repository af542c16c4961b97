#include "stack_pool.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include "fiber_switch.hpp"

namespace xsim {

namespace {
long read_max_map_count() {
  std::ifstream f("/proc/sys/vm/max_map_count");
  long v = 65530;
  if (f) f >> v;
  return v;
}

// Whether the executable asks for an executable stack (PT_GNU_STACK with PF_X), as gfortran programs do when
// they pass an internal procedure as an argument (its trampoline lives on the stack). The kernel and glibc
// honour it for the process's own stacks; rank stacks must too, or such a call faults.
bool executable_wants_exec_stack() {
  bool exec = false;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_GNU_STACK)
            *static_cast<bool*>(out) = (info->dlpi_phdr[i].p_flags & PF_X) != 0;
        return 1;  // the first object is the executable
      },
      &exec);
  return exec;
}
}  // namespace

StackPool::StackPool(size_t count, size_t stack_size) : count_(count) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t usable = (stack_size + page - 1) / page * page;
  // Two mappings per guarded stack (guard + stack); keep well clear of the limit for everything else.
  long max_maps = read_max_map_count();
  guard_ = (static_cast<long>(count) * 2 + 20000 < max_maps) ? page : 0;
  slot_ = usable + guard_;
  page_ = page;
  const size_t offset = guard_ ? 0 : page - kCanaryZone;  // see the header: canary next to the stack below
  bytes_ = slot_ * count + (offset ? page : 0);
  if (count == 0) return;
  const int prot = PROT_READ | PROT_WRITE | (executable_wants_exec_stack() ? PROT_EXEC : 0);
  void* p = mmap(nullptr, bytes_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error("cannot reserve " + std::to_string(bytes_ >> 20) + " MiB of address space for " +
                             std::to_string(count) + " rank stacks of " + std::to_string(usable >> 10) +
                             " KiB (" + std::strerror(errno) +
                             "); lower -xsim-stack or run more native processes");
  }
  base_ = static_cast<char*>(p);
  origin_ = base_ + offset;
  lsan_root_region(base_, bytes_);  // suspended ranks keep pointers to heap blocks on their stacks
  for (size_t i = 0; i < count; ++i) {
    if (guard_ && mprotect(origin_ + i * slot_, guard_, PROT_NONE) != 0) {
      throw std::runtime_error(std::string("cannot protect a stack guard page (") + std::strerror(errno) +
                               "): raise vm.max_map_count (sysctl -w vm.max_map_count=" +
                               std::to_string(count * 2 + 100000) + ")");
    }
  }
}

StackPool::~StackPool() {
  if (!base_) return;
  lsan_forget_root_region(base_, bytes_);
  munmap(base_, bytes_);
}

void StackPool::write_canary(size_t i) {
  uint64_t* c = canary(i);
  c[0] = kCanary;
  c[1] = kCanary;
}

void StackPool::release(size_t i) {
  asan_unpoison(origin_ + i * slot_ + guard_, usable_size());  // frames of a rank that ended through exit()
  if (i % kSampleEvery == 0) measure_touched(i);
  ended_.push_back(i);
  if (ended_.size() >= kReleaseBatch) flush_released();
}

void StackPool::measure_touched(size_t i) {
  auto lo = reinterpret_cast<uintptr_t>(canary(i)) + kCanaryZone;
  auto hi = reinterpret_cast<uintptr_t>(top(i));
  lo = (lo + page_ - 1) / page_ * page_;
  hi = (hi + page_ - 1) / page_ * page_;
  uint64_t touched = page_;  // a stack of one page: the canary's page is its top page
  if (hi > lo) {
    unsigned char vec[256];
    touched = 0;
    for (uintptr_t at = lo; at < hi; at += sizeof vec * page_) {
      const size_t len = std::min<size_t>(hi - at, sizeof vec * page_);
      if (mincore(reinterpret_cast<void*>(at), len, vec) != 0) return;  // not measured
      for (size_t k = 0; k < (len + page_ - 1) / page_; ++k) touched += (vec[k] & 1) ? page_ : 0;
    }
  }
  ++touched_samples_;
  touched_bytes_ += touched;
  touched_max_ = std::max<uint64_t>(touched_max_, touched);
}

void StackPool::flush_released() {
  std::sort(ended_.begin(), ended_.end());
  for (size_t k = 0; k < ended_.size();) {
    size_t j = k;
    // Without guard pages, consecutive ended stacks are one run of memory; guard pages are mappings of
    // their own, so each guarded stack is released alone.
    while (!guard_ && j + 1 < ended_.size() && ended_[j + 1] == ended_[j] + 1) ++j;
    release_range(ended_[k], ended_[j]);
    k = j + 1;
  }
  ended_.clear();
}

void StackPool::release_range(size_t first, size_t last) {
  // Only whole pages of these stacks: without guard pages the first page is shared with the stack below
  // (its top) and the last one with the stack above (its canary).
  auto lo = reinterpret_cast<uintptr_t>(origin_ + first * slot_ + guard_);
  auto hi = reinterpret_cast<uintptr_t>(top(last));
  lo = (lo + page_ - 1) / page_ * page_;
  hi = hi / page_ * page_;
  if (hi > lo) {
    madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
    ++release_calls_;
  }
}

long StackPool::slot_of(const void* addr) const {
  auto a = static_cast<const char*>(addr);
  if (!base_ || a < origin_ || a >= origin_ + count_ * slot_) return -1;
  return static_cast<long>((a - origin_) / slot_);
}

long StackPool::overflow_slot(const void* addr) const {
  long i = slot_of(addr);
  if (i < 0) return -1;
  size_t off = static_cast<size_t>(static_cast<const char*>(addr) - origin_) - static_cast<size_t>(i) * slot_;
  return off < guard_ + kCanaryZone ? i : -1;
}

}  // namespace xsim
