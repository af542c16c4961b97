// The message allocator (message_alloc.hpp).
#include "message_alloc.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace xsim {
namespace message_alloc {

FreeBlock* g_free_small[2] = {nullptr, nullptr};

namespace {
constexpr size_t kSlabBytes = size_t{64} << 10;  // small blocks are carved 64-byte aligned from slabs
constexpr int kLargeClasses = 28;                 // large blocks up to 2^27 bytes (128 MiB) are kept
constexpr uint64_t kLargeCacheBytes = uint64_t{128} << 20;
FreeBlock* g_free_large[kLargeClasses] = {};
uint64_t g_large_cached = 0;  // bytes of blocks on the large free lists
int large_class(uint64_t block) { return 64 - __builtin_clzll(block - 1); }  // ceil(log2(block)), block > 1

void large_free(void* p, uint64_t payload) {
  if constexpr (XSIM_ASAN) return std::free(p);  // AddressSanitizer sees every large message's lifetime
  const int c = large_class(sizeof(Message) + payload);
  if (c >= kLargeClasses || g_large_cached + (uint64_t{1} << c) > kLargeCacheBytes) return std::free(p);
  auto* b = static_cast<FreeBlock*>(p);
  b->next = g_free_large[c];
  g_free_large[c] = b;
  g_large_cached += uint64_t{1} << c;
}
}  // namespace

// Ends the run naming the rank and the call (api_support.hpp's guarded). Out of line: keeps make small.
[[gnu::cold, gnu::noinline]] void failed(uint64_t bytes) {
  throw std::runtime_error("out of memory: cannot allocate a message of " + std::to_string(bytes) + " bytes");
}

// The slab's blocks go on the list in address order (first block first).
[[gnu::noinline]] FreeBlock* refill_small(int c) {
  char* slab = static_cast<char*>(std::aligned_alloc(64, kSlabBytes));
  if (!slab) failed(kSmallBlock[c] - sizeof(Message));
  for (size_t at = kSlabBytes; at >= kSmallBlock[c]; at -= kSmallBlock[c]) {
    auto* b = reinterpret_cast<FreeBlock*>(slab + at - kSmallBlock[c]);
    b->next = g_free_small[c];
    g_free_small[c] = b;
  }
  return g_free_small[c];
}

void* large_alloc(uint64_t payload) {
  const uint64_t block = sizeof(Message) + payload;
  const int c = large_class(block);
  if (c >= kLargeClasses) return std::malloc(block);
  if (FreeBlock* b = g_free_large[c]) {
    g_free_large[c] = b->next;
    g_large_cached -= uint64_t{1} << c;
    return b;
  }
  return std::malloc(uint64_t{1} << c);
}

}  // namespace message_alloc

Message* Message::create(uint64_t bytes) { return message_alloc::make(bytes); }

Message* Message::create_folded(uint64_t bytes) {
  void* p = message_alloc::large_alloc(kFoldedPayload);
  if (!p) message_alloc::failed(kFoldedPayload);
  Message* m = static_cast<Message*>(p);
  m->size_kind = bytes | kFoldedBit;  // kind kData
  return m;
}

void Message::destroy(Message* m) {
  using namespace message_alloc;
  const uint64_t bytes = m->stored_bytes();
  if (bytes <= kSmallPayload) [[likely]] {
    const int c = bytes > kLinePayload;
    auto* b = reinterpret_cast<FreeBlock*>(m);
    b->next = g_free_small[c];
    g_free_small[c] = b;
  } else {
    large_free(m, bytes);
  }
}

}  // namespace xsim
