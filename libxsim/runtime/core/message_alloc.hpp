// The message allocator (Message::create, create_folded, destroy; records.hpp): small messages (every
// control message, collectives on a few elements) come from two free lists instead of malloc, blocks of
// one cache line (payload up to Message::kLinePayload bytes) and of two (up to 72 bytes); most simulated
// messages are small, and a freed block is reused hot by the next send of its size. Larger messages (a
// panel of a factorization, a halo plane) come from power-of-two blocks kept on free lists after use, up
// to kLargeCacheBytes in all: malloc would hand blocks of this size out as fresh mappings, whose first
// touch costs a page fault per 4 KiB (HPL at 64 ranks: page faults were half of the simulator's time
// before this cache). Single-threaded: the simulation thread's. Layer: libxsim/runtime/core (xsim_core).
#pragma once
#include <cstdint>

#include "fiber_switch.hpp"  // records.hpp uses its FiberStack
#include "records.hpp"

namespace xsim::message_alloc {

struct FreeBlock {
  FreeBlock* next;
};
constexpr uint64_t kSmallBlock[2] = {64, 128};
constexpr uint64_t kSmallPayload = kSmallBlock[1] - sizeof(Message);
extern FreeBlock* g_free_small[2];

// Out of line: a new slab for free list `c` (returns its first block); a large block; the failure.
FreeBlock* refill_small(int c);
void* large_alloc(uint64_t payload);
[[noreturn]] void failed(uint64_t bytes);

// Message::create, inline into the engine's own sends. The size and the kind (kData) are written as one word.
[[gnu::always_inline]] inline Message* make(uint64_t bytes) {
  void* p;
  if (bytes <= kSmallPayload) [[likely]] {
    const int c = bytes > Message::kLinePayload;
    FreeBlock* b = g_free_small[c];
    if (!b) [[unlikely]] b = refill_small(c);
    g_free_small[c] = b->next;
    p = b;
  } else {
    p = bytes <= Message::kMaxBytes ? large_alloc(bytes) : nullptr;
    if (!p) [[unlikely]] failed(bytes);
  }
  Message* m = static_cast<Message*>(p);
  m->size_kind = bytes;  // kind kData
  return m;
}

}  // namespace xsim::message_alloc
