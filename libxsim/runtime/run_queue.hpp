// RunQueue: the scheduler's queue of local ranks, ordered by (key, rank index), with lazy deletion (an
// entry carries the generation it was queued with; the engine skips entries whose rank has been re-queued
// or taken out since). Layer: libxsim/runtime (engine). Single-threaded; no fiber switches inside.
// Built for many ranks sharing few keys (virtual times): one bucket per distinct key, kept unsorted while
// it fills and sorted by rank index once, when it becomes the earliest; its ranks are then taken in
// order, so the scheduler walks the ranks' memory (Rank records, stacks) sequentially instead of sifting
// a binary heap of all ranks on every resume. Pops cost O(1) amortised plus one sort per bucket (linear
// when the bucket was filled in at most two ascending runs, the common case).
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace xsim {

class RunQueue {
 public:
  struct Entry {
    int32_t index;  // local rank index
    uint32_t gen;   // the rank's queue generation when queued
  };

  bool empty() const { return buckets_.empty(); }
  // Queues `index` at `key`. Amortised O(1) into a bucket that is not the front one; O(log k) for a new key
  // (k distinct keys queued); O(n) memmove into the front bucket when it is being taken (rare: a rank that
  // yields at the very time it was resumed at).
  void push(int64_t key, int32_t index, uint32_t gen) {
    auto it = buckets_.find(key);
    if (it == buckets_.end()) {
      it = buckets_.emplace_hint(buckets_.lower_bound(key), key, Bucket{});
      if (!spare_.empty()) {
        it->second.items = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    Bucket& b = it->second;
    if (!b.sorted) {
      b.items.push_back({index, gen});
      return;
    }
    auto pos = std::upper_bound(b.items.begin() + static_cast<long>(b.next), b.items.end(), index,
                                [](int32_t i, const Entry& e) { return i < e.index; });
    b.items.insert(pos, Entry{index, gen});
  }
  // The earliest entry (smallest key, then smallest index); the queue must not be empty.
  int64_t top_key() const { return buckets_.begin()->first; }
  const Entry& top() {
    Bucket& b = buckets_.begin()->second;
    if (!b.sorted) sort(b);
    return b.items[b.next];
  }
  void pop() {
    auto it = buckets_.begin();
    Bucket& b = it->second;
    if (!b.sorted) sort(b);
    if (++b.next == b.items.size()) {
      b.items.clear();
      if (spare_.size() < kSpareBuckets) spare_.push_back(std::move(b.items));
      buckets_.erase(it);
    }
  }

 private:
  struct Bucket {
    std::vector<Entry> items;
    size_t next = 0;      // items before `next` have been taken (only once sorted)
    bool sorted = false;  // sorted by index, taken from `next` on; pushes then keep the order
  };
  static constexpr size_t kSpareBuckets = 64;
  static void sort(Bucket& b) {
    auto by_index = [](const Entry& a, const Entry& c) { return a.index < c.index; };
    auto& v = b.items;
    // Ranks usually queue each other in ascending order, possibly wrapping round once (rank r wakes
    // r + d mod n): find the first descent; merge two ascending runs in linear time, sort anything else.
    auto split = std::is_sorted_until(v.begin(), v.end(), by_index);
    if (split != v.end()) {
      if (std::is_sorted(split, v.end(), by_index))
        std::inplace_merge(v.begin(), split, v.end(), by_index);
      else
        std::sort(v.begin(), v.end(), by_index);
    }
    b.sorted = true;
    b.next = 0;
  }
  std::map<int64_t, Bucket> buckets_;
  std::vector<std::vector<Entry>> spare_;  // emptied buckets' storage, reused by new keys
};

}  // namespace xsim
