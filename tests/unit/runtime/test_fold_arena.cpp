// FoldArena (libxsim/runtime/core/fold_arena.hpp): size classes, reuse of freed slots without growth,
// alignment, private edge pages, exhaustion, bad frees.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "fold_arena.hpp"

using namespace xsim::fold;

TEST(FoldArena, ClassesRoundUpToAnEighthOfAPowerOfTwo) {
  EXPECT_EQ(FoldArena::class_bytes(1), kPage);
  EXPECT_EQ(FoldArena::class_bytes(8 * kPage), 8 * kPage);
  EXPECT_EQ(FoldArena::class_bytes(8 * kPage + 1), 9 * kPage);
  EXPECT_EQ(FoldArena::class_bytes(16 * kPage + 1), 18 * kPage);  // step 2 pages from 16
  EXPECT_EQ(FoldArena::class_bytes(uint64_t{80} << 20), uint64_t{80} << 20);
  for (uint64_t b = 1; b < (uint64_t{1} << 32); b = b * 3 + 7) {
    const uint64_t c = FoldArena::class_bytes(b);
    EXPECT_GE(c, b);
    EXPECT_LE(c, b + b / 8 + kPage) << b;  // at most 12.5% (and a page) of address space lost
  }
}

TEST(FoldArena, FreedSlotsAreReusedWithoutGrowing) {
  FoldArena a(uint64_t{1} << 40);
  uint64_t top = 0;
  for (int i = 0; i < 100000; ++i) {  // HPL's panels: allocated and freed every iteration, a little smaller
    const uint64_t n = (uint64_t{8} << 20) - static_cast<uint64_t>(i % 500) * 4000;
    auto b = a.take(n);
    ASSERT_TRUE(b);
    EXPECT_EQ(a.size_of(b->user), n);
    EXPECT_TRUE(a.give(b->user));
    if (i == 1000) top = a.used();
  }
  EXPECT_EQ(a.used(), top);  // every class met by then: no growth after
  EXPECT_EQ(a.live_count(), 0u);
  EXPECT_EQ(a.live_bytes(), 0u);
  EXPECT_EQ(a.peak_live_bytes(), uint64_t{8} << 20);
  EXPECT_EQ(a.allocations(), 100000u);
}

TEST(FoldArena, LiveBlocksDoNotOverlapAndHonourAlignment) {
  FoldArena a(uint64_t{1} << 40);
  std::vector<FoldArena::Block> live;
  for (int i = 0; i < 200; ++i) {
    const uint64_t n = 1000 + static_cast<uint64_t>(i) * 37777, align = uint64_t{1} << (12 + i % 10);
    auto b = a.take(n, align);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->user % align, 0u);
    EXPECT_GE(b->user, b->slot);
    EXPECT_LE(b->user + n, b->slot + b->slot_bytes);
    live.push_back(*b);
    if (i % 3 == 0) {  // free some, so that later ones reuse their slots
      EXPECT_TRUE(a.give(live.back().user));
      live.pop_back();
    }
  }
  std::set<std::pair<uint64_t, uint64_t>> slots;
  for (const auto& b : live) slots.insert({b.slot, b.slot + b.slot_bytes});
  uint64_t end = 0;
  for (const auto& [first, last] : slots) {
    EXPECT_GE(first, end);
    end = last;
  }
}

TEST(FoldArena, EdgesAreThePagesOfTheFirstAndLastFourKiB) {
  EXPECT_EQ(FoldArena::head_pages(0, 100 * kPage), (Span{0, kPage}));
  EXPECT_EQ(FoldArena::tail_pages(0, 100 * kPage), (Span{99 * kPage, 100 * kPage}));
  EXPECT_EQ(FoldArena::tail_pages(0, 100 * kPage + 10), (Span{99 * kPage, 101 * kPage}));  // straddles two
  EXPECT_EQ(FoldArena::head_pages(kPage, 100), (Span{kPage, 2 * kPage}));
  FoldArena a(uint64_t{1} << 30);
  auto b = a.take(20 * kPage);
  ASSERT_TRUE(b && b->fresh);
  a.give(b->user);
  auto c = a.take(20 * kPage - 100);  // same class, the same slot, another tail
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->fresh);
  EXPECT_EQ(c->slot, b->slot);
  EXPECT_EQ(c->old_head, b->head);
  EXPECT_EQ(c->old_tail, b->tail);
  EXPECT_EQ(c->tail, (Span{18 * kPage, 20 * kPage}));
}

TEST(FoldArena, ExhaustionAndBadInput) {
  FoldArena a(64 * kPage);
  EXPECT_FALSE(a.take(0));
  EXPECT_FALSE(a.take(kPage, 3 * kPage));  // not a power of two
  EXPECT_FALSE(a.take(kPage, FoldArena::kMaxAlign * 2));
  auto b = a.take(60 * kPage);
  ASSERT_TRUE(b);
  EXPECT_FALSE(a.take(8 * kPage));  // does not fit any more
  EXPECT_FALSE(a.give(b->user + kPage));  // not the start of a block
  EXPECT_TRUE(a.give(b->user));
  EXPECT_FALSE(a.give(b->user));  // a double free
  EXPECT_TRUE(a.take(60 * kPage));
}
