// Memory folding (-xsim-fold SIZE; docs/real-programs.md "Memory folding"): libxsim interposes malloc,
// calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc and
// malloc_usable_size (C++ new and Fortran ALLOCATE reach malloc). Folding off (the default, and every
// process that is not a simulation: mpiexec under LD_PRELOAD), each call is one comparison with a global
// and glibc's own function (__libc_malloc & co.; no dlsym on the way).
// Folding on, a request of at least SIZE bytes that a virtual rank's application code makes on the
// simulation thread outside an MPI call gets a block of one reserved address range (fold_range.hpp), laid
// out as: private pages holding its first and last kEdge (4 KiB) bytes (contents kept), and in between
// the one shared block of kSharedBytes every folded allocation maps again and again (contents meaningless:
// all ranks write the same pages), so that memory stays bounded whatever the program writes. The
// bookkeeping is FoldArena's (core/fold_arena.hpp): a freed block goes back to its size class's free list
// without a system call, and its next use remaps only its edges when they moved.
// Not compiled under AddressSanitizer (it replaces malloc itself); -xsim-fold is refused there.
// Layer: libxsim/runtime/process (xsim_process); exported through exports.map.
#include "fold_malloc.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <utility>
#include <new>
#include <string>

#include "api_support.hpp"
#include "engine.hpp"
#include "fold_range.hpp"
#include "native/exchange.hpp"
#include "xsim/units.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define XSIM_FOLD_AVAILABLE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XSIM_FOLD_AVAILABLE 0
#endif
#endif
#ifndef XSIM_FOLD_AVAILABLE
#define XSIM_FOLD_AVAILABLE 1
#endif

#if XSIM_FOLD_AVAILABLE
namespace xsim::fold {
namespace {

constexpr uint64_t kSharedBytes = uint64_t{256} << 20;  // the shared block: the most folded memory costs
constexpr uint64_t kReserveMax = uint64_t{64} << 40;    // half of x86-64's 128 TiB of user address space
constexpr uint64_t kReserveMin = uint64_t{1} << 40;

uint64_t g_threshold = UINT64_MAX;  // requests of at least this many bytes may fold: the off path's one test
alignas(FoldArena) unsigned char g_arena_storage[sizeof(FoldArena)];
FoldArena* g_arena = nullptr;
int g_memfd = -1;
bool g_shared_backing = false;  // -xsim-fold SIZE:shared (map_shared maps the shared block)
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;  // a native thread may free folded memory
bool g_busy = false;                         // inside the arena: its own allocations never fold

struct Guard {
  Guard() {
    while (g_lock.test_and_set(std::memory_order_acquire)) {
    }
    g_busy = true;
  }
  ~Guard() {
    g_busy = false;
    g_lock.clear(std::memory_order_release);
  }
};

char* at(uint64_t off) { return reinterpret_cast<char*>(g_state.base + off); }

int g_map_errno = 0;  // the first failed mmap's errno while mapping a block

long max_map_count() {
  FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r");
  long n = -1;
  if (f) {
    if (std::fscanf(f, "%ld", &n) != 1) n = -1;
    std::fclose(f);
  }
  return n;
}

// Stops the run: the folded address space is used up (`mapping` false) or a mapping failed (all of the folded
// range below `mapped_end` was mapped whole).
[[noreturn, gnu::cold]] void die(bool mapping, uint64_t bytes, uint64_t mapped_end = 0) {
  const std::string live = format_size(g_arena->live_bytes()), cap = format_size(g_state.len);
  if (mapping)
    std::fprintf(stderr,
                 "xsim: -xsim-fold: mapping a folded allocation of %llu bytes failed (mmap: %s; %s live in folded "
                 "allocations): a process may hold vm.max_map_count = %ld mappings, and each folded allocation "
                 "takes about four, plus one per 256 MiB of its size. Raise it (sysctl -w vm.max_map_count=1048576, "
                 "as root), or run with more native processes (mpiexec -n), each of which folds its own ranks' memory.\n",
                 static_cast<unsigned long long>(bytes), std::strerror(g_map_errno), live.c_str(), max_map_count());
  else
    std::fprintf(stderr,
                 "xsim: -xsim-fold: the folded address space of this native process (%s) is exhausted by a folded "
                 "allocation of %llu bytes (%s live in folded allocations). Run with more native processes "
                 "(mpiexec -n), each of which folds its own ranks' memory, or raise -xsim-fold so that fewer "
                 "allocations fold.\n",
                 cap.c_str(), static_cast<unsigned long long>(bytes), live.c_str());
  std::fflush(stderr);
  // Folded memory is dropped, so that the native MPI's abort finds mappings to allocate: unmapped (mmap
  // refuses while the process is over its limit, which a failed MAP_FIXED leaves it), up to the slot that
  // failed, whose ends are mapping boundaries already (a split would need a mapping more).
  if (mapping && mapped_end > 0) munmap(at(0), mapped_end);
  native::abort_all(1);
  std::_Exit(1);
}

void note_map_failure(void* r) {
  if (r == MAP_FAILED && g_map_errno == 0) g_map_errno = errno;
}

// Maps [first, end) to the shared block: file offset = address offset modulo its size, so that adjacent
// spans line up in the file and the kernel merges their mappings.
void map_shared(uint64_t first, uint64_t end) {
  if (!g_shared_backing) {  // private backing: memory only where the rank writes (one mapping, merged)
    if (first < end)
      note_map_failure(mmap(at(first), end - first, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0));
    return;
  }
  while (first < end) {
    const uint64_t off = first % kSharedBytes, n = std::min(end - first, kSharedBytes - off);
    note_map_failure(
        mmap(at(first), n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, g_memfd, static_cast<off_t>(off)));
    first += n;
  }
}
void map_private(Span s) {
  if (s.first < s.end)
    note_map_failure(mmap(at(s.first), s.end - s.first, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0));
}
bool overlap(Span a, Span b) { return a.first < b.end && b.first < a.end; }

void release(Span s) {
  if (s.first < s.end) madvise(at(s.first), s.end - s.first, MADV_DONTNEED);
}

// Private backing: what a rank wrote into a folded block goes back to the system after the block is freed,
// but not at once, and not always. HPL frees and allocates its panel buffers every iteration, and each
// receive into them would otherwise fault its pages in again (a third of the simulator's time at 1,024
// ranks). So a freed block's resident pages (counted with mincore) wait, oldest first, until kPendingBytes
// of them wait; then the oldest go back (one madvise each). A block whose slot is taken again before that
// keeps the pages inside its new range (the rest go back), as long as the pages so kept by live blocks stay
// under kRetainedBytes; past that the reused slot gives all of them back. The resident folded memory is
// then what the live blocks wrote themselves, plus at most kPendingBytes + kRetainedBytes.
constexpr uint64_t kPendingBytes = uint64_t{128} << 20;
constexpr uint64_t kRetainedBytes = uint64_t{1} << 30;
struct PendingBlock {
  uint64_t user, bytes, resident, gen;
};
std::unordered_map<uint64_t, PendingBlock>* g_pending = nullptr;  // by slot
std::deque<std::pair<uint64_t, uint64_t>>* g_pending_order = nullptr;  // (slot, gen), oldest first
std::unordered_map<uint64_t, uint64_t>* g_retained = nullptr;  // by slot of a live block: bytes it kept
uint64_t g_pending_bytes = 0, g_retained_bytes = 0, g_pending_gen = 0;

Span pages(uint64_t first, uint64_t end) {
  return {first & ~uint64_t{4095}, (end + 4095) & ~uint64_t{4095}};
}

// Resident bytes of the pages of s (mincore, 16 MiB at a time).
uint64_t resident_bytes(Span s) {
  static unsigned char vec[4096];
  uint64_t n = 0;
  for (uint64_t at = s.first; at < s.end; at += sizeof vec * 4096) {
    const uint64_t len = std::min<uint64_t>(s.end - at, sizeof vec * 4096);
    if (mincore(fold::at(at), len, vec) != 0) return len;  // unknown: counted as resident
    for (uint64_t i = 0; i < (len + 4095) / 4096; ++i) n += vec[i] & 1;
  }
  return n * 4096;
}

void release_oldest_pending() {
  while (g_pending_bytes > kPendingBytes && !g_pending_order->empty()) {
    const auto [slot, gen] = g_pending_order->front();
    g_pending_order->pop_front();
    auto it = g_pending->find(slot);
    if (it == g_pending->end() || it->second.gen != gen) continue;  // taken again meanwhile
    release(pages(it->second.user, it->second.user + it->second.bytes));
    g_pending_bytes -= it->second.resident;
    g_pending->erase(it);
  }
}

// A freed block's range waits to go back (fold_free).
void pend(uint64_t slot, uint64_t user, uint64_t bytes) {
  if (!g_pending) {
    g_pending = new std::unordered_map<uint64_t, PendingBlock>();
    g_pending_order = new std::deque<std::pair<uint64_t, uint64_t>>();
    g_retained = new std::unordered_map<uint64_t, uint64_t>();
  }
  if (auto r = g_retained->find(slot); r != g_retained->end()) {
    g_retained_bytes -= r->second;
    g_retained->erase(r);
  }
  const uint64_t resident = resident_bytes(pages(user, user + bytes));
  if (resident == 0) return;  // nothing to give back
  g_pending->insert_or_assign(slot, PendingBlock{user, bytes, resident, ++g_pending_gen});
  g_pending_order->emplace_back(slot, g_pending_gen);
  g_pending_bytes += resident;
  release_oldest_pending();
  // Entries of slots taken again stay in the order until they reach its front; when they outnumber the
  // waiting blocks, the order keeps only the live ones (amortised O(1) per free, bounded memory).
  if (g_pending_order->size() > 2 * g_pending->size() + 1024) {
    std::deque<std::pair<uint64_t, uint64_t>> live;
    for (const auto& [s, gen] : *g_pending_order)
      if (auto it = g_pending->find(s); it != g_pending->end() && it->second.gen == gen) live.emplace_back(s, gen);
    g_pending_order->swap(live);
  }
}

// A reused slot, private backing: if its last block still waits, what lies outside the new block goes back
// now and the rest is the new block's (within kRetainedBytes); a calloc'd block (zero) gets all of it
// back, to read zero.
void reuse_private(const FoldArena::Block& b, uint64_t bytes, bool zero) {
  if (!g_pending) return;
  auto it = g_pending->find(b.slot);
  if (it == g_pending->end()) return;  // given back already
  const PendingBlock old = it->second;
  g_pending_bytes -= old.resident;
  g_pending->erase(it);
  const Span was = pages(old.user, old.user + old.bytes);
  if (zero || g_retained_bytes + old.resident > kRetainedBytes) return release(was);
  const Span now = pages(b.user, b.user + bytes);
  release(Span{was.first, std::min(was.end, now.first)});
  release(Span{std::max(was.first, now.end), was.end});
  (*g_retained)[b.slot] = old.resident;
  g_retained_bytes += old.resident;
}

// Maps a block's slot for its use: a fresh slot whole; a reused one only where its private edges moved.
void map_block(const FoldArena::Block& b) {
  const Span head = b.head;
  const Span tail = overlap(b.head, b.tail) ? Span{b.head.first, b.tail.end} : b.tail;
  if (b.fresh) {
    map_shared(b.slot, head.first);
    map_private(head);
    map_shared(head.end, tail.first);
    if (tail.first >= head.end) map_private(tail);
    map_shared(std::max(head.end, tail.end), b.slot + b.slot_bytes);
    return;
  }
  if (b.head == b.old_head && b.tail == b.old_tail) return;
  if (b.head == b.old_head && !overlap(b.old_tail, b.head) && !overlap(b.tail, b.head)) {
    map_shared(b.old_tail.first, b.old_tail.end);  // the usual move: the same head, another tail
    map_private(b.tail);
    return;
  }
  map_shared(b.old_head.first, b.old_head.end);
  map_shared(b.old_tail.first, b.old_tail.end);
  map_private(b.head);
  map_private(b.tail);
}

void zero_edges(const FoldArena::Block& b, uint64_t bytes) {
  const uint64_t h = std::min(bytes, kEdge);
  std::memset(at(b.user), 0, h);
  if (bytes > h) {
    const uint64_t t = std::min(bytes - h, kEdge);
    std::memset(at(b.user + bytes - t), 0, t);
  }
}

// Whether the caller is a virtual rank's application code: the simulation thread, a rank running, outside
// its MPI calls (xsim's, MPICH's, the scheduler's and start-up's allocations never fold).
bool rank_code() {
  if (!t_simulation_thread || g_busy) return false;
  Engine* e = g_engine;
  return e && e->in_rank() && e->current().mpi_depth == 0;
}

// A folded block of `bytes`, or nullptr when this request does not fold.
void* fold_alloc(uint64_t bytes, uint64_t align, bool zero) {
  // A request larger than the whole folded range goes to glibc, which refuses it as natively (ENOMEM).
  if (!g_arena || !rank_code() || align > FoldArena::kMaxAlign || bytes > g_state.len / 2) return nullptr;
  Guard g;
  std::optional<FoldArena::Block> b = g_arena->take(bytes, align);
  if (!b) die(false, bytes);
  if (!g_shared_backing && !b->fresh) {
    reuse_private(*b, bytes, zero);  // one private mapping already covers the slot
  } else {
    map_block(*b);
    if (g_map_errno) die(true, bytes, b->fresh ? b->slot : 0);
    if (zero && !b->fresh) zero_edges(*b, bytes);
  }
  g_state.allocations = g_arena->allocations();
  g_state.peak_bytes = g_arena->peak_live_bytes();
  return at(b->user);
}

void fold_free(void* p) {
  Guard g;
  const uint64_t off = reinterpret_cast<uintptr_t>(p) - g_state.base;
  const uint64_t n = g_arena ? g_arena->size_of(off) : 0;
  const uint64_t slot = g_arena ? g_arena->slot_of(off) : UINT64_MAX;
  if (!g_arena || !g_arena->give(off)) {
    std::fprintf(stderr, "xsim: -xsim-fold: free() of %p, inside the folded address space but not the start "
                 "of a live folded allocation (a double free or a bad pointer)\n", p);
    std::abort();
  }
  // Private backing: what the rank wrote goes back to the system later, unless the slot is reused first (the
  // slot is reused by any rank, for any size of its class: written pages would otherwise stay resident for
  // good). See pend.
  if (!g_shared_backing && n > 0) pend(slot, off, n);
}

uint64_t fold_size(const void* p) {
  Guard g;
  return g_arena->size_of(reinterpret_cast<uintptr_t>(p) - g_state.base);
}

// Copies what folded memory keeps of `n` bytes (the first and last kEdge) from `src` to `dst`.
void copy_edges(void* dst, const void* src, uint64_t n) {
  const uint64_t h = std::min(n, kEdge);
  std::memcpy(dst, src, h);
  if (n > h) {
    const uint64_t t = std::min(n - h, kEdge);
    std::memcpy(static_cast<char*>(dst) + n - t, static_cast<const char*>(src) + n - t, t);
  }
}

size_t libc_usable_size(void* p) {
  using Fn = size_t (*)(void*);
  static Fn real = reinterpret_cast<Fn>(dlvsym(RTLD_NEXT, "malloc_usable_size", "GLIBC_2.2.5"));
  return real ? real(p) : 0;
}

}  // namespace

std::string start(uint64_t threshold, bool shared) {
  if (threshold == 0) return {};
  g_shared_backing = shared;
  void* r = MAP_FAILED;
  uint64_t len = kReserveMax;
  for (; len >= kReserveMin; len /= 2) {
    r = mmap(nullptr, len + FoldArena::kMaxAlign, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r != MAP_FAILED) break;
  }
  if (r == MAP_FAILED)
    return "-xsim-fold: cannot reserve 1 TiB of address space for folded memory (ulimit -v?); raise the "
           "address space limit or run without -xsim-fold";
  g_memfd = memfd_create("xsim-fold", MFD_CLOEXEC);
  if (g_memfd < 0 || ftruncate(g_memfd, static_cast<off_t>(kSharedBytes)) != 0)
    return std::string("-xsim-fold: cannot create the shared block (memfd_create: ") + std::strerror(errno) + ")";
  const uintptr_t a = reinterpret_cast<uintptr_t>(r);
  g_state.base = (a + FoldArena::kMaxAlign - 1) / FoldArena::kMaxAlign * FoldArena::kMaxAlign;
  g_arena = new (g_arena_storage) FoldArena(len);
  g_state.threshold = threshold;
  g_state.shared_bytes = kSharedBytes;
  g_state.len = len;
  g_threshold = threshold;
  return {};
}
bool available() { return true; }

}  // namespace xsim::fold

using namespace xsim::fold;
#define XSIM_MALLOC_EXPORT extern "C" __attribute__((visibility("default")))

extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void* __libc_valloc(size_t);
void* __libc_pvalloc(size_t);
}

XSIM_MALLOC_EXPORT void* malloc(size_t n) {
  if (n >= g_threshold) [[unlikely]]
    if (void* p = fold_alloc(n, kPage, false)) return p;
  return __libc_malloc(n);
}

XSIM_MALLOC_EXPORT void free(void* p) {
  if (folded(p)) [[unlikely]] return fold_free(p);
  __libc_free(p);
}

XSIM_MALLOC_EXPORT void* calloc(size_t n, size_t m) {
  size_t total;
  if (!__builtin_mul_overflow(n, m, &total) && total >= g_threshold) [[unlikely]]
    if (void* p = fold_alloc(total, kPage, true)) return p;
  return __libc_calloc(n, m);
}

XSIM_MALLOC_EXPORT void* realloc(void* p, size_t n) {
  const bool from_fold = folded(p);
  if (!from_fold && n < g_threshold) [[likely]] return __libc_realloc(p, n);
  if (!p) return malloc(n);
  if (n == 0) {  // as glibc: frees and returns a null pointer
    free(p);
    return nullptr;
  }
  const uint64_t old = from_fold ? fold_size(p) : libc_usable_size(p);
  void* q = n >= g_threshold ? fold_alloc(n, kPage, false) : nullptr;
  if (!q && !from_fold) return __libc_realloc(p, n);  // this request does not fold
  if (!q && !(q = __libc_malloc(n))) return nullptr;
  copy_edges(q, p, std::min<uint64_t>(old, n));  // what folded memory keeps of the common part
  free(p);
  return q;
}

XSIM_MALLOC_EXPORT void* reallocarray(void* p, size_t n, size_t m) {
  size_t total;
  if (__builtin_mul_overflow(n, m, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, total);
}

XSIM_MALLOC_EXPORT void* memalign(size_t align, size_t n) {
  if (n >= g_threshold) [[unlikely]]
    if ((align & (align - 1)) == 0)
      if (void* p = fold_alloc(n, align, false)) return p;
  return __libc_memalign(align, n);
}

XSIM_MALLOC_EXPORT void* aligned_alloc(size_t align, size_t n) { return memalign(align, n); }

XSIM_MALLOC_EXPORT int posix_memalign(void** out, size_t align, size_t n) {
  if (align % sizeof(void*) != 0 || (align & (align - 1)) != 0 || align == 0) return EINVAL;
  void* p = memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

XSIM_MALLOC_EXPORT void* valloc(size_t n) {
  if (n >= g_threshold) [[unlikely]]
    if (void* p = fold_alloc(n, kPage, false)) return p;
  return __libc_valloc(n);
}

XSIM_MALLOC_EXPORT void* pvalloc(size_t n) {
  const size_t r = (n + kPage - 1) / kPage * kPage;
  if (r >= g_threshold && r >= n) [[unlikely]]
    if (void* p = fold_alloc(r, kPage, false)) return p;
  return __libc_pvalloc(n);
}

XSIM_MALLOC_EXPORT size_t malloc_usable_size(void* p) {
  if (folded(p)) [[unlikely]] return fold_size(p);
  return p ? libc_usable_size(p) : 0;
}

#else  // AddressSanitizer replaces malloc: no folding

namespace xsim::fold {
std::string start(uint64_t threshold, bool) {
  if (threshold == 0) return {};
  return "-xsim-fold is not available in a build with AddressSanitizer (it replaces malloc itself); use a "
         "build without XSIM_SANITIZE=address, or run without -xsim-fold";
}
bool available() { return false; }
}  // namespace xsim::fold

#endif
