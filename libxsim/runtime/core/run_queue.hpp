// RunQueue: the scheduler's queue of local ranks, ordered by (key, rank index), with lazy deletion (an
// entry carries the generation it was queued with; the engine skips entries whose rank has been re-queued
// or taken out since). Layer: libxsim/runtime/core (xsim_core). Single-threaded; no fiber switches inside.
// Built for many ranks sharing few keys (virtual times): one bucket per distinct key, kept unsorted while
// it fills and sorted by rank index once, when it becomes the earliest; its ranks are then taken in
// order, so the scheduler walks the ranks' memory (Rank records, stacks) sequentially instead of sifting
// a binary heap of all ranks on every resume. Pops cost O(1) amortised plus one sort per bucket (linear
// when the bucket was filled in at most two ascending runs, the common case; a large bucket filled in random
// order, the ranks a random pattern wakes at one time, by radix: linear too). Entries pushed into a bucket
// after it was sorted (the window protocol delivers another process's messages into the bucket whose key
// it has just looked at; a rank yielding at the time it was resumed at) go to the bucket's `late` min-heap,
// O(log m) each, and are taken interleaved with the sorted run by index; a late heap grown to a quarter of
// the rest of its bucket is merged into it (one sort), so that large waves of late entries are taken in a
// sorted run again (peek sees them).
// The common steps of a switch are inline: a push into the bucket that is filling (a plain store: a
// bucket's entries are an EntryBuf whose growth is out of line), the top of a sorted bucket without late
// entries, and a pop inside a sorted run.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <new>
#include <utility>
#include <vector>

namespace xsim {

class RunQueue {
 public:
  struct Entry {
    int32_t index;  // local rank index
    uint32_t gen;   // the rank's queue generation when queued
  };

  // A growable array of entries (what std::vector<Entry> would be), whose append is one compare and one
  // store inline: growing is a separate, out-of-line call.
  class EntryBuf {
   public:
    EntryBuf() = default;
    EntryBuf(EntryBuf&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), cap_(std::exchange(o.cap_, 0)) {}
    EntryBuf& operator=(EntryBuf&& o) noexcept {
      std::swap(data_, o.data_);
      std::swap(size_, o.size_);
      std::swap(cap_, o.cap_);
      return *this;
    }
    ~EntryBuf() { std::free(data_); }
    size_t size() const { return size_; }
    size_t capacity() const { return cap_; }
    bool full() const { return size_ == cap_; }
    Entry* begin() { return data_; }
    Entry* end() { return data_ + size_; }
    const Entry* begin() const { return data_; }
    const Entry* end() const { return data_ + size_; }
    Entry& operator[](size_t i) { return data_[i]; }
    const Entry& operator[](size_t i) const { return data_[i]; }
    const Entry& back() const { return data_[size_ - 1]; }
    void clear() { size_ = 0; }
    void truncate(size_t n) { size_ = n; }  // n <= size()
    void push_back(Entry e) {
      if (full()) [[unlikely]] grow();
      data_[size_++] = e;
    }
    void push_back_within_capacity(Entry e) { data_[size_++] = e; }  // requires !full()

   private:
    [[gnu::noinline]] void grow() {
      size_t cap = cap_ ? 2 * cap_ : 16;
      void* p = std::realloc(data_, cap * sizeof(Entry));
      if (!p) throw std::bad_alloc();
      data_ = static_cast<Entry*>(p);
      cap_ = cap;
    }
    Entry* data_ = nullptr;
    size_t size_ = 0, cap_ = 0;
  };

  bool empty() const { return buckets_.empty(); }
  // Queues `index` at `key`. Amortised O(1) into a bucket that has not been sorted yet; O(log k) for a new
  // key (k distinct keys queued); O(log m) into a sorted bucket that already holds m late entries.
  // Consecutive pushes usually share their key (the ranks of one round yield or block to the same
  // time): the last bucket pushed into is remembered, and found again without a tree search.
  void push(int64_t key, int32_t index, uint32_t gen) {
    // Inline: the common case, the bucket of the last push, still filling (the ranks of one round).
    if (last_ && last_key_ == key && !last_->sorted && !last_->items.full()) {
      last_->items.push_back_within_capacity({index, gen});
      return;
    }
    push_other(key, index, gen);
  }
  // The earliest entry (smallest key, then smallest index); the queue must not be empty.
  int64_t top_key() const { return buckets_.begin()->first; }
  const Entry& top() {
    Bucket& b = buckets_.begin()->second;
    if (b.sorted && b.late.empty()) [[likely]] return b.items[b.next];  // inline: inside a sorted run
    return top_other(b);
  }
  // The rank index `k` entries after the top in the earliest bucket's sorted run, or -1: a guess of who runs
  // after the top, for prefetching (late and stale entries are not considered); the queue must not be empty.
  int32_t peek(size_t k) const {
    const Bucket& b = buckets_.begin()->second;
    return b.sorted && b.next + k < b.items.size() ? b.items[b.next + k].index : -1;
  }
  uint64_t late_merges() const { return late_merges_; }  // merges of a late heap so far (tests)
  void pop() {
    // Inline: the common case, the next of a sorted run that does not end the bucket.
    Bucket& b = buckets_.begin()->second;
    if (b.sorted && b.late.empty() && b.next + 1 < b.items.size()) {
      ++b.next;
      return;
    }
    pop_other();
  }

 private:
  [[gnu::noinline]] void push_other(int64_t key, int32_t index, uint32_t gen) {
    if (!last_ || last_key_ != key) {
      auto it = buckets_.find(key);
      if (it == buckets_.end()) {
        it = buckets_.emplace_hint(buckets_.lower_bound(key), key, Bucket{});
        if (!spare_.empty()) {
          it->second.items = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      last_ = &it->second;
      last_key_ = key;
    }
    Bucket& b = *last_;
    if (!b.sorted) {
      b.items.push_back({index, gen});
      return;
    }
    if (b.late.empty() && (b.next == b.items.size() || b.items.back().index <= index)) {
      b.items.push_back({index, gen});  // after everything left: the sorted run stays sorted
      return;
    }
    b.late.push_back({index, gen});
    std::push_heap(b.late.begin(), b.late.end(), later_index);
  }
  [[gnu::noinline]] void pop_other() {
    auto it = buckets_.begin();
    Bucket& b = it->second;
    if (!b.sorted) sort(b);
    if (late_too_many(b)) merge_late(b);
    if (take_late(b)) {
      std::pop_heap(b.late.begin(), b.late.end(), later_index);
      b.late.pop_back();
    } else {
      ++b.next;
    }
    if (b.next == b.items.size() && b.late.empty()) {
      b.items.clear();
      if (spare_.size() < kSpareBuckets) spare_.push_back(std::move(b.items));
      if (last_ == &b) last_ = nullptr;
      buckets_.erase(it);
    }
  }

  struct Bucket {
    EntryBuf items;
    size_t next = 0;      // items before `next` have been taken (only once sorted)
    bool sorted = false;  // sorted by index, taken from `next` on; pushes then go to `late` (or the end)
    std::vector<Entry> late;  // pushed after sorting, below the end of `items`: a min-heap by index
  };
  // Heap order for `late`: the smallest index on top (a type, not a function pointer: inlined).
  struct LaterIndex {
    bool operator()(const Entry& a, const Entry& c) const { return a.index > c.index; }
  };
  static constexpr LaterIndex later_index{};
  // Whether a sorted bucket's next entry is its late heap's top rather than items[next].
  static bool take_late(const Bucket& b) {
    return !b.late.empty() && (b.next == b.items.size() || b.late.front().index < b.items[b.next].index);
  }
  [[gnu::noinline]] const Entry& top_other(Bucket& b) {
    if (!b.sorted) sort(b);
    if (late_too_many(b)) merge_late(b);
    return take_late(b) ? b.late.front() : b.items[b.next];
  }
  // A late heap of more than kLateMerge entries and a quarter of what is left of the sorted run is merged
  // into it (one sort of the rest of the bucket): a process's messages from another process wake thousands
  // of ranks in a bucket already sorted, and taking them from the heap would cost O(log m) each and hide
  // them from peek (prefetching). Amortised O(1) per late push: a merge of r + m entries follows m > r / 4
  // pushes.
  static constexpr size_t kLateMerge = 64;
  static bool late_too_many(const Bucket& b) {
    return b.late.size() > kLateMerge && 4 * b.late.size() > b.items.size() - b.next;
  }
  [[gnu::noinline]] void merge_late(Bucket& b) {
    ++late_merges_;
    const size_t rest = b.items.size() - b.next;
    if (b.next) std::copy(b.items.begin() + b.next, b.items.end(), b.items.begin());
    b.items.truncate(rest);
    for (const Entry& e : b.late) b.items.push_back(e);
    b.late.clear();
    sort(b);  // the rest (one ascending run) then the heap's entries: by radix or std::sort
  }
  static constexpr size_t kSpareBuckets = 64;
  static void sort(Bucket& b) {
    auto by_index = [](const Entry& a, const Entry& c) { return a.index < c.index; };
    auto& v = b.items;
    // Ranks usually queue each other in ascending order, possibly wrapping round once (rank r wakes
    // r + d mod n): find the first descent; merge two ascending runs in linear time, sort anything else
    // (large buckets by radix: the ranks a random pattern wakes at one time).
    auto split = std::is_sorted_until(v.begin(), v.end(), by_index);
    if (split != v.end()) {
      if (std::is_sorted(split, v.end(), by_index))
        std::inplace_merge(v.begin(), split, v.end(), by_index);
      else if (v.size() >= kRadixMin)
        radix_sort(v.begin(), v.size());
      else
        std::sort(v.begin(), v.end(), by_index);
    }
    b.sorted = true;
    b.next = 0;
  }
  // Sorts n entries by index (non-negative), least significant digit first: as many passes of at most
  // kRadixBits as the largest index needs, the bits shared evenly (1,024 ranks: one pass of 10 bits;
  // 16,384: two of 7; 262,144: two of 9), O(n + 2^bits) each. Entries with equal indices (a rank's stale
  // entry and its live one) may come out in either order, as with std::sort: only the live one is taken.
  static constexpr size_t kRadixMin = 512;
  static constexpr uint32_t kRadixBits = 11;
  [[gnu::noinline]] static void radix_sort(Entry* v, size_t n) {
    // Its buffers, kept between calls, outside the queue's own fields; one set per thread (a process runs
    // its ranks on one scheduler thread, but nothing stops two queues on two threads, as in the unit tests).
    static thread_local std::vector<Entry> scratch_;
    static thread_local std::vector<size_t> count_;
    uint32_t index_bits = 0;  // the OR of all indices: its width says how many passes
    for (size_t i = 0; i < n; ++i) index_bits |= static_cast<uint32_t>(v[i].index);
    const uint32_t width = index_bits ? 32 - static_cast<uint32_t>(__builtin_clz(index_bits)) : 1;
    const uint32_t passes = (width + kRadixBits - 1) / kRadixBits;
    const uint32_t bits = (width + passes - 1) / passes;
    const size_t digits = size_t{1} << bits;
    const uint32_t mask = static_cast<uint32_t>(digits - 1);
    if (scratch_.size() < n) scratch_.resize(n);
    count_.resize(size_t{1} << kRadixBits);  // on the heap: this may run on a rank's (small) stack
    size_t* count = count_.data();
    Entry* from = v;
    Entry* to = scratch_.data();
    for (uint32_t pass = 0, shift = 0; pass < passes; ++pass, shift += bits) {
      std::fill(count, count + digits, size_t{0});
      for (size_t i = 0; i < n; ++i) ++count[(static_cast<uint32_t>(from[i].index) >> shift) & mask];
      size_t sum = 0;
      for (size_t d = 0; d < digits; ++d) sum += std::exchange(count[d], sum);
      for (size_t i = 0; i < n; ++i) to[count[(static_cast<uint32_t>(from[i].index) >> shift) & mask]++] = from[i];
      std::swap(from, to);
    }
    if (from != v) std::copy(from, from + n, v);
  }
  std::map<int64_t, Bucket> buckets_;
  std::vector<EntryBuf> spare_;     // emptied buckets' storage, reused by new keys
  Bucket* last_ = nullptr;                 // the bucket of the last push (map nodes never move), or null
  int64_t last_key_ = 0;
  uint64_t late_merges_ = 0;
};

}  // namespace xsim
