// The scheduler's run queue (runtime/core/run_queue.hpp) against a reference binary heap on (key, index), and
// the stack pool's layout without guard pages (canary next to the neighbour's stack top).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "run_queue.hpp"
#include "stack_pool.hpp"

using xsim::RunQueue;

namespace {
using Ref = std::set<std::tuple<int64_t, int32_t, uint32_t>>;  // (key, index, gen): ordered like the engine's heap

void expect_same_top(RunQueue& q, const Ref& ref) {
  ASSERT_EQ(q.empty(), ref.empty());
  if (ref.empty()) return;
  auto [key, index, gen] = *ref.begin();
  EXPECT_EQ(q.top_key(), key);
  EXPECT_EQ(q.top().index, index);  // entries equal in (key, index) may come in any order (one is live)
  EXPECT_EQ(ref.count({key, index, q.top().gen}), 1u);
}
void pop_both(RunQueue& q, Ref& ref) {
  ref.erase({q.top_key(), q.top().index, q.top().gen});
  q.pop();
}
}  // namespace

TEST(RunQueue, TakesEntriesByKeyThenIndex) {
  RunQueue q;
  q.push(5, 3, 0);
  q.push(2, 9, 0);
  q.push(5, 1, 0);
  q.push(2, 4, 0);
  q.push(7, 0, 0);
  std::vector<std::pair<int64_t, int32_t>> got;
  while (!q.empty()) {
    got.emplace_back(q.top_key(), q.top().index);
    q.pop();
  }
  std::vector<std::pair<int64_t, int32_t>> want{{2, 4}, {2, 9}, {5, 1}, {5, 3}, {7, 0}};
  EXPECT_EQ(got, want);
}

// push() remembers the last bucket it used: once that bucket has been emptied (and erased), a push with
// the same key must make a new bucket, not write into the freed one; keys alternating with it must not
// land in it.
TEST(RunQueue, KeyOfAnEmptiedBucketIsUsableAgain) {
  RunQueue q;
  for (int round = 0; round < 3; ++round) {
    q.push(5, 2, 0);
    q.push(5, 1, 0);
    q.push(4, 9, 0);
    q.push(5, 3, 0);
    std::vector<std::pair<int64_t, int32_t>> got;
    while (!q.empty()) {
      got.emplace_back(q.top_key(), q.top().index);
      q.pop();
    }
    EXPECT_EQ(got, (std::vector<std::pair<int64_t, int32_t>>{{4, 9}, {5, 1}, {5, 2}, {5, 3}})) << "round " << round;
  }
}

TEST(RunQueue, PushIntoTheBucketBeingTakenKeepsTheOrder) {
  RunQueue q;
  for (int i : {10, 2, 6, 8}) q.push(1, i, 0);
  EXPECT_EQ(q.top().index, 2);
  q.pop();
  q.push(1, 7, 0);   // between the remaining 6 and 8
  q.push(1, 3, 0);   // before everything left: becomes the top
  q.push(0, 50, 0);  // an earlier key than the bucket being taken
  std::vector<int32_t> order;
  while (!q.empty()) {
    order.push_back(q.top().index);
    q.pop();
  }
  EXPECT_EQ(order, (std::vector<int32_t>{50, 3, 6, 7, 8, 10}));
}

// The window protocol's case: the front bucket is sorted (the engine looked at its top for the next event
// time), then another process's messages wake ranks at that same key in random order, some while the
// bucket is being taken. They must come out by index, interleaved with the sorted run.
TEST(RunQueue, PushesIntoASortedBucketInRandomOrderComeOutByIndex) {
  RunQueue q;
  const int n = 20000;
  for (int i = 0; i < n; i += 2) q.push(9, i, 0);  // even ranks, queued locally
  EXPECT_EQ(q.top().index, 0);                      // sorts the bucket
  std::vector<int32_t> odd;
  for (int i = 1; i < n; i += 2) odd.push_back(i);
  std::shuffle(odd.begin(), odd.end(), std::mt19937_64(3));
  for (size_t k = 0; k < odd.size() / 2; ++k) q.push(9, odd[k], 1);  // before anything is taken
  std::vector<int32_t> order;
  for (int k = 0; k < 100; ++k) {
    order.push_back(q.top().index);
    q.pop();
  }
  for (size_t k = odd.size() / 2; k < odd.size(); ++k)
    if (odd[k] > order.back()) q.push(9, odd[k], 2);  // while it is taken (only behind what was taken)
  q.push(9, n + 5, 3);                                 // after the end
  while (!q.empty()) {
    ASSERT_EQ(q.top_key(), 9);
    order.push_back(q.top().index);
    q.pop();
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(std::adjacent_find(order.begin(), order.end()), order.end()) << "no entry twice";
  EXPECT_EQ(order.back(), n + 5);
  // every even rank, every odd rank of the first half, and those of the second half behind the first 100
  size_t want = static_cast<size_t>(n / 2) + odd.size() / 2 + 1;
  for (size_t k = odd.size() / 2; k < odd.size(); ++k) want += odd[k] > order[99] ? 1 : 0;
  EXPECT_EQ(order.size(), want);
}

TEST(RunQueue, WrappedAscendingRunsAreMerged) {
  RunQueue q;
  const int n = 1000, d = 377;  // rank r wakes (r + d) mod n, in ascending r
  for (int r = 0; r < n; ++r) q.push(42, (r + d) % n, 0);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(q.top().index, i);
    q.pop();
  }
  EXPECT_TRUE(q.empty());
}

TEST(RunQueue, MatchesAReferenceHeapUnderRandomOperations) {
  std::mt19937_64 rng(7);
  RunQueue q;
  Ref ref;
  for (int step = 0; step < 200000; ++step) {
    int op = static_cast<int>(rng() % 3);
    if (op < 2 || ref.empty()) {
      // few distinct keys near the current front, as virtual times are
      int64_t base = ref.empty() ? 0 : std::get<0>(*ref.begin());
      int64_t key = base + static_cast<int64_t>(rng() % 5);
      auto index = static_cast<int32_t>(rng() % 300);
      auto gen = static_cast<uint32_t>(step);
      q.push(key, index, gen);
      ref.insert({key, index, gen});
    } else {
      expect_same_top(q, ref);
      pop_both(q, ref);
    }
    if (HasFailure()) return;
  }
  while (!ref.empty()) {
    expect_same_top(q, ref);
    if (HasFailure()) return;
    pop_both(q, ref);
  }
  EXPECT_TRUE(q.empty());
}

// Large waves of entries pushed into a bucket already sorted (and partly taken), as another process's
// messages wake ranks: their late heaps get merged into the bucket, and the order stays (key, index).
TEST(RunQueue, LateWavesMergedIntoABucketBeingTakenMatchAReferenceHeap) {
  std::mt19937_64 rng(11);
  RunQueue q;
  Ref ref;
  uint32_t gen = 0;
  for (int wave = 0; wave < 40; ++wave) {
    const int64_t base = ref.empty() ? 100 * wave : std::get<0>(*ref.begin());
    const size_t size = 100 + rng() % 5000;
    for (size_t k = 0; k < size; ++k) {
      auto key = base + static_cast<int64_t>(rng() % 2);
      auto index = static_cast<int32_t>(rng() % 20000);
      q.push(key, index, ++gen);
      ref.insert({key, index, gen});
    }
    const size_t takes = rng() % (ref.size() / 2 + 1);
    for (size_t k = 0; k < takes; ++k) {
      expect_same_top(q, ref);
      if (HasFailure()) return;
      pop_both(q, ref);
    }
  }
  while (!ref.empty()) {
    expect_same_top(q, ref);
    if (HasFailure()) return;
    pop_both(q, ref);
  }
  EXPECT_TRUE(q.empty());
  EXPECT_GT(q.late_merges(), 10u) << "the waves went to late heaps and were merged";
}

TEST(RunQueueEntryBuf, GrowsKeepsItsEntriesAndMovesOut) {
  RunQueue::EntryBuf b;
  EXPECT_EQ(b.size(), 0u);
  EXPECT_TRUE(b.full());  // no room before the first growth
  for (int32_t i = 0; i < 1000; ++i) {
    if (!b.full())
      b.push_back_within_capacity({i, static_cast<uint32_t>(2 * i)});
    else
      b.push_back({i, static_cast<uint32_t>(2 * i)});
  }
  ASSERT_EQ(b.size(), 1000u);
  EXPECT_GE(b.capacity(), 1000u);
  for (int32_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(b[static_cast<size_t>(i)].index, i);
    EXPECT_EQ(b[static_cast<size_t>(i)].gen, static_cast<uint32_t>(2 * i));
  }
  EXPECT_EQ(b.back().index, 999);
  RunQueue::EntryBuf moved(std::move(b));
  EXPECT_EQ(moved.size(), 1000u);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.capacity(), 0u);
  const size_t cap = moved.capacity();
  moved.clear();
  EXPECT_EQ(moved.size(), 0u);
  EXPECT_EQ(moved.capacity(), cap);  // cleared storage is kept for reuse
}

// Rounds of many ranks at one key each (bench/switch's pattern: every rank yields to the next time while
// the bucket of the present time is being taken): buckets grow past their first capacity, are emptied,
// and their storage is reused by later keys, in (key, index) order throughout.
TEST(RunQueue, LargeRoundsComeOutInRankOrder) {
  RunQueue q;
  constexpr int32_t kRanks = 5000;
  for (int32_t i = 0; i < kRanks; ++i) q.push(0, i, 0);
  for (int64_t round = 0; round < 4; ++round) {
    for (int32_t i = 0; i < kRanks; ++i) {
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.top_key(), round);
      ASSERT_EQ(q.top().index, i);
      q.pop();
      q.push(round + 1, i, static_cast<uint32_t>(round + 1));
    }
  }
  for (int32_t i = 0; i < kRanks; ++i) {
    ASSERT_EQ(q.top_key(), 4);
    ASSERT_EQ(q.top().index, i);
    ASSERT_EQ(q.top().gen, 4u);
    q.pop();
  }
  EXPECT_TRUE(q.empty());
}

// Large buckets filled in random order (a random pattern's wake-ups) are radix-sorted: one pass of 11 bits
// below 2,048 ranks, two and three passes above; duplicates of an index (stale entries) included, and
// buckets just below the radix threshold (std::sort).
TEST(RunQueue, LargeShuffledBucketsComeOutByIndex) {
  std::mt19937 rng(7);
  for (int32_t ranks : {300, 600, 2048, 5000, 70000, 4200000}) {
    RunQueue q;
    Ref ref;
    std::vector<int32_t> order(static_cast<size_t>(ranks));
    for (int32_t i = 0; i < ranks; ++i) order[static_cast<size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), rng);
    const size_t n = std::min<size_t>(order.size(), 20000);  // a sample of the range, up to the top index
    order.resize(n);
    order.push_back(ranks - 1);
    for (size_t i = 0; i < order.size(); ++i) {
      const uint32_t gen = static_cast<uint32_t>(i);  // every entry distinct, as the reference needs
      q.push(9, order[i], gen);
      ref.insert({9, order[i], gen});
      if (i % 97 == 0) {  // a second, stale entry of the same rank
        q.push(9, order[i], gen + (1u << 30));
        ref.insert({9, order[i], gen + (1u << 30)});
      }
    }
    int32_t last = -1;
    while (!ref.empty()) {
      expect_same_top(q, ref);
      ASSERT_GE(q.top().index, last);
      last = q.top().index;
      pop_both(q, ref);
    }
    EXPECT_TRUE(q.empty());
  }
}

// -xsim-stack auto: 8 MiB up to 2,048 stacks (16 GiB of address space), halving as the count doubles, and
// never below 256 KiB (from 65,536 stacks on); an explicit size is used as given.
TEST(StackPoolLayout, AutoSizeShrinksWithTheRankCount) {
  constexpr size_t M = size_t{1} << 20, K = size_t{1} << 10;
  EXPECT_EQ(xsim::StackPool::auto_size(1), 8 * M);
  EXPECT_EQ(xsim::StackPool::auto_size(2048), 8 * M);
  EXPECT_EQ(xsim::StackPool::auto_size(2049), 4 * M);
  EXPECT_EQ(xsim::StackPool::auto_size(16384), 1 * M);
  EXPECT_EQ(xsim::StackPool::auto_size(65536), 256 * K);
  EXPECT_EQ(xsim::StackPool::auto_size(131072), 128 * K);
  EXPECT_EQ(xsim::StackPool::auto_size(262144), 64 * K);
  EXPECT_EQ(xsim::StackPool::auto_size(2097152), 64 * K);
  EXPECT_EQ(xsim::StackPool::effective_size(0, 4), 8 * M);
  EXPECT_EQ(xsim::StackPool::effective_size(64 * K, 4), 64 * K);
}

TEST(StackPoolLayout, WithoutGuardPagesTheCanarySharesAPageWithTheStackBelow) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // More stacks than guard mappings allowed under the default vm.max_map_count: no guard pages.
  const size_t n = 40000;
  xsim::StackPool pool(n, 16 * 1024);
  if (pool.has_guard_pages()) GTEST_SKIP() << "vm.max_map_count is large enough for guard pages here";
  for (size_t i : {size_t{1}, size_t{2}, n / 2, n - 1}) {
    auto top_below = reinterpret_cast<uintptr_t>(pool.top(i - 1));
    auto bottom = reinterpret_cast<uintptr_t>(pool.top(i)) - pool.usable_size();
    EXPECT_EQ(bottom, top_below) << "stacks are adjacent";
    EXPECT_EQ((top_below - 1) / page, bottom / page) << "canary of " << i << " on the page of the top of " << i - 1;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pool.top(i)) % 16, 0u);
    EXPECT_EQ(pool.slot_of(reinterpret_cast<void*>(bottom)), static_cast<long>(i));
    EXPECT_EQ(pool.slot_of(reinterpret_cast<void*>(top_below - 1)), static_cast<long>(i - 1));
    EXPECT_EQ(pool.overflow_slot(reinterpret_cast<void*>(bottom + 8)), static_cast<long>(i));
    EXPECT_EQ(pool.overflow_slot(reinterpret_cast<void*>(top_below - 8)), -1);
  }
  // Releasing a stack keeps its neighbours' stack tops and canaries.
  char* top1 = static_cast<char*>(pool.top(1));
  std::memset(top1 - 256, 0x5a, 256);
  pool.write_canary(1);
  pool.write_canary(2);
  pool.write_canary(3);
  char* top2 = static_cast<char*>(pool.top(2));
  std::memset(top2 - 256, 0x33, 256);
  pool.release(2);
  pool.flush_released();
  EXPECT_TRUE(pool.canary_intact(2));  // on the page shared with stack 1's top
  EXPECT_TRUE(pool.canary_intact(3));  // on the page shared with stack 2's top
  EXPECT_EQ(top1[-1], 0x5a);
  EXPECT_EQ(top1[-256], 0x5a);
  EXPECT_EQ(pool.slot_of(nullptr), -1);
}

// Ended stacks go back to the system in batches: one madvise per run of consecutive ended stacks, which
// then also frees the pages two ended neighbours share; the stacks around the run keep everything.
TEST(StackPoolLayout, EndedStacksAreReleasedInBatchesOfRuns) {
  const size_t n = 40000, first = 10, batch = 256;
  xsim::StackPool pool(n, 16 * 1024);
  for (size_t i = first - 1; i <= first + batch; ++i) {
    char* top = static_cast<char*>(pool.top(i));
    std::memset(top - 128, 0x5a, 128);
    pool.write_canary(i);
  }
  for (size_t i = first; i < first + batch - 1; ++i) pool.release(i);
  EXPECT_EQ(pool.release_calls(), 0u) << "nothing is released before the batch is full";
  EXPECT_EQ(static_cast<char*>(pool.top(first + 100))[-1], 0x5a);
  pool.release(first + batch - 1);  // the batch is full: one run, one call (or one per stack with guard pages)
  EXPECT_EQ(pool.release_calls(), pool.has_guard_pages() ? batch : 1u);
  EXPECT_EQ(static_cast<char*>(pool.top(first + 100))[-1], 0) << "an ended stack's top page is freed";
  EXPECT_EQ(static_cast<char*>(pool.top(first - 1))[-1], 0x5a) << "the stack below the run keeps its top";
  EXPECT_TRUE(pool.canary_intact(first + batch)) << "the stack above the run keeps its canary";
  EXPECT_EQ(static_cast<char*>(pool.top(first + batch))[-128], 0x5a);
  if (!pool.has_guard_pages()) EXPECT_TRUE(pool.canary_intact(first)) << "on the page of the top of the stack below";
}

// The check on a direct switch out of a rank: without guard pages, its canary (the only overflow detection);
// with them, nothing (an overflow faults on the guard page; the scheduler still checks the canary when the
// rank ends).
TEST(StackPoolLayout, TheSwitchCheckReadsTheCanaryOnlyWithoutGuardPages) {
  for (size_t n : {size_t{4}, size_t{40000}}) {
    xsim::StackPool pool(n, 16 * 1024);
    pool.write_canary(1);
    EXPECT_TRUE(pool.switch_check_ok(1));
    auto* bottom = reinterpret_cast<unsigned char*>(static_cast<char*>(pool.top(1)) - pool.usable_size());
    bottom[3] ^= 0xff;  // a write into the canary zone, above any guard page
    EXPECT_FALSE(pool.canary_intact(1));
    EXPECT_EQ(pool.switch_check_ok(1), pool.has_guard_pages()) << n << " stacks";
    if (n == 4) EXPECT_TRUE(pool.has_guard_pages()) << "a few stacks always get guard pages";
  }
}
