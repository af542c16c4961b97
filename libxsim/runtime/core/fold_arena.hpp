// FoldArena: the bookkeeping of memory folding (-xsim-fold, docs/real-programs.md "Memory folding"), pure:
// no system calls, offsets into one reserved address range of `capacity` bytes. A block for a request of n
// bytes is a slot of a size class (n rounded up to pages, then to 1/8 of its power of two: at most 12.5% of
// address space lost, no splitting or coalescing); a freed slot goes on its class's free list and is reused
// by the next request of that class, from any rank, without a system call. Each live block records its
// slot, its size, and the private pages the runtime mapped for it: the pages holding its first and last
// kEdge bytes (head and tail; the rest of a slot is backed by the one shared block all folded memory maps).
// The runtime (process/fold_malloc.cpp) does the mapping; tests/unit/test_fold_arena.cpp tests this class.
// Not thread-safe: the caller holds a lock.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace xsim::fold {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kEdge = 4096;  // bytes kept at each end of a folded allocation and of a folded message

// A page range [first, end) as byte offsets from the reservation's start; empty when first == end.
struct Span {
  uint64_t first = 0, end = 0;
  bool operator==(const Span&) const = default;
};

class FoldArena {
 public:
  explicit FoldArena(uint64_t capacity) : capacity_(capacity / kPage * kPage) {}

  // What take() hands out. `user`: the offset of the allocation (aligned as asked); `slot`, `slot_bytes`:
  // its slot; `fresh`: the slot was never mapped (map it whole: shared middle, private head and tail);
  // else `old_head`, `old_tail` are its private pages from the previous use, `head`, `tail` the ones this
  // use needs (remap when they differ).
  struct Block {
    uint64_t user = 0, slot = 0, slot_bytes = 0;
    bool fresh = false;
    Span head, tail, old_head, old_tail;
  };
  // A block for `bytes` (> 0) aligned to `align` (a power of two, at most kMaxAlign; at most kPage costs
  // nothing extra) relative to the reservation's start, or nothing when the address space is exhausted.
  static constexpr uint64_t kMaxAlign = uint64_t{1} << 30;
  std::optional<Block> take(uint64_t bytes, uint64_t align = kPage);
  // Frees the block at offset `user`; false if no live block starts there.
  bool give(uint64_t user);
  // The requested size of the live block at `user`, or 0 if none.
  uint64_t size_of(uint64_t user) const;
  // The slot of the live block at `user` (its start), or UINT64_MAX if none.
  uint64_t slot_of(uint64_t user) const;

  // The slot size of a request of `bytes` (its class).
  static uint64_t class_bytes(uint64_t bytes);
  // The private pages of an allocation of `bytes` at `user`: those holding its first and last kEdge bytes.
  static Span head_pages(uint64_t user, uint64_t bytes);
  static Span tail_pages(uint64_t user, uint64_t bytes);

  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return top_; }              // address space ever handed out (slots)
  uint64_t live_bytes() const { return live_bytes_; }  // requested bytes of the live blocks
  uint64_t peak_live_bytes() const { return peak_live_bytes_; }
  uint64_t allocations() const { return allocations_; }  // take() calls that succeeded
  uint64_t live_count() const { return live_.size(); }
  uint64_t free_slots() const;

 private:
  struct Live {
    uint64_t slot, slot_bytes, bytes;
  };
  struct Private {  // a slot's private pages (kept while it is free, for its next use)
    Span head, tail;
  };
  uint64_t capacity_;
  uint64_t top_ = 0;
  uint64_t live_bytes_ = 0, peak_live_bytes_ = 0, allocations_ = 0;
  std::unordered_map<uint64_t, Live> live_;                      // by user offset
  std::unordered_map<uint64_t, Private> private_;                // by slot: head, tail of its last use
  std::unordered_map<uint64_t, std::vector<uint64_t>> free_;     // by class bytes: free slots (a stack)
};

}  // namespace xsim::fold
