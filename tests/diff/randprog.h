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

/* ---------------------------------------------------------------------------------------------------
 * The program state. Every rank holds the same generator state; slots describe communicators globally
 * (members in rank order) and hold this rank's handle. */
typedef struct {
  int live, size, members[MAXR];
  MPI_Comm comm;  /* MPI_COMM_NULL where this rank is not a member */
  int me;         /* this rank's rank in it, or -1 */
  int pending;    /* nonblocking collectives in flight on it */
} Slot;

enum { C_BARRIER, C_BCAST, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_ALLGATHER, C_ALLGATHERV,
       C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE, C_ALLREDUCE, C_REDUCE_SCATTER,
       C_REDUCE_SCATTER_BLOCK, C_SCAN, C_EXSCAN, NCOLL };
__attribute__((unused)) static const char *const coll_name[NCOLL] = {"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
  "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce",
  "reduce_scatter", "reduce_scatter_block", "scan", "exscan"};

/* One collective, as this rank sees it (its own layouts; counts and displacements it needs). */
typedef struct {
  int kind, nb, slot, root, inplace, base, u, red, count;
  uint64_t data;
  Layout sl, rl;                  /* this rank's send and receive layouts (units for the v forms) */
  int sc[MAXR], sd[MAXR], rc[MAXR], rd[MAXR]; /* v forms: counts and displacements in units */
  Layout wsl[MAXW], wrl[MAXW];    /* alltoallw: one layout per peer */
  int wsd[MAXW], wrd[MAXW];       /* alltoallw: byte displacements */
} Coll;

/* A collective being executed: its buffers, and the request while nonblocking. */
typedef struct {
  int live;
  Coll c;
  MPI_Request req;
  Buf s, r;
  Buf ws[MAXW], wr[MAXW];
  int wsc[MAXW], wrc[MAXW];
  MPI_Datatype wst[MAXW], wrt[MAXW];
} Exec;

enum { S_P2P, S_SHIFT, S_COLL, S_COMPLETE, S_TOPO, S_SPLIT, S_DUP, S_CREATE, S_CREATE_GROUP, S_FREE, NSTEP };
__attribute__((unused)) static const char *const step_name[NSTEP] = {"p2p", "shift", "collective", "complete", "topology", "split", "dup", "create",
                                       "create_group", "free"};

/* Send modes and completion methods, by name for --stats. */
enum { M_SEND, M_SSEND, M_BSEND, M_RSEND, M_ISEND, M_ISSEND, M_IBSEND, M_IRSEND, M_SEND_INIT,
       M_SSEND_INIT, M_BSEND_INIT, M_RSEND_INIT, NMODE };
__attribute__((unused)) static const char *const mode_name[NMODE] = {"Send", "Ssend", "Bsend", "Rsend", "Isend", "Issend", "Ibsend",
  "Irsend", "Send_init", "Ssend_init", "Bsend_init", "Rsend_init"};
enum { R_RECV, R_PROBE, R_IPROBE, R_MPROBE, R_IMPROBE, R_IRECV_WAIT, R_IRECV_TEST, R_MPROBE_IMRECV,
       R_IRECV, R_RECV_INIT, NRMETHOD };
__attribute__((unused)) static const char *const rmethod_name[NRMETHOD] = {"Recv", "Probe+Recv", "Iprobe+Recv", "Mprobe+Mrecv",
  "Improbe+Mrecv", "Irecv+Wait", "Irecv+Test", "Mprobe+Imrecv", "Irecv(pre-posted)", "Recv_init(pre-posted)"};
enum { W_WAITALL, W_WAIT, W_WAITANY, W_WAITSOME, W_TESTALL, W_TEST, W_TESTANY, W_TESTSOME, W_GETSTATUS,
       NWMETHOD };
__attribute__((unused)) static const char *const wmethod_name[NWMETHOD] = {"Waitall", "Wait", "Waitany", "Waitsome", "Testall", "Test",
  "Testany", "Testsome", "Request_get_status"};

typedef struct {
  long steps[NSTEP], coll[NCOLL], coll_nb[NCOLL], inplace, modes[NMODE], rmethods[NRMETHOD],
       wmethods[NWMETHOD], layouts[NLAYOUT], reds[32], wild_tag, wild_any, anytag, proc_null, cancel,
       messages, zero_msgs, big_msgs, seeds;
} Stats;

typedef struct {
  int wrank, wsize, trace, verbose;
  uint64_t seed, hash;
  int step;
  Rng rng;
  Types t;
  Slot slot[MAXSLOT];
  Exec *pend[MAXPEND]; /* in start order; heap objects: MPI keeps pointers to their count arrays */
  int npend;
  Coll coll;  /* the collective being generated */
  Stats st;
} Ctx;

static inline uint64_t data_seed(const Ctx *c, int kind, int idx) {
  return mix64(c->seed * 0x100000001b3ULL ^ mix64((uint64_t)c->step * 1000003 + (uint64_t)idx * 31 + (uint64_t)kind));
}
static inline int tag_base(const Ctx *c) { return 1 + (c->step % 1000) * 16; }

static inline void count_layout(Ctx *c, const Layout *L) { c->st.layouts[L->kind]++; }


/* randprog_coll.c */
void gen_coll(Ctx *c, Coll *x, int slot);
void coll_start(Ctx *c, Exec *e);
void coll_finish(Ctx *c, Exec *e);

/* randprog_comm.c: communicators and process topologies */
int free_slot(Ctx *c);
int random_live_slot(Ctx *c, int min_size);
void slot_set(Ctx *c, int s, const int *members, int size, MPI_Comm comm, int parent);
void step_split(Ctx *c, int p);
void step_dup(Ctx *c, int p);
void step_create(Ctx *c, int p, int by_group);
void free_comm(Ctx *c, int s);
void step_topo(Ctx *c, int p);
