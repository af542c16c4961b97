/* Memory folding (-xsim-fold, docs/real-programs.md "Memory folding"). Run with -xsim-fold 1M and the
 * argument "fold", or without folding and "plain": both runs must print the same lines (the virtual times
 * of the messages among them), on any number of native processes (tests/mpi/fold.sh compares them).
 * What each rank checks (a failed check prints "FAIL" and the run exits 1):
 *  - small allocations (under 1M) keep their contents while folded memory around them is written;
 *  - the first and last 4K of folded allocations are kept (malloc, calloc, realloc, posix_memalign,
 *    aligned_alloc, memalign, valloc, new[]), alignment is honoured, calloc's first and last 4K read zero,
 *    malloc_usable_size covers the request;
 *  - thousands of malloc/free cycles of shrinking sizes (HPL's panels) do not grow the resident memory;
 *  - a block written all over, freed and calloc'd again at its size reads zero;
 *  - "fold": writing all of 2 x 48 MiB per rank costs far less than that (the memory is shared);
 *  - messages of 4 MiB from folded into folded, folded into plain, plain into folded memory (rank r and
 *    r + NP/2: in another native process when there are two) deliver their first and last 4K and the full
 *    count (MPI_Get_count), at the same virtual times as without folding;
 *  - the same for a derived datatype (HPL's panel: a struct of folded columns and plain pivots).
 * With the argument "exhaust", each rank holds folded allocations of 1 TiB until the run stops with a
 * message naming -xsim-fold (the mappings or the address space run out). */
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

namespace {

int g_fail = 0;
int g_me = 0;
#define CHECK(c, ...)                                    \
  do {                                                   \
    if (!(c)) {                                          \
      printf("rank %d: FAIL %s: ", g_me, #c);            \
      printf(__VA_ARGS__);                               \
      printf("\n");                                      \
      g_fail = 1;                                        \
    }                                                    \
  } while (0)

constexpr size_t kEdge = 4096;
constexpr size_t kMsg = size_t{4} << 20;
unsigned char g_plain_send[kMsg];  // not heap: never folded
unsigned char g_plain_recv[kMsg];

void fill_edges(void* p, size_t n, unsigned seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (size_t i = 0; i < kEdge && i < n; ++i) b[i] = static_cast<unsigned char>(seed + i * 7);
  for (size_t i = n > kEdge ? n - kEdge : 0; i < n; ++i) b[i] = static_cast<unsigned char>(seed + i * 13);
}
bool edges_ok(const void* p, size_t n, unsigned seed) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < kEdge && i < n; ++i)
    if (b[i] != static_cast<unsigned char>(seed + i * 7)) return false;
  for (size_t i = n > kEdge ? n - kEdge : 0; i < n; ++i)
    if (b[i] != static_cast<unsigned char>(seed + i * 13)) return false;
  return true;
}
bool edges_zero(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < kEdge && i < n; ++i)
    if (b[i]) return false;
  for (size_t i = n > kEdge ? n - kEdge : 0; i < n; ++i)
    if (b[i]) return false;
  return true;
}
bool head_ok(const void* p, unsigned seed) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < kEdge; ++i)
    if (b[i] != static_cast<unsigned char>(seed + i * 7)) return false;
  return true;
}
// The process's proportional set size: physical memory, each page once however often it is mapped (RSS
// counts the shared block's pages once per mapping, and every folded allocation maps them again).
long pss_kib() {
  FILE* f = fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "Pss:", 4)) kib = atol(line + 4);
  if (f) fclose(f);
  return kib;
}

void allocators() {
  const unsigned s = 10u * static_cast<unsigned>(g_me);
  char* small = static_cast<char*>(malloc(1000));
  char* under = static_cast<char*>(malloc((1u << 20) - 1));
  memset(small, 0x5a, 1000);
  memset(under, 0xa5, (1u << 20) - 1);
  void* a = malloc(3u << 20);
  fill_edges(a, 3u << 20, s + 1);
  void* c = calloc(5, 1u << 20);
  CHECK(edges_zero(c, 5u << 20), "calloc's edges read zero");
  memset(c, 0xff, 5u << 20);  // all of it: shared middle, private edges
  CHECK(edges_ok(a, 3u << 20, s + 1), "malloc keeps its first and last 4K");
  free(c);
  c = calloc(5u << 20, 1);  // reuses the slot just freed
  CHECK(edges_zero(c, 5u << 20), "a reused slot's calloc edges read zero");
  void* pm = nullptr;
  CHECK(posix_memalign(&pm, 1u << 16, 2u << 20) == 0 && (reinterpret_cast<uintptr_t>(pm) & 0xffff) == 0,
        "posix_memalign 64K");
  fill_edges(pm, 2u << 20, s + 2);
  void* aa = aligned_alloc(2u << 20, 4u << 20);
  CHECK(aa && (reinterpret_cast<uintptr_t>(aa) & ((2u << 20) - 1)) == 0, "aligned_alloc 2M");
  fill_edges(aa, 4u << 20, s + 3);
  void* ma = memalign(4096, (1u << 20) + 123);
  CHECK(ma && (reinterpret_cast<uintptr_t>(ma) & 4095) == 0, "memalign");
  fill_edges(ma, (1u << 20) + 123, s + 4);
  void* va = valloc(6u << 20);
  CHECK(va && (reinterpret_cast<uintptr_t>(va) & 4095) == 0, "valloc");
  double* nd = new double[300000];
  fill_edges(nd, 300000 * sizeof(double), s + 5);
  CHECK(malloc_usable_size(a) >= (3u << 20), "malloc_usable_size %zu", malloc_usable_size(a));
  a = realloc(a, 7u << 20);  // grow: the first 4K and the old last 4K (same offsets) kept
  CHECK(head_ok(a, s + 1), "realloc grow keeps the first 4K");
  fill_edges(a, 7u << 20, s + 6);
  a = realloc(a, 2u << 20);  // shrink: the first 4K kept
  CHECK(head_ok(a, s + 6), "realloc shrink keeps the first 4K");
  char* grow = static_cast<char*>(malloc(100000));  // plain, then folded by realloc
  memset(grow, 0x33, 100000);
  grow = static_cast<char*>(realloc(grow, 3u << 20));
  bool kept = true;
  for (size_t i = 0; i < kEdge; ++i) kept &= grow[i] == 0x33;
  CHECK(kept, "realloc from plain to folded keeps the first 4K");
  memset(va, 1, 6u << 20);  // more writes into folded memory
  CHECK(edges_ok(pm, 2u << 20, s + 2), "posix_memalign edges");
  CHECK(edges_ok(aa, 4u << 20, s + 3), "aligned_alloc edges");
  CHECK(edges_ok(ma, (1u << 20) + 123, s + 4), "memalign edges");
  CHECK(edges_ok(nd, 300000 * sizeof(double), s + 5), "new[] edges");
  bool small_ok = true;
  for (int i = 0; i < 1000; ++i) small_ok &= small[i] == 0x5a;
  for (size_t i = 0; i < (1u << 20) - 1; ++i) small_ok &= static_cast<unsigned char>(under[i]) == 0xa5;
  CHECK(small_ok, "allocations under the fold size keep all their contents");
  delete[] nd;
  free(a), free(c), free(pm), free(aa), free(ma), free(va), free(grow), free(small), free(under);
}

// HPL's pattern: a panel buffer allocated and freed every iteration, a little smaller each time, its edges
// written. Resident memory must not grow with the iterations.
void cycles(int iters) {
  long before = 0;
  for (int i = 0; i < iters; ++i) {
    if (i == 64) before = pss_kib();
    const size_t n = (size_t{8} << 20) - static_cast<size_t>(i) * 1000;
    void* p = malloc(n);
    void* q = malloc(n / 3);
    fill_edges(p, n, static_cast<unsigned>(i));
    fill_edges(q, n / 3, static_cast<unsigned>(i));
    CHECK(edges_ok(p, n, static_cast<unsigned>(i)), "cycle %d", i);
    free(q);
    free(p);
  }
  const long grew = pss_kib() - before;
  CHECK(grew < 16 * 1024, "physical memory (PSS) grew by %ld KiB over %d malloc/free cycles", grew, iters);
}

// A block written all over and freed, then calloc'd at the same size (its slot reused while its pages may
// still be kept, private backing): every byte reads zero.
void calloc_after_reuse(bool shared) {
  const size_t n = size_t{3} << 20;
  for (int round = 0; round < 3; ++round) {
    char* p = static_cast<char*>(malloc(n));
    memset(p, 0x77, n);
    free(p);
    unsigned char* z = static_cast<unsigned char*>(calloc(n, 1));
    bool zero = true;
    // with the shared backing only the head and tail are zeroed (docs/real-programs.md)
    for (size_t i = 0; i < n; ++i)
      if (!shared || i < kEdge || i >= n - kEdge) zero &= z[i] == 0;
    CHECK(zero, "round %d: calloc after a written block of the same size reads zero", round);
    free(z);
  }
}

// With the shared backing (-xsim-fold 1M:shared), writing all of 2 x 48 MiB per rank must not cost that much
// physical memory (with the private backing, the default, what a rank writes is its own and costs memory).
void bounded(bool shared) {
  const size_t n = size_t{48} << 20;
  long before = pss_kib();
  char* a = static_cast<char*>(malloc(n));
  char* b = static_cast<char*>(malloc(n));
  memset(a, 1, n);
  memset(b, 2, n);
  MPI_Barrier(MPI_COMM_WORLD);  // every rank of the process holds its two buffers now
  const long grew = pss_kib() - before;
  // Folded: at most the shared block (256 MiB) and each buffer's edges, whatever the ranks write; not
  // folded, 8 ranks write 768 MiB.
  if (shared) CHECK(grew < 300 * 1024, "physical memory (PSS) grew by %ld KiB", grew);
  free(a);
  free(b);
}

// HPL's panel: a struct of three 1 MiB columns of a folded buffer (the first at its start, the last at its
// end, so that the stream's head and tail lie in the buffer's kept edges) and 16 pivots in plain memory,
// last ("tail": a folded message under folding) or between the columns ("middle": packed whole). Checked:
// the stream's first 4K and the last 4K less the pivots land where the type map puts them, the pivots
// arrive exactly, and the count is the full one; the times are printed (the same folded and not).
int g_piv_send[16], g_piv_recv[16];  // not heap: never folded
MPI_Datatype panel_type(unsigned char* buf, int* piv, bool piv_last) {
  constexpr size_t kCol = size_t{1} << 20;
  unsigned char* col[3] = {buf, buf + kMsg / 2 - kCol / 2, buf + kMsg - kCol};
  void* const p = piv;
  void* at[4] = {col[0], piv_last ? col[1] : p, piv_last ? col[2] : col[1], piv_last ? p : col[2]};
  int lens[4];
  MPI_Aint displs[4], origin;
  MPI_Datatype types[4];
  MPI_Get_address(buf, &origin);
  for (int i = 0; i < 4; ++i) {
    const bool is_piv = at[i] == p;
    lens[i] = is_piv ? 16 : static_cast<int>(kCol / sizeof(double));
    types[i] = is_piv ? MPI_INT : MPI_DOUBLE;
    MPI_Get_address(at[i], &displs[i]);
    displs[i] -= origin;
  }
  MPI_Datatype t;
  MPI_Type_create_struct(4, lens, displs, types, &t);
  MPI_Type_commit(&t);
  return t;
}
void typed_messages(int peer, unsigned char* fs, unsigned char* fr) {
  const unsigned ps = 100u + static_cast<unsigned>(peer);
  for (int round = 3; round < 5; ++round) {
    const bool piv_last = round == 3;
    for (int i = 0; i < 16; ++i) g_piv_send[i] = 1000 * g_me + 10 * round + i, g_piv_recv[i] = -1;
    fill_edges(fs, kMsg, 100u + static_cast<unsigned>(g_me));
    memset(fr, 0, kEdge);
    memset(fr + kMsg - kEdge, 0, kEdge);
    MPI_Datatype ts = panel_type(fs, g_piv_send, piv_last), tr = panel_type(fr, g_piv_recv, piv_last);
    MPI_Status st;
    const double t0 = MPI_Wtime();
    MPI_Sendrecv(fs, 1, ts, peer, round, fr, 1, tr, peer, round, MPI_COMM_WORLD, &st);
    const double t1 = MPI_Wtime();
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == static_cast<int>(3 * (size_t{1} << 20) + 16 * sizeof(int)), "round %d: count %d", round, count);
    CHECK(head_ok(fr, ps), "round %d: the stream's first 4K arrived", round);
    const size_t tail_start = kMsg - (piv_last ? kEdge - 16 * sizeof(int) : kEdge);
    bool tail = true;
    for (size_t i = tail_start; i < kMsg; ++i) tail &= fr[i] == static_cast<unsigned char>(ps + i * 13);
    CHECK(tail, "round %d: the stream's last bytes arrived", round);
    bool piv = true;
    for (int i = 0; i < 16; ++i) piv &= g_piv_recv[i] == 1000 * peer + 10 * round + i;
    CHECK(piv, "round %d: the pivots arrived", round);
    printf("rank %d: round %d: struct of %d bytes from rank %d, exchange took %.9f s\n", g_me, round, count, peer,
           t1 - t0);
    MPI_Type_free(&ts);
    MPI_Type_free(&tr);
  }
}

// Messages of kMsg bytes: folded -> folded, folded -> plain, plain -> folded, between ranks r and r + np/2.
void messages(int np) {
  const int half = np / 2, peer = g_me < half ? g_me + half : g_me - half;  // another native process with N=2
  if (peer >= np || np % 2) return;
  unsigned char* fs = static_cast<unsigned char*>(malloc(kMsg));
  unsigned char* fr = static_cast<unsigned char*>(malloc(kMsg));
  const unsigned s = 100u + static_cast<unsigned>(g_me), ps = 100u + static_cast<unsigned>(peer);
  fill_edges(fs, kMsg, s);
  fill_edges(g_plain_send, kMsg, s + 50);
  memset(fr, 0, kMsg);
  memset(g_plain_recv, 0, kMsg);
  MPI_Status st;
  int count = 0;
  for (int round = 0; round < 3; ++round) {
    const void* from = round == 2 ? static_cast<const void*>(g_plain_send) : fs;
    void* into = round == 1 ? static_cast<void*>(g_plain_recv) : fr;
    const double t0 = MPI_Wtime();
    if (g_me < peer) {
      MPI_Send(from, static_cast<int>(kMsg), MPI_BYTE, peer, round, MPI_COMM_WORLD);
      MPI_Recv(into, static_cast<int>(kMsg), MPI_BYTE, peer, round, MPI_COMM_WORLD, &st);
    } else {
      MPI_Recv(into, static_cast<int>(kMsg), MPI_BYTE, peer, round, MPI_COMM_WORLD, &st);
      MPI_Send(from, static_cast<int>(kMsg), MPI_BYTE, peer, round, MPI_COMM_WORLD);
    }
    const double t1 = MPI_Wtime();
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == static_cast<int>(kMsg), "round %d: count %d", round, count);
    CHECK(edges_ok(into, kMsg, round == 2 ? ps + 50 : ps), "round %d: the first and last 4K arrived", round);
    printf("rank %d: round %d: %d bytes from rank %d, exchange took %.9f s\n", g_me, round, count, peer, t1 - t0);
  }
  typed_messages(peer, fs, fr);
  free(fs);
  free(fr);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc > 1 && !strcmp(argv[1], "exhaust")) {  // live folded allocations until the run stops
    for (int i = 0; i < 100000; ++i) {
      char* p = static_cast<char*>(malloc(size_t{1} << 40));
      if (!p) break;
      p[0] = 1;
    }
    printf("rank %d: folded address space not exhausted\n", g_me);
    MPI_Finalize();
    return 0;
  }
  const bool shared = argc > 1 && !strcmp(argv[1], "shared");  // "fold": the private backing
  const int iters = argc > 2 ? atoi(argv[2]) : 3000;
  allocators();
  cycles(iters);
  calloc_after_reuse(shared);
  bounded(shared);
  messages(np);
  int bad = 0;
  MPI_Allreduce(&g_fail, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_me == 0) printf("fold: %s\n", bad ? "FAILED" : "all checks passed");
  MPI_Finalize();
  return bad;
}
