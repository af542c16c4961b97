/* randprog.h — what the two halves of randprog share: limits, random numbers and digests, layouts and
 * buffers of random datatypes, reduction choices (randprog_data.c), used by the program generator and
 * runner (randprog.c). See randprog.c for what the program does. */
#pragma once
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 64     /* world ranks supported */
#define MAXSLOT 12  /* communicators alive at once (slot 0 is MPI_COMM_WORLD) */
#define MAXMSG 40   /* messages in one point-to-point step */
#define MAXRCV (MAXMSG + 4)
#define MAXBLK 8    /* blocks of an indexed/struct layout */
#define MAXPEND 6   /* nonblocking collectives in flight */
#define MAXW 8      /* alltoallw only on communicators this small */
#define GUARD 16    /* bytes after every receive buffer, digested: writes past the type map show */
#define TAG_CANCEL 32000 /* no message ever carries it: receives posted with it are cancelled */
#define BSEND_MAX 4096   /* buffered sends only up to this many bytes */
#define BSEND_BUF (4 << 20)

/* ---------------------------------------------------------------------------------------------------
 * Random numbers and digests */
static inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
typedef struct { uint64_t s; } Rng;
static inline uint64_t rnext(Rng *r) { r->s += 0x9e3779b97f4a7c15ULL; return mix64(r->s); }
static inline int rint_(Rng *r, int lo, int hi) { return lo + (int)(rnext(r) % (uint64_t)(hi - lo + 1)); }
static inline int rpct(Rng *r, int pct) { return (int)(rnext(r) % 100) < pct; }
static inline void shuffle(Rng *r, int *a, int n) {
  for (int i = n - 1; i > 0; i--) { int j = rint_(r, 0, i), t = a[i]; a[i] = a[j]; a[j] = t; }
}

static inline void hash_bytes(uint64_t *h, const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t x = *h ^ mix64(n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) { uint64_t w; memcpy(&w, b + i, 8); x = mix64(x ^ w); }
  uint64_t w = 0;
  memcpy(&w, b + i, n - i);
  *h = mix64(x ^ w ^ 0x5bd1e995ULL);
}
static inline void hash_int(uint64_t *h, int64_t v) { hash_bytes(h, &v, sizeof v); }
static inline void fill_random(void *p, size_t n, uint64_t seed) {
  unsigned char *b = p;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = mix64(seed + i);
    memcpy(b + i, &w, n - i < 8 ? n - i : 8);
  }
}

static inline void die(const char *what) {
  fprintf(stderr, "randprog: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 99);
}


enum { B_INT, B_DOUBLE, B_CHAR, B_SHORT, B_LL, B_S, NBASE };  /* B_S: struct {int; double; char[3]} */
enum { L_CONTIG, L_VECTOR, L_HVECTOR, L_INDEXED, L_HINDEXED, L_INDEXED_BLOCK, L_STRUCT, L_RESIZED, NLAYOUT };
typedef struct {
  int kind, base, variant; /* variant: B_S in natural (0) or packed (1) memory layout */
  int per;                 /* base elements in one instance of the type */
  int count;               /* instances: the count passed to MPI */
  int nblk, blen[MAXBLK], disp[MAXBLK]; /* indexed kinds: block lengths and displacements, in elements */
  int stride;              /* vector kinds: block stride in elements */
  int extra;               /* bytes added to the extent (MPI_Type_create_resized) */
} Layout;
typedef struct {
  MPI_Datatype s_nat, s_pack; /* the two memory layouts of B_S */
  MPI_Datatype mat;           /* 2x2 unsigned matrix: the user op's non-commutative element */
  MPI_Op op_ucomm, op_matmul, op_first, op_last;
} Types;
typedef struct {
  MPI_Datatype type;
  int owned, count;
  char *buf;
  size_t alloc;
} Buf;
enum { DT_INT, DT_DOUBLE, DT_UNSIGNED, DT_LL, DT_SHORT, DT_2INT, DT_DOUBLE_INT, DT_MAT, DT_FLOAT };
enum { V_SMALL, V_PROD, V_BITS, V_LOGIC, V_LOC };
enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_BAND, OP_BOR, OP_BXOR, OP_LAND, OP_LOR, OP_LXOR, OP_MAXLOC,
       OP_MINLOC, OP_UCOMM, OP_MATMUL, OP_FIRST, OP_LAST };
typedef struct { int dt, op, vals; const char *name; } RedChoice;
typedef struct { double v; int i; } DoubleInt;

extern const char *const layout_name[NLAYOUT];
extern const RedChoice reds[];
extern const int nreds;

int random_divisor(Rng *r, int n, int cap);
Layout make_layout(Rng *r, int base, int n, int single);
MPI_Datatype base_type(const Types *t, int base, int variant);
MPI_Datatype build_type(const Types *t, const Layout *L, int *owned);
size_t span_of(MPI_Datatype t, int count);
size_t walk(const Layout *L, MPI_Aint extent, int count, char *buf, char *stream, size_t nbytes, int to_stream);
void buf_make(Buf *b, const Types *t, const Layout *L, int units, int random, uint64_t seed);
void buf_free(Buf *b);
size_t dt_size(int dt);
MPI_Datatype dt_type(const Types *t, int dt);
MPI_Op op_handle(const Types *t, int op);
void op_ucomm_fn(void *in, void *inout, int *len, MPI_Datatype *dt);
void op_matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt);
void op_first_fn(void *in, void *inout, int *len, MPI_Datatype *dt);
void op_last_fn(void *in, void *inout, int *len, MPI_Datatype *dt);
void gen_values(void *buf, int dt, int vals, int count, int nranks, uint64_t seed);
void hash_values(uint64_t *h, const void *buf, int dt, int count);
size_t base_size(int base);
