/* randprog — random but valid MPI programs for differential testing (docs/testing.md).
 *
 * For every seed of a range, each rank derives from the seed alone, identically on every rank, a random
 * MPI program over MPI_COMM_WORLD (point-to-point with wildcards, probes and every completion call,
 * collectives blocking and nonblocking on random sub-communicators, derived datatypes, user-defined ops,
 * MPI_IN_PLACE), runs it, and folds every datum it received into a 64-bit digest. Rank 0 prints one line
 * per seed with every rank's digest. The program is plain MPI: the same source runs under plain MPICH
 * with M processes and under xsim with M virtual ranks, and the lines must be identical.
 *
 * Only results that MPI fixes are digested: where MPI allows several matchings (MPI_ANY_SOURCE), the
 * messages a wildcard receiver got are digested per source in posting order (MPI's non-overtaking rule
 * fixes that order); Test/Iprobe flags and Waitany/Waitsome orders are never digested.
 *
 * Usage: randprog [--seeds A-B | --seed S] [--max-steps K] [--trace] [--verbose] [--stats]
 * No mutable globals: under xsim several ranks share one process (privatization may be off).
 */
#include "randprog.h"

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
static const char *coll_name[NCOLL] = {"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
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
static const char *step_name[NSTEP] = {"p2p", "shift", "collective", "complete", "topology", "split", "dup", "create",
                                       "create_group", "free"};

/* Send modes and completion methods, by name for --stats. */
enum { M_SEND, M_SSEND, M_BSEND, M_RSEND, M_ISEND, M_ISSEND, M_IBSEND, M_IRSEND, M_SEND_INIT,
       M_SSEND_INIT, M_BSEND_INIT, M_RSEND_INIT, NMODE };
static const char *mode_name[NMODE] = {"Send", "Ssend", "Bsend", "Rsend", "Isend", "Issend", "Ibsend",
  "Irsend", "Send_init", "Ssend_init", "Bsend_init", "Rsend_init"};
enum { R_RECV, R_PROBE, R_IPROBE, R_MPROBE, R_IMPROBE, R_IRECV_WAIT, R_IRECV_TEST, R_MPROBE_IMRECV,
       R_IRECV, R_RECV_INIT, NRMETHOD };
static const char *rmethod_name[NRMETHOD] = {"Recv", "Probe+Recv", "Iprobe+Recv", "Mprobe+Mrecv",
  "Improbe+Mrecv", "Irecv+Wait", "Irecv+Test", "Mprobe+Imrecv", "Irecv(pre-posted)", "Recv_init(pre-posted)"};
enum { W_WAITALL, W_WAIT, W_WAITANY, W_WAITSOME, W_TESTALL, W_TEST, W_TESTANY, W_TESTSOME, W_GETSTATUS,
       NWMETHOD };
static const char *wmethod_name[NWMETHOD] = {"Waitall", "Wait", "Waitany", "Waitsome", "Testall", "Test",
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

static uint64_t data_seed(const Ctx *c, int kind, int idx) {
  return mix64(c->seed * 0x100000001b3ULL ^ mix64((uint64_t)c->step * 1000003 + (uint64_t)idx * 31 + (uint64_t)kind));
}
static int tag_base(const Ctx *c) { return 1 + (c->step % 1000) * 16; }

static void count_layout(Ctx *c, const Layout *L) { c->st.layouts[L->kind]++; }

/* ---------------------------------------------------------------------------------------------------
 * Completing a set of requests by one of MPI's completion calls. Statuses land in st[i]. */
static void complete_all(int method, int n, MPI_Request *reqs, MPI_Status *st) {
  int done[2 * MAXRCV + MAXMSG] = {0}, left = n, idx[2 * MAXRCV + MAXMSG], flag, out;
  MPI_Status tmp[2 * MAXRCV + MAXMSG], s;
  if (n == 0) return;
  switch (method) {
  case W_WAITALL: MPI_Waitall(n, reqs, st); break;
  case W_WAIT: for (int i = n - 1; i >= 0; i--) MPI_Wait(&reqs[i], &st[i]); break;
  case W_WAITANY:
    while (left > 0) {
      MPI_Waitany(n, reqs, &out, &s);
      if (out == MPI_UNDEFINED || done[out]) die("MPI_Waitany returned no or a completed request");
      done[out] = 1; st[out] = s; left--;
    }
    break;
  case W_WAITSOME:
    while (left > 0) {
      MPI_Waitsome(n, reqs, &out, idx, tmp);
      if (out == MPI_UNDEFINED || out == 0) die("MPI_Waitsome completed nothing with requests active");
      for (int k = 0; k < out; k++) { done[idx[k]] = 1; st[idx[k]] = tmp[k]; left--; }
    }
    break;
  case W_TESTALL:
    for (flag = 0; !flag;) MPI_Testall(n, reqs, &flag, st);
    break;
  case W_TEST:
    while (left > 0)
      for (int i = 0; i < n; i++) if (!done[i]) {
        MPI_Test(&reqs[i], &flag, &s);
        if (flag) { done[i] = 1; st[i] = s; left--; }
      }
    break;
  case W_TESTANY:
    while (left > 0) {
      MPI_Testany(n, reqs, &out, &flag, &s);
      if (flag && out != MPI_UNDEFINED) {
        if (done[out]) die("MPI_Testany returned a completed request");
        done[out] = 1; st[out] = s; left--;
      } else if (flag) die("MPI_Testany found no active request with requests active");
    }
    break;
  case W_TESTSOME:
    while (left > 0) {
      MPI_Testsome(n, reqs, &out, idx, tmp);
      if (out == MPI_UNDEFINED) die("MPI_Testsome found no active request with requests active");
      for (int k = 0; k < out; k++) { done[idx[k]] = 1; st[idx[k]] = tmp[k]; left--; }
    }
    break;
  case W_GETSTATUS:
    while (left > 0)
      for (int i = 0; i < n; i++) if (!done[i]) {
        MPI_Request_get_status(reqs[i], &flag, &s);
        if (flag) { MPI_Wait(&reqs[i], &st[i]); done[i] = 1; left--; }
      }
    break;
  }
}

/* ---------------------------------------------------------------------------------------------------
 * Point-to-point steps. All messages of a step are received in it. Receivers are "directed" (every
 * receive names its source; per source either the message's tag or MPI_ANY_TAG) or "wild" (every
 * receive is MPI_ANY_SOURCE with the step's wildcard tag, or with MPI_ANY_TAG, and a barrier after the
 * step keeps later steps' messages out). Schema A pre-posts every receive, then sends (any mode; a
 * barrier in between makes ready sends legal); schema B starts every send nonblocking, then receives
 * with blocking calls, probes and matched probes: both are deadlock-free for any matching. */
typedef struct {
  int src, dst, tag, mode, order;
  Layout sl;
} Msg;
typedef struct {
  int src, tag, msg, method, cancel, wild;
  Layout rl;
} Rcv;
typedef struct {
  int n, nmsg, schema, rbarrier, fence;
  int rmode[MAXR], wbase[MAXR], anytag[MAXR]; /* anytag: directed receiver me takes MPI_ANY_TAG from these */
  Msg msg[MAXMSG];
  int nsend, send[MAXMSG];   /* this rank's messages, in its send order */
  int nrcv;
  Rcv rcv[MAXRCV];           /* this rank's receives, in posting order */
  int wmethod;               /* this rank's completion call */
} P2P;

static int size_class(Rng *r) {
  int k = rint_(r, 0, 99);
  if (k < 8) return 0;
  if (k < 75) return rint_(r, 1, 12);
  if (k < 96) return rint_(r, 13, 300);
  return rint_(r, 3000, 20000);
}

static void gen_p2p(Ctx *c, P2P *p, const Slot *sl) {
  Rng *r = &c->rng;
  int n = sl->size, me = sl->me, tb = tag_base(c);
  memset(p, 0, sizeof *p);
  p->n = n;
  int any_wild_any = 0;
  for (int d = 0; d < n; d++) {
    int k = rint_(r, 0, 99);
    p->rmode[d] = k < 60 ? 0 : k < 82 ? 1 : 2;
    p->wbase[d] = rint_(r, 0, NBASE - 1);
    if (p->rmode[d] == 2) any_wild_any = 1;
  }
  for (int s = 0; s < n; s++) p->anytag[s] = rpct(r, 30); /* as seen by this step's directed receivers */
  p->schema = rpct(r, 55) ? 0 : 1;
  p->rbarrier = p->schema == 0 && rpct(r, 35);
  p->fence = any_wild_any;
  p->nmsg = rint_(r, 0, 3 * n + 2 > MAXMSG ? MAXMSG : 3 * n + 2);
  int per_src[MAXR] = {0};
  for (int m = 0; m < p->nmsg; m++) {
    Msg *g = &p->msg[m];
    g->src = rint_(r, 0, n - 1);
    g->dst = rpct(r, 6) ? MPI_PROC_NULL : rint_(r, 0, n - 1);
    int wild = g->dst != MPI_PROC_NULL && p->rmode[g->dst] != 0;
    int base = wild ? p->wbase[g->dst] : rint_(r, 0, NBASE - 1);
    int nel = size_class(r);
    g->tag = (g->dst != MPI_PROC_NULL && p->rmode[g->dst] == 1) ? tb + 15 : tb + rint_(r, 0, 3);
    g->sl = make_layout(r, base, nel, 0);
    size_t bytes = (size_t)nel * base_size(base);
    int modes[2 * NMODE], nm = 0;
    modes[nm++] = M_ISEND; modes[nm++] = M_ISSEND; modes[nm++] = M_SEND_INIT; modes[nm++] = M_SSEND_INIT;
    if (bytes <= BSEND_MAX) { modes[nm++] = M_IBSEND; modes[nm++] = M_BSEND_INIT; }
    if (p->schema == 0) {
      modes[nm++] = M_SEND; modes[nm++] = M_SSEND; modes[nm++] = M_SEND; modes[nm++] = M_SSEND;
      if (bytes <= BSEND_MAX) modes[nm++] = M_BSEND;
      if (p->rbarrier) { modes[nm++] = M_RSEND; modes[nm++] = M_IRSEND; modes[nm++] = M_RSEND_INIT; }
    }
    g->mode = modes[rint_(r, 0, nm - 1)];
    /* MPICH 4.0.2's Testsome/Waitsome never report a persistent request to or from MPI_PROC_NULL
     * (docs/testing.md): the nonblocking form instead */
    if (g->dst == MPI_PROC_NULL && g->mode >= M_SEND_INIT) g->mode -= M_SEND_INIT - M_ISEND;
    g->order = per_src[g->src]++;
    if (g->src == me) { count_layout(c, &g->sl); }
  }
  /* send order of each source: a random permutation of its messages */
  for (int s = 0; s < n; s++) {
    int ids[MAXMSG], k = 0;
    for (int m = 0; m < p->nmsg; m++) if (p->msg[m].src == s) ids[k++] = m;
    shuffle(r, ids, k);
    for (int i = 0; i < k; i++) p->msg[ids[i]].order = i;
    if (s == me) { p->nsend = k; memcpy(p->send, ids, sizeof(int) * (size_t)k); }
  }
  /* receives of each destination: one per message, plus now and then a receive from MPI_PROC_NULL and a
   * receive nobody matches (cancelled); a random posting order; the k-th posted receive of a class gets
   * the class's k-th message in send order */
  for (int d = 0; d < n; d++) {
    Rcv rv[MAXRCV];
    int nr = 0;
    for (int m = 0; m < p->nmsg; m++) {
      Msg *g = &p->msg[m];
      if (g->dst != d) continue;
      Rcv *x = &rv[nr++];
      memset(x, 0, sizeof *x);
      x->msg = m;
      x->wild = p->rmode[d];
      if (p->rmode[d] == 0) { x->src = g->src; x->tag = p->anytag[g->src] ? MPI_ANY_TAG : g->tag; }
      else { x->src = MPI_ANY_SOURCE; x->tag = p->rmode[d] == 1 ? tb + 15 : MPI_ANY_TAG; }
    }
    if (rpct(r, 12)) { memset(&rv[nr], 0, sizeof rv[nr]); rv[nr].src = MPI_PROC_NULL; rv[nr].tag = tb; rv[nr].msg = -1; nr++; }
    if (rpct(r, 10)) { memset(&rv[nr], 0, sizeof rv[nr]); rv[nr].src = MPI_ANY_SOURCE; rv[nr].tag = TAG_CANCEL; rv[nr].msg = -1; rv[nr].cancel = 1; nr++; }
    int ord[MAXRCV];
    for (int i = 0; i < nr; i++) ord[i] = i;
    shuffle(r, ord, nr);
    Rcv posted[MAXRCV];
    for (int i = 0; i < nr; i++) posted[i] = rv[ord[i]];
    /* assign messages to directed receives: per class (source, tag or any) in send order */
    int used[MAXMSG] = {0};
    for (int i = 0; i < nr; i++) {
      Rcv *x = &posted[i];
      if (x->msg < 0 || x->wild) continue;
      int best = -1;
      for (int m = 0; m < p->nmsg; m++) {
        Msg *g = &p->msg[m];
        if (used[m] || g->dst != d || g->src != x->src) continue;
        if (x->tag != MPI_ANY_TAG && g->tag != x->tag) continue;
        if (best < 0 || g->order < p->msg[best].order) best = m;
      }
      if (best < 0) die("generator: a directed receive has no message");
      used[best] = 1;
      x->msg = best;
    }
    /* layouts: a directed receive fits its message (sometimes with room to spare: a partial receive);
     * every wild receive of d has the same layout, large enough for any message to d */
    int wcap = 0;
    for (int m = 0; m < p->nmsg; m++)
      if (p->msg[m].dst == d) {
        int nel = p->msg[m].sl.count * p->msg[m].sl.per;
        if (nel > wcap) wcap = nel;
      }
    Layout wl = make_layout(r, p->wbase[d], wcap + rint_(r, 0, 2), 0);
    for (int i = 0; i < nr; i++) {
      Rcv *x = &posted[i];
      if (x->cancel || x->src == MPI_PROC_NULL) x->rl = make_layout(r, B_INT, rint_(r, 0, 4), 0);
      else if (x->wild) x->rl = wl;
      else {
        Msg *g = &p->msg[x->msg];
        int nel = g->sl.count * g->sl.per;
        x->rl = make_layout(r, g->sl.base, nel + (rpct(r, 25) ? rint_(r, 1, 4) : 0), 0);
      }
      if (p->schema == 0) {  /* (no persistent receive from MPI_PROC_NULL: see the send modes) */
        x->method = rpct(r, 75) || x->cancel || x->src == MPI_PROC_NULL ? R_IRECV : R_RECV_INIT;
      } else if (x->cancel) x->method = R_IRECV;
      else if (x->src == MPI_PROC_NULL) x->method = rpct(r, 50) ? R_RECV : R_IRECV_WAIT;
      else x->method = rint_(r, 0, R_MPROBE_IMRECV);
    }
    int wm = rint_(r, 0, NWMETHOD - 1);
    if (d == me) {
      p->nrcv = nr;
      memcpy(p->rcv, posted, sizeof(Rcv) * (size_t)nr);
      p->wmethod = wm;
    }
  }
}

typedef struct { int src, idx; uint64_t h; } WildRec;
static int wild_cmp(const void *a, const void *b) {
  const WildRec *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Digest of one completed receive: status fields, counts, the whole buffer (guard bytes included). */
static uint64_t recv_record(const Rcv *x, const Buf *b, const MPI_Status *s) {
  uint64_t h = 0x1234;
  int cnt, el, canc;
  MPI_Test_cancelled(s, &canc);
  hash_int(&h, canc);
  if (x->cancel) return h;  /* a cancelled receive's other status fields are undefined */
  MPI_Get_count(s, b->type, &cnt);
  MPI_Get_elements(s, b->type, &el);
  /* MPICH 4.0.2 completes a nonblocking receive from MPI_PROC_NULL with source 0 and tag 0 instead of
   * MPI_PROC_NULL and MPI_ANY_TAG (docs/testing.md): only the blocking receive's envelope is digested */
  if (x->src != MPI_PROC_NULL || x->method == R_RECV) {
    hash_int(&h, s->MPI_SOURCE);
    hash_int(&h, s->MPI_TAG);
  }
  hash_int(&h, cnt);
  hash_int(&h, el);
  hash_bytes(&h, b->buf, b->alloc);
  return h;
}

static void exec_p2p(Ctx *c, P2P *p, const Slot *sl) {
  MPI_Comm comm = sl->comm;
  int me = sl->me;
  Buf sb[MAXMSG], rb[MAXRCV];
  MPI_Request reqs[2 * MAXRCV + MAXMSG];
  MPI_Status sts[2 * MAXRCV + MAXMSG];
  int nreq = 0, rreq[MAXRCV], persistent[2 * MAXRCV + MAXMSG] = {0};
  uint64_t recs[MAXRCV];
  MPI_Status rst[MAXRCV];
  for (int i = 0; i < p->nsend; i++) {
    Msg *g = &p->msg[p->send[i]];
    buf_make(&sb[i], &c->t, &g->sl, g->sl.count, 1, data_seed(c, 1, p->send[i]));
    c->st.modes[g->mode]++;
    c->st.messages++;
    if (g->sl.count == 0) c->st.zero_msgs++;
    if ((size_t)g->sl.count * g->sl.per * base_size(g->sl.base) > 65536) c->st.big_msgs++;
    if (g->dst == MPI_PROC_NULL) c->st.proc_null++;
  }
  for (int i = 0; i < p->nrcv; i++) {
    Rcv *x = &p->rcv[i];
    buf_make(&rb[i], &c->t, &x->rl, x->rl.count, 0, 0);
    rreq[i] = -1;
    c->st.rmethods[x->method]++;
    count_layout(c, &x->rl);
    if (x->wild == 1) c->st.wild_tag++;
    if (x->wild == 2) c->st.wild_any++;
    if (!x->wild && x->tag == MPI_ANY_TAG) c->st.anytag++;
    if (x->cancel) c->st.cancel++;
  }
  c->st.wmethods[p->wmethod]++;
  if (c->verbose) {
    fprintf(stderr, "rank %d: step %d p2p schema %c%s%s, completion %s\n", c->wrank, c->step, "AB"[p->schema],
            p->rbarrier ? " +barrier" : "", p->fence ? " +fence" : "", wmethod_name[p->wmethod]);
    for (int i = 0; i < p->nsend; i++) {
      Msg *g = &p->msg[p->send[i]];
      fprintf(stderr, "  send %s to %d tag %d: %d x %s/%d of base %d (variant %d, extra %d, stride %d, blocks", mode_name[g->mode],
              g->dst, g->tag, g->sl.count, layout_name[g->sl.kind], g->sl.per, g->sl.base, g->sl.variant, g->sl.extra, g->sl.stride);
      for (int b = 0; b < g->sl.nblk && b < MAXBLK; b++) fprintf(stderr, " %d@%d", g->sl.blen[b], g->sl.disp[b]);
      fprintf(stderr, ") from %zu bytes at %p\n", sb[i].alloc, (void *)sb[i].buf);
    }
    for (int i = 0; i < p->nrcv; i++) {
      Rcv *x = &p->rcv[i];
      fprintf(stderr, "  recv %s from %d tag %d%s: %d x %s/%d of base %d\n", rmethod_name[x->method], x->src, x->tag,
              x->cancel ? " (cancelled)" : "", x->rl.count, layout_name[x->rl.kind], x->rl.per, x->rl.base);
    }
  }

  /* start one send (blocking ones complete here) */
#define SEND_ONE(i)                                                                                   \
  do {                                                                                                \
    Msg *g = &p->msg[p->send[i]];                                                                     \
    Buf *b = &sb[i];                                                                                  \
    MPI_Request *q = &reqs[nreq];                                                                     \
    switch (g->mode) {                                                                                \
    case M_SEND: MPI_Send(b->buf, b->count, b->type, g->dst, g->tag, comm); break;                   \
    case M_SSEND: MPI_Ssend(b->buf, b->count, b->type, g->dst, g->tag, comm); break;                 \
    case M_BSEND: MPI_Bsend(b->buf, b->count, b->type, g->dst, g->tag, comm); break;                 \
    case M_RSEND: MPI_Rsend(b->buf, b->count, b->type, g->dst, g->tag, comm); break;                 \
    case M_ISEND: MPI_Isend(b->buf, b->count, b->type, g->dst, g->tag, comm, q); nreq++; break;      \
    case M_ISSEND: MPI_Issend(b->buf, b->count, b->type, g->dst, g->tag, comm, q); nreq++; break;    \
    case M_IBSEND: MPI_Ibsend(b->buf, b->count, b->type, g->dst, g->tag, comm, q); nreq++; break;    \
    case M_IRSEND: MPI_Irsend(b->buf, b->count, b->type, g->dst, g->tag, comm, q); nreq++; break;    \
    case M_SEND_INIT: MPI_Send_init(b->buf, b->count, b->type, g->dst, g->tag, comm, q); break;      \
    case M_SSEND_INIT: MPI_Ssend_init(b->buf, b->count, b->type, g->dst, g->tag, comm, q); break;    \
    case M_BSEND_INIT: MPI_Bsend_init(b->buf, b->count, b->type, g->dst, g->tag, comm, q); break;    \
    case M_RSEND_INIT: MPI_Rsend_init(b->buf, b->count, b->type, g->dst, g->tag, comm, q); break;    \
    }                                                                                                 \
    if (g->mode >= M_SEND_INIT) { MPI_Start(q); persistent[nreq] = 1; nreq++; }                      \
  } while (0)

  if (p->schema == 0) {
    for (int i = 0; i < p->nrcv; i++) {
      Rcv *x = &p->rcv[i];
      Buf *b = &rb[i];
      rreq[i] = nreq;
      if (x->method == R_RECV_INIT) {
        MPI_Recv_init(b->buf, b->count, b->type, x->src, x->tag, comm, &reqs[nreq]);
        MPI_Start(&reqs[nreq]);
        persistent[nreq] = 1;
      } else {
        MPI_Irecv(b->buf, b->count, b->type, x->src, x->tag, comm, &reqs[nreq]);
      }
      if (x->cancel) MPI_Cancel(&reqs[nreq]);
      nreq++;
    }
    if (p->rbarrier) MPI_Barrier(comm);
    for (int i = 0; i < p->nsend; i++) SEND_ONE(i);
    complete_all(p->wmethod, nreq, reqs, sts);
    for (int i = 0; i < p->nrcv; i++) rst[i] = sts[rreq[i]];
  } else {
    for (int i = 0; i < p->nsend; i++) SEND_ONE(i);
    for (int i = 0; i < p->nrcv; i++) {
      Rcv *x = &p->rcv[i];
      Buf *b = &rb[i];
      MPI_Status ps;
      MPI_Message mh;
      MPI_Request q;
      int flag = 0;
      switch (x->method) {
      case R_RECV: MPI_Recv(b->buf, b->count, b->type, x->src, x->tag, comm, &rst[i]); break;
      case R_PROBE:
        MPI_Probe(x->src, x->tag, comm, &ps);
        MPI_Recv(b->buf, b->count, b->type, ps.MPI_SOURCE, ps.MPI_TAG, comm, &rst[i]);
        break;
      case R_IPROBE:
        while (!flag) MPI_Iprobe(x->src, x->tag, comm, &flag, &ps);
        MPI_Recv(b->buf, b->count, b->type, ps.MPI_SOURCE, ps.MPI_TAG, comm, &rst[i]);
        break;
      case R_MPROBE:
        MPI_Mprobe(x->src, x->tag, comm, &mh, &ps);
        MPI_Mrecv(b->buf, b->count, b->type, &mh, &rst[i]);
        break;
      case R_IMPROBE:
        while (!flag) MPI_Improbe(x->src, x->tag, comm, &flag, &mh, &ps);
        MPI_Mrecv(b->buf, b->count, b->type, &mh, &rst[i]);
        break;
      case R_MPROBE_IMRECV:
        MPI_Mprobe(x->src, x->tag, comm, &mh, &ps);
        MPI_Imrecv(b->buf, b->count, b->type, &mh, &q);
        MPI_Wait(&q, &rst[i]);
        break;
      case R_IRECV_TEST:
        MPI_Irecv(b->buf, b->count, b->type, x->src, x->tag, comm, &q);
        while (!flag) MPI_Test(&q, &flag, &rst[i]);
        break;
      default:  /* R_IRECV_WAIT, and R_IRECV for the cancelled receive */
        MPI_Irecv(b->buf, b->count, b->type, x->src, x->tag, comm, &q);
        if (x->cancel) MPI_Cancel(&q);
        MPI_Wait(&q, &rst[i]);
        break;
      }
      if (x->method == R_PROBE || x->method == R_IPROBE || x->method == R_MPROBE ||
          x->method == R_IMPROBE || x->method == R_MPROBE_IMRECV) {
        int pc;  /* what the probe saw must be what was received */
        MPI_Get_count(&ps, b->type, &pc);
        uint64_t h = 0;
        hash_int(&h, ps.MPI_SOURCE); hash_int(&h, ps.MPI_TAG); hash_int(&h, pc);
        uint64_t h2 = 0;
        int rc2;
        MPI_Get_count(&rst[i], b->type, &rc2);
        hash_int(&h2, rst[i].MPI_SOURCE); hash_int(&h2, rst[i].MPI_TAG); hash_int(&h2, rc2);
        if (h != h2) die("a probe's status differs from the status of the receive that followed it");
      }
    }
    complete_all(p->wmethod, nreq, reqs, sts);
  }
#undef SEND_ONE
  for (int i = 0; i < nreq; i++) if (persistent[i]) MPI_Request_free(&reqs[i]);

  /* self-check, independent of MPI: a directed receive must hold the sender's data (its buffer rebuilt
   * here from the seed) moved along the two type maps, as many bytes as MPI_Get_elements says arrived */
  for (int i = 0; i < p->nrcv; i++) {
    Rcv *x = &p->rcv[i];
    if (x->wild || x->cancel || x->msg < 0) continue;
    Msg *g = &p->msg[x->msg];
    Buf sender;
    buf_make(&sender, &c->t, &g->sl, g->sl.count, 1, data_seed(c, 1, x->msg));
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(sender.type, &lb, &sext);
    MPI_Type_get_extent(rb[i].type, &lb, &rext);
    size_t total = (size_t)g->sl.count * (size_t)g->sl.per * (g->sl.base == B_S ? 15 : base_size(g->sl.base));
    char *stream = malloc(total + 1), *want = malloc(rb[i].alloc);
    walk(&g->sl, sext, g->sl.count, sender.buf, stream, total, 1);
    memset(want, 0xA5, rb[i].alloc);
    walk(&x->rl, rext, x->rl.count, want, stream, total, 0);
    if (memcmp(want, rb[i].buf, rb[i].alloc) != 0) {
      size_t k = 0;
      while (want[k] == rb[i].buf[k]) k++;
      fprintf(stderr, "randprog: seed %llu step %d rank %d: receive %d from %d (tag %d, %d x %s/%d) holds byte %zu = %02x, "
              "the sender's data moved along both type maps gives %02x\n", (unsigned long long)c->seed, c->step, c->wrank,
              i, x->src, g->tag, x->rl.count, layout_name[x->rl.kind], x->rl.per, k, (unsigned char)rb[i].buf[k],
              (unsigned char)want[k]);
      die("a received message differs from the data sent");
    }
    free(stream);
    free(want);
    buf_free(&sender);
  }

  /* digest: directed and other receives in posting order; wild ones per source in posting order */
  WildRec w[MAXRCV];
  int nw = 0;
  for (int i = 0; i < p->nrcv; i++) {
    recs[i] = recv_record(&p->rcv[i], &rb[i], &rst[i]);
    if (c->verbose) {
      int cnt;
      MPI_Get_count(&rst[i], rb[i].type, &cnt);
      fprintf(stderr, "rank %d: step %d receive %d got source %d tag %d count %d digest %016llx, %zu bytes at %p:", c->wrank,
              c->step, i, rst[i].MPI_SOURCE, rst[i].MPI_TAG, cnt, (unsigned long long)recs[i], rb[i].alloc, (void *)rb[i].buf);
      for (size_t k = 0; k < rb[i].alloc && k < 512; k++) fprintf(stderr, "%s%02x", k % 32 ? "" : "\n   ", (unsigned char)rb[i].buf[k]);
      fprintf(stderr, "\n");
    }
    if (p->rcv[i].wild && !p->rcv[i].cancel && p->rcv[i].msg >= 0) {
      w[nw].src = rst[i].MPI_SOURCE; w[nw].idx = i; w[nw].h = recs[i]; nw++;
    } else {
      hash_int(&c->hash, i);
      hash_int(&c->hash, (int64_t)recs[i]);
    }
  }
  qsort(w, (size_t)nw, sizeof w[0], wild_cmp);
  for (int i = 0; i < nw; i++) { hash_int(&c->hash, w[i].src); hash_int(&c->hash, (int64_t)w[i].h); }
  for (int i = 0; i < p->nsend; i++) buf_free(&sb[i]);
  for (int i = 0; i < p->nrcv; i++) buf_free(&rb[i]);
  if (p->fence) MPI_Barrier(comm);
  (void)me;
}

/* A shift: every member sends to (r + k) mod n and receives from (r - k) mod n (or MPI_ANY_SOURCE, as it
 * is the only message with the tag), with MPI_Sendrecv or MPI_Sendrecv_replace. */
static void step_shift(Ctx *c, const Slot *sl) {
  Rng *r = &c->rng;
  int n = sl->size, k = rint_(r, 0, n - 1), replace = rpct(r, 40), anysrc = rpct(r, 30);
  int base = rint_(r, 0, NBASE - 1), nel = size_class(r), tag = tag_base(c) + 5;
  if (replace && base == B_S && nel > 100) nel = 100;  /* MPICH sends MPI_PACKED: see gen_coll */
  Layout ls[MAXR], lr[MAXR];
  for (int i = 0; i < n; i++) {
    ls[i] = make_layout(r, base, nel, 0);
    lr[i] = replace ? ls[i] : make_layout(r, base, nel, 0);
  }
  if (sl->me < 0) return;
  int me = sl->me, to = (me + k) % n, from = (me - k + n) % n;
  Buf s, b;
  MPI_Status st;
  count_layout(c, &ls[me]);
  if (c->verbose) { int sz; MPI_Datatype tt; int ow; tt = build_type(&c->t, &ls[me], &ow); MPI_Type_size(tt, &sz); fprintf(stderr, "rank %d: step %d shift k %d replace %d any %d base %d nel %d layout %s per %d count %d typesize %d\n", c->wrank, c->step, k, replace, anysrc, base, nel, layout_name[ls[me].kind], ls[me].per, ls[me].count, sz); if (ow) MPI_Type_free(&tt); }
  if (replace) {
    buf_make(&b, &c->t, &ls[me], ls[me].count, 1, data_seed(c, 2, me));
    MPI_Sendrecv_replace(b.buf, b.count, b.type, to, tag, anysrc ? MPI_ANY_SOURCE : from, tag, sl->comm, &st);
  } else {
    buf_make(&s, &c->t, &ls[me], ls[me].count, 1, data_seed(c, 2, me));
    buf_make(&b, &c->t, &lr[me], lr[me].count, 0, 0);
    MPI_Sendrecv(s.buf, s.count, s.type, to, tag, b.buf, b.count, b.type, anysrc ? MPI_ANY_SOURCE : from, tag,
                 sl->comm, &st);
    buf_free(&s);
  }
  int cnt;
  MPI_Get_count(&st, b.type, &cnt);
  hash_int(&c->hash, st.MPI_SOURCE);
  hash_int(&c->hash, st.MPI_TAG);
  hash_int(&c->hash, cnt);
  hash_bytes(&c->hash, b.buf, b.alloc);
  buf_free(&b);
}

/* ---------------------------------------------------------------------------------------------------
 * Collectives. gen_coll draws everything for every member (the same draws on every rank) and keeps
 * this rank's part; coll_start runs it (blocking, or starts it nonblocking); coll_finish digests it. */
static void gen_coll(Ctx *c, Coll *x, int slot) {
  Rng *r = &c->rng;
  const Slot *sl = &c->slot[slot];
  int n = sl->size, me = sl->me;
  memset(x, 0, sizeof *x);
  x->slot = slot;
  x->kind = rint_(r, 0, NCOLL - 1);
  if (x->kind == C_ALLTOALLW && n > MAXW) x->kind = C_ALLTOALLV;
  x->nb = rpct(r, 40);
  x->root = rint_(r, 0, n - 1);
  x->inplace = rpct(r, 30);
  x->base = rint_(r, 0, NBASE - 1);
  x->data = data_seed(c, 3, 0);
  int k = rint_(r, 0, 99);
  x->u = k < 8 ? 0 : k < 85 ? rint_(r, 1, 10) : rint_(r, 11, 400);
  /* MPICH 4.0.2 (ch4:ucx) truncates messages its collectives send as bytes into a struct datatype past
   * a few KiB: large blocks of B_S are not drawn (docs/testing.md) */
  if (x->base == B_S && x->u > 16) x->u = 16;
  switch (x->kind) {
  case C_BARRIER: break;
  case C_BCAST: case C_GATHER: case C_SCATTER: case C_ALLGATHER: case C_ALLTOALL:
    /* every rank: a send layout and a receive layout of u elements (per block) */
    for (int i = 0; i < n; i++) {
      Layout a = make_layout(r, x->base, x->u, 0), b = make_layout(r, x->base, x->u, 0);
      if (i == me) { x->sl = a; x->rl = b; }
    }
    break;
  case C_GATHERV: case C_SCATTERV: case C_ALLGATHERV: {
    int uu = rint_(r, 1, 3), cnt[MAXR], dsp[MAXR], pos = 0;
    for (int i = 0; i < n; i++) { cnt[i] = rpct(r, 15) ? 0 : rint_(r, 1, 6); }
    for (int i = 0; i < n; i++) { pos += rint_(r, 0, 2); dsp[i] = pos; pos += cnt[i]; }
    if (rpct(r, 30)) {  /* blocks out of rank order in the buffer */
      int ord[MAXR];
      for (int i = 0; i < n; i++) ord[i] = i;
      shuffle(r, ord, n);
      pos = 0;
      for (int i = 0; i < n; i++) { int j = ord[i]; pos += rint_(r, 0, 2); dsp[j] = pos; pos += cnt[j]; }
    }
    for (int i = 0; i < n; i++) {
      Layout a = make_layout(r, x->base, uu, 1), b = make_layout(r, x->base, uu, 1);
      if (i == me) { x->sl = a; x->rl = b; }
    }
    x->u = uu;
    /* MPICH 4.0.2's MPI_Allgatherv on a communicator of one rank ignores rdispls[0] (docs/testing.md) */
    if (n == 1 && x->kind == C_ALLGATHERV) dsp[0] = 0;
    for (int i = 0; i < n; i++) { x->rc[i] = x->sc[i] = cnt[i]; x->rd[i] = x->sd[i] = dsp[i]; }
    break;
  }
  case C_ALLTOALLV: case C_ALLTOALLW: {
    int uu = rint_(r, 1, 3), cm[MAXR][MAXR];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) cm[i][j] = rpct(r, 15) ? 0 : rint_(r, 1, 5);
    if (x->kind == C_ALLTOALLW) x->inplace = 0;
    if (x->inplace) for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) cm[i][j] = cm[j][i];
    for (int i = 0; i < n; i++) {
      Layout a = make_layout(r, x->base, uu, 1), b = make_layout(r, x->base, uu, 1);
      int sd[MAXR], rd[MAXR], ps = 0, pr = 0;
      for (int j = 0; j < n; j++) { ps += rint_(r, 0, 2); sd[j] = ps; ps += cm[i][j]; }
      for (int j = 0; j < n; j++) { pr += rint_(r, 0, 2); rd[j] = pr; pr += cm[j][i]; }
      if (i == me) {
        x->sl = a; x->rl = b;
        for (int j = 0; j < n; j++) { x->sc[j] = cm[i][j]; x->rc[j] = cm[j][i]; x->sd[j] = sd[j]; x->rd[j] = rd[j]; }
      }
      if (x->kind == C_ALLTOALLW) {  /* one layout per peer, byte displacements */
        for (int j = 0; j < n; j++) {
          Layout ws = make_layout(r, x->base, cm[i][j] ? cm[i][j] : 1, 1);
          Layout wr = make_layout(r, x->base, cm[j][i] ? cm[j][i] : 1, 1);
          int gs = 8 * rint_(r, 0, 2), gr = 8 * rint_(r, 0, 2);
          if (i == me) { x->wsl[j] = ws; x->wrl[j] = wr; x->wsd[j] = gs; x->wrd[j] = gr; }
        }
      }
    }
    x->u = uu;
    break;
  }
  default: {  /* reductions */
    x->red = rint_(r, 0, nreds - 1);
    x->count = rpct(r, 85) ? rint_(r, 0, 12) : rint_(r, 300, 1500);
    if (x->kind == C_REDUCE_SCATTER) {
      for (int i = 0; i < n; i++) x->rc[i] = rpct(r, 15) ? 0 : rint_(r, 1, 8);
      if (rpct(r, 10)) for (int i = 0; i < n; i++) x->rc[i] = rint_(r, 200, 600);
    }
    if (x->kind == C_REDUCE_SCATTER_BLOCK && x->count > 300) x->count /= n;
    /* MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other than 0 when it picks
     * Rabenseifner's algorithm (commutative op, over 2048 bytes): not drawn (docs/testing.md) */
    if (x->kind == C_REDUCE && x->root != 0 && (size_t)x->count * dt_size(reds[x->red].dt) > 2048)
      x->inplace = 0;
    break;
  }
  }
}

static void coll_start(Ctx *c, Exec *e) {
  Coll *x = &e->c;
  const Slot *sl = &c->slot[x->slot];
  MPI_Comm comm = sl->comm;
  int n = sl->size, me = sl->me, root = x->root, ip = x->inplace;
  uint64_t ds = mix64(x->data + (uint64_t)me);
  MPI_Request *q = x->nb ? &e->req : NULL;
  const Types *t = &c->t;
  memset(&e->s, 0, sizeof e->s);
  memset(&e->r, 0, sizeof e->r);
  c->st.coll[x->kind]++;
  if (c->verbose && (x->kind == C_GATHERV || x->kind == C_SCATTERV || x->kind == C_ALLGATHERV ||
                     x->kind == C_ALLTOALLV || x->kind == C_ALLTOALLW)) {
    fprintf(stderr, "rank %d: counts/displs send", c->wrank);
    for (int i = 0; i < n; i++) fprintf(stderr, " %d@%d", x->sc[i], x->sd[i]);
    fprintf(stderr, " recv");
    for (int i = 0; i < n; i++) fprintf(stderr, " %d@%d", x->rc[i], x->rd[i]);
    fprintf(stderr, "\n");
  }
  if (c->verbose) fprintf(stderr, "rank %d: step %d collective %s nb %d root %d inplace %d red %s count %d u %d n %d base %d sl %s/%d/%d/%d rl %s/%d/%d/%d\n", c->wrank, c->step, coll_name[x->kind], x->nb, root, ip, x->kind >= C_REDUCE ? reds[x->red].name : "-", x->count, x->u, n, x->base, layout_name[x->sl.kind], x->sl.variant, x->sl.per, x->sl.count, layout_name[x->rl.kind], x->rl.variant, x->rl.per, x->rl.count);
  if (x->nb) c->st.coll_nb[x->kind]++;
  if (ip && x->kind != C_BARRIER && x->kind != C_BCAST && x->kind != C_ALLTOALLW) c->st.inplace++;
#define NB(call_b, call_nb) do { if (q) { call_nb; } else { call_b; } } while (0)
  switch (x->kind) {
  case C_BARRIER: NB(MPI_Barrier(comm), MPI_Ibarrier(comm, q)); break;
  case C_BCAST:
    buf_make(&e->r, t, &x->sl, x->sl.count, me == root, ds);
    NB(MPI_Bcast(e->r.buf, e->r.count, e->r.type, root, comm), MPI_Ibcast(e->r.buf, e->r.count, e->r.type, root, comm, q));
    break;
  case C_GATHER: {
    int rip = ip && me == root;
    buf_make(&e->s, t, &x->sl, x->sl.count, 1, ds);
    if (me == root) buf_make(&e->r, t, &x->rl, x->rl.count * n, rip, ds + 1);
    void *sb = rip ? MPI_IN_PLACE : e->s.buf;
    NB(MPI_Gather(sb, e->s.count, e->s.type, e->r.buf, x->rl.count, e->r.type, root, comm),
       MPI_Igather(sb, e->s.count, e->s.type, e->r.buf, x->rl.count, e->r.type, root, comm, q));
    break;
  }
  case C_SCATTER: {
    int rip = ip && me == root;
    if (me == root) buf_make(&e->s, t, &x->sl, x->sl.count * n, 1, ds);
    buf_make(&e->r, t, &x->rl, x->rl.count, 0, 0);
    void *rb = rip ? MPI_IN_PLACE : e->r.buf;
    NB(MPI_Scatter(e->s.buf, x->sl.count, e->s.type, rb, e->r.count, e->r.type, root, comm),
       MPI_Iscatter(e->s.buf, x->sl.count, e->s.type, rb, e->r.count, e->r.type, root, comm, q));
    break;
  }
  case C_ALLGATHER: {
    buf_make(&e->s, t, &x->sl, x->sl.count, 1, ds);
    buf_make(&e->r, t, &x->rl, x->rl.count * n, ip, ds + 1);
    void *sb = ip ? MPI_IN_PLACE : e->s.buf;
    NB(MPI_Allgather(sb, e->s.count, e->s.type, e->r.buf, x->rl.count, e->r.type, comm),
       MPI_Iallgather(sb, e->s.count, e->s.type, e->r.buf, x->rl.count, e->r.type, comm, q));
    break;
  }
  case C_ALLTOALL: {
    buf_make(&e->s, t, &x->sl, x->sl.count * n, 1, ds);
    buf_make(&e->r, t, &x->rl, x->rl.count * n, ip, ds + 1);
    void *sb = ip ? MPI_IN_PLACE : e->s.buf;
    NB(MPI_Alltoall(sb, x->sl.count, e->s.type, e->r.buf, x->rl.count, e->r.type, comm),
       MPI_Ialltoall(sb, x->sl.count, e->s.type, e->r.buf, x->rl.count, e->r.type, comm, q));
    break;
  }
  case C_GATHERV: case C_SCATTERV: case C_ALLGATHERV: {
    int end = 0;
    for (int i = 0; i < n; i++) if (x->rd[i] + x->rc[i] > end) end = x->rd[i] + x->rc[i];
    int mine = x->sc[me];
    if (x->kind == C_GATHERV) {
      int rip = ip && me == root;
      buf_make(&e->s, t, &x->sl, mine, 1, ds);
      if (me == root) buf_make(&e->r, t, &x->rl, end, rip, ds + 1);
      void *sb = rip ? MPI_IN_PLACE : e->s.buf;
      NB(MPI_Gatherv(sb, mine, e->s.type, e->r.buf, x->rc, x->rd, e->r.type, root, comm),
         MPI_Igatherv(sb, mine, e->s.type, e->r.buf, x->rc, x->rd, e->r.type, root, comm, q));
    } else if (x->kind == C_SCATTERV) {
      int rip = ip && me == root;
      if (me == root) buf_make(&e->s, t, &x->sl, end, 1, ds);
      buf_make(&e->r, t, &x->rl, mine, 0, 0);
      void *rb = rip ? MPI_IN_PLACE : e->r.buf;
      NB(MPI_Scatterv(e->s.buf, x->sc, x->sd, e->s.type, rb, mine, e->r.type, root, comm),
         MPI_Iscatterv(e->s.buf, x->sc, x->sd, e->s.type, rb, mine, e->r.type, root, comm, q));
    } else {
      buf_make(&e->s, t, &x->sl, mine, 1, ds);
      buf_make(&e->r, t, &x->rl, end, ip, ds + 1);
      void *sb = ip ? MPI_IN_PLACE : e->s.buf;
      NB(MPI_Allgatherv(sb, mine, e->s.type, e->r.buf, x->rc, x->rd, e->r.type, comm),
         MPI_Iallgatherv(sb, mine, e->s.type, e->r.buf, x->rc, x->rd, e->r.type, comm, q));
    }
    break;
  }
  case C_ALLTOALLV: {
    int se = 0, re = 0;
    for (int j = 0; j < n; j++) {
      if (x->sd[j] + x->sc[j] > se) se = x->sd[j] + x->sc[j];
      if (x->rd[j] + x->rc[j] > re) re = x->rd[j] + x->rc[j];
    }
    buf_make(&e->s, t, &x->sl, se, 1, ds);
    buf_make(&e->r, t, &x->rl, re, ip, ds + 1);
    void *sb = ip ? MPI_IN_PLACE : e->s.buf;
    NB(MPI_Alltoallv(sb, x->sc, x->sd, e->s.type, e->r.buf, x->rc, x->rd, e->r.type, comm),
       MPI_Ialltoallv(sb, x->sc, x->sd, e->s.type, e->r.buf, x->rc, x->rd, e->r.type, comm, q));
    break;
  }
  case C_ALLTOALLW: {
    /* one contiguous region per peer; byte displacements: running sum of spans plus the drawn gaps */
    size_t ps = 0, pr = 0;
    int sdb[MAXW], rdb[MAXW];
    for (int j = 0; j < n; j++) {
      int owned;
      e->wst[j] = build_type(t, &x->wsl[j], &owned);
      e->wsc[j] = x->sc[j] ? 1 : 0;
      e->ws[j].owned = owned; e->ws[j].type = e->wst[j];
      ps += (size_t)x->wsd[j]; sdb[j] = (int)ps; ps += span_of(e->wst[j], 1);
      e->wrt[j] = build_type(t, &x->wrl[j], &owned);
      e->wrc[j] = x->rc[j] ? 1 : 0;
      e->wr[j].owned = owned; e->wr[j].type = e->wrt[j];
      pr += (size_t)x->wrd[j]; rdb[j] = (int)pr; pr += span_of(e->wrt[j], 1);
    }
    e->s.alloc = ps + GUARD; e->s.buf = malloc(e->s.alloc); fill_random(e->s.buf, e->s.alloc, ds);
    e->r.alloc = pr + GUARD; e->r.buf = malloc(e->r.alloc); memset(e->r.buf, 0xA5, e->r.alloc);
    memcpy(x->sd, sdb, sizeof(int) * (size_t)n);
    memcpy(x->rd, rdb, sizeof(int) * (size_t)n);
    NB(MPI_Alltoallw(e->s.buf, e->wsc, x->sd, e->wst, e->r.buf, e->wrc, x->rd, e->wrt, comm),
       MPI_Ialltoallw(e->s.buf, e->wsc, x->sd, e->wst, e->r.buf, e->wrc, x->rd, e->wrt, comm, q));
    break;
  }
  default: {  /* reductions: contiguous buffers of the op's datatype */
    const RedChoice *rc = &reds[x->red];
    MPI_Datatype dt = dt_type(t, rc->dt);
    MPI_Op op = op_handle(t, rc->op);
    size_t es = dt_size(rc->dt);
    int total = x->count;
    if (x->kind == C_REDUCE_SCATTER) { total = 0; for (int i = 0; i < n; i++) total += x->rc[i]; }
    if (x->kind == C_REDUCE_SCATTER_BLOCK) total = x->count * n;
    c->st.reds[x->red]++;
    e->s.alloc = (size_t)total * es + GUARD;
    e->s.buf = malloc(e->s.alloc);
    memset(e->s.buf, 0xA5, e->s.alloc);
    gen_values(e->s.buf, rc->dt, rc->vals, total, n, ds);
    e->r.alloc = (size_t)total * es + GUARD;
    e->r.buf = malloc(e->r.alloc);
    memset(e->r.buf, 0xA5, e->r.alloc);
    int rip = ip && (x->kind != C_REDUCE || me == root);
    if (rip) memcpy(e->r.buf, e->s.buf, (size_t)total * es);
    void *sb = rip ? MPI_IN_PLACE : e->s.buf, *rb = e->r.buf;
    switch (x->kind) {
    case C_REDUCE:
      NB(MPI_Reduce(sb, rb, x->count, dt, op, root, comm), MPI_Ireduce(sb, rb, x->count, dt, op, root, comm, q));
      break;
    case C_ALLREDUCE:
      NB(MPI_Allreduce(sb, rb, x->count, dt, op, comm), MPI_Iallreduce(sb, rb, x->count, dt, op, comm, q));
      break;
    case C_REDUCE_SCATTER:
      NB(MPI_Reduce_scatter(sb, rb, x->rc, dt, op, comm), MPI_Ireduce_scatter(sb, rb, x->rc, dt, op, comm, q));
      break;
    case C_REDUCE_SCATTER_BLOCK:
      NB(MPI_Reduce_scatter_block(sb, rb, x->count, dt, op, comm),
         MPI_Ireduce_scatter_block(sb, rb, x->count, dt, op, comm, q));
      break;
    case C_SCAN:
      NB(MPI_Scan(sb, rb, x->count, dt, op, comm), MPI_Iscan(sb, rb, x->count, dt, op, comm, q));
      break;
    case C_EXSCAN:
      NB(MPI_Exscan(sb, rb, x->count, dt, op, comm), MPI_Iexscan(sb, rb, x->count, dt, op, comm, q));
      break;
    }
    break;
  }
  }
#undef NB
}

static void coll_finish(Ctx *c, Exec *e) {
  Coll *x = &e->c;
  const Slot *sl = &c->slot[x->slot];
  int n = sl->size, me = sl->me;
  uint64_t *h = &c->hash;
  hash_int(h, 1000 + x->kind);
  if (c->verbose && e->r.buf) {  /* the receive buffer, for comparing a differing seed by eye */
    fprintf(stderr, "rank %d: step %d %s receive buffer (%zu bytes):", c->wrank, c->step, coll_name[x->kind], e->r.alloc);
    for (size_t i = 0; i < e->r.alloc && i < 512; i++) fprintf(stderr, "%s%02x", i % 32 ? "" : "\n   ", (unsigned char)e->r.buf[i]);
    fprintf(stderr, "\n");
  }
  if (x->kind >= C_REDUCE) {
    const RedChoice *rc = &reds[x->red];
    int cnt = x->count;
    if (x->kind == C_REDUCE_SCATTER) cnt = x->rc[me];
    int valid = !(x->kind == C_REDUCE && me != x->root) && !(x->kind == C_EXSCAN && me == 0);
    if (valid) hash_values(h, e->r.buf, rc->dt, cnt);
    /* the send buffer must be untouched */
    uint64_t g = 0, g2 = 0;
    if (!(x->inplace && (x->kind != C_REDUCE || me == x->root))) {
      int total = x->count;
      if (x->kind == C_REDUCE_SCATTER) { total = 0; for (int i = 0; i < n; i++) total += x->rc[i]; }
      if (x->kind == C_REDUCE_SCATTER_BLOCK) total = x->count * n;
      char *ref = malloc(e->s.alloc);
      memset(ref, 0xA5, e->s.alloc);
      gen_values(ref, rc->dt, rc->vals, total, n, mix64(x->data + (uint64_t)me));
      hash_bytes(&g, ref, e->s.alloc);
      hash_bytes(&g2, e->s.buf, e->s.alloc);
      free(ref);
      if (g != g2) die("a reduction wrote into its send buffer");
    }
    free(e->s.buf);
    free(e->r.buf);
  } else if (x->kind == C_ALLTOALLW) {
    hash_bytes(h, e->r.buf, e->r.alloc);
    for (int j = 0; j < n; j++) {
      if (e->ws[j].owned) MPI_Type_free(&e->wst[j]);
      if (e->wr[j].owned) MPI_Type_free(&e->wrt[j]);
    }
    free(e->s.buf);
    free(e->r.buf);
  } else if (x->kind != C_BARRIER) {
    if (e->r.buf) hash_bytes(h, e->r.buf, e->r.alloc);
    if (e->s.buf) buf_free(&e->s);
    if (e->r.buf) buf_free(&e->r);
  }
  e->live = 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Communicators */
static int free_slot(Ctx *c) {
  for (int i = 1; i < MAXSLOT; i++) if (!c->slot[i].live) return i;
  return -1;
}
static int random_live_slot(Ctx *c, int min_size) {
  int ids[MAXSLOT], k = 0;
  for (int i = 0; i < MAXSLOT; i++) if (c->slot[i].live && c->slot[i].size >= min_size) ids[k++] = i;
  return k ? ids[rint_(&c->rng, 0, k - 1)] : 0;
}
/* A new slot with the given members (world ranks, in rank order); comm is this rank's handle. */
static void slot_set(Ctx *c, int s, const int *members, int size, MPI_Comm comm, int parent) {
  Slot *x = &c->slot[s];
  x->live = 1; x->size = size; x->pending = 0;
  memcpy(x->members, members, sizeof(int) * (size_t)size);
  x->comm = comm;
  x->me = -1;
  for (int i = 0; i < size; i++) if (members[i] == c->wrank) x->me = i;
  if ((x->me >= 0) != (comm != MPI_COMM_NULL)) die("a new communicator's membership is not the one MPI defines");
  if (comm != MPI_COMM_NULL) {
    int r, sz, cmp;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &sz);
    MPI_Comm_compare(comm, c->slot[parent].comm, &cmp);
    hash_int(&c->hash, r); hash_int(&c->hash, sz); hash_int(&c->hash, cmp);
    if (r != x->me || sz != size) die("a new communicator's rank or size is not the one MPI defines");
  }
}

static void step_split(Ctx *c, int p) {
  Slot *par = &c->slot[p];
  int n = par->size, color[MAXR], key[MAXR];
  for (int i = 0; i < n; i++) {
    color[i] = rpct(&c->rng, 12) ? MPI_UNDEFINED : rint_(&c->rng, 0, 2);
    key[i] = rint_(&c->rng, 0, 3);
  }
  MPI_Comm nc = MPI_COMM_NULL;
  if (par->me >= 0) MPI_Comm_split(par->comm, color[par->me], key[par->me], &nc);
  for (int col = 0; col < 3; col++) {
    int mem[MAXR], idx[MAXR], k = 0;
    for (int i = 0; i < n; i++) if (color[i] == col) idx[k++] = i;
    if (!k) continue;
    for (int a = 1; a < k; a++)  /* by (key, parent rank): insertion sort keeps parent order on ties */
      for (int b = a; b > 0 && key[idx[b]] < key[idx[b - 1]]; b--) { int t = idx[b]; idx[b] = idx[b - 1]; idx[b - 1] = t; }
    for (int i = 0; i < k; i++) mem[i] = par->members[idx[i]];
    int s = free_slot(c);
    int mine = par->me >= 0 && color[par->me] == col;
    if (s < 0) {  /* no room: free the new communicator again */
      if (mine) MPI_Comm_free(&nc);
      continue;
    }
    slot_set(c, s, mem, k, mine ? nc : MPI_COMM_NULL, p);
    if (mine) nc = MPI_COMM_NULL;
  }
  if (nc != MPI_COMM_NULL) die("MPI_Comm_split gave a communicator to a rank with MPI_UNDEFINED");
}

static void step_dup(Ctx *c, int p) {
  Slot *par = &c->slot[p];
  int how = rint_(&c->rng, 0, 2), s = free_slot(c);
  if (s < 0) return;
  MPI_Comm nc = MPI_COMM_NULL;
  if (par->me >= 0) {
    if (how == 0) MPI_Comm_dup(par->comm, &nc);
    else if (how == 1) { MPI_Request q; MPI_Comm_idup(par->comm, &nc, &q); MPI_Wait(&q, MPI_STATUS_IGNORE); }
    else MPI_Comm_dup_with_info(par->comm, MPI_INFO_NULL, &nc);
  }
  slot_set(c, s, par->members, par->size, nc, p);
}

/* MPI_Comm_create (all of the parent) or MPI_Comm_create_group (members only) from a group made with
 * incl, excl, union, intersection or difference. */
static void step_create(Ctx *c, int p, int by_group) {
  Rng *r = &c->rng;
  Slot *par = &c->slot[p];
  int n = par->size, how = rint_(r, 0, 6), a[MAXR], na = rint_(r, 1, n), b[MAXR], nb = rint_(r, 1, n);
  int perm[MAXR];
  for (int i = 0; i < n; i++) perm[i] = i;
  shuffle(r, perm, n);
  memcpy(a, perm, sizeof(int) * (size_t)na);
  shuffle(r, perm, n);
  memcpy(b, perm, sizeof(int) * (size_t)nb);
  int tag = rint_(r, 0, 1000), ina[MAXR] = {0};
  /* range_incl/range_excl: up to 3 (first, last, stride) triplets naming distinct ranks; their ranks in
   * order go to a[] (na of them) */
  int rg[3][3], nrg = 0;
  if (how >= 5) {
    int used[MAXR] = {0}, want = rint_(r, 1, 3);
    na = 0;
    for (int t = 0; t < 8 && nrg < want; t++) {
      int first = rint_(r, 0, n - 1), stride = rint_(r, 1, 3) * (rpct(r, 30) ? -1 : 1), len = rint_(r, 1, 4);
      int last = first + (len - 1) * stride, slack = rint_(r, 0, 2);
      if (last < 0 || last >= n) continue;
      int ok = 1;
      for (int k = 0; k < len; k++) ok &= !used[first + k * stride];
      if (!ok) continue;
      /* last need not lie on the stride: move it towards the next rank the stride would name */
      int last2 = last + (stride > 0 ? 1 : -1) * (slack < (stride > 0 ? stride : -stride) ? slack : 0);
      if (last2 >= 0 && last2 < n) last = last2;
      for (int k = 0; k < len; k++) { used[first + k * stride] = 1; a[na++] = first + k * stride; }
      rg[nrg][0] = first; rg[nrg][1] = last; rg[nrg][2] = stride; nrg++;
    }
    for (int i = 0; i < n; i++) ina[i] = 0;
  }
  /* the members it must have, as parent ranks in the new rank order */
  int res[MAXR], nr = 0, inb[MAXR] = {0};
  for (int i = 0; i < na; i++) ina[a[i]] = 1;
  for (int i = 0; i < nb; i++) inb[b[i]] = 1;
  switch (how) {
  case 0: for (int i = 0; i < na; i++) res[nr++] = a[i]; break;                  /* incl */
  case 1: for (int i = 0; i < n; i++) if (!ina[i]) res[nr++] = i; break;         /* excl */
  case 2:                                                                         /* union */
    for (int i = 0; i < na; i++) res[nr++] = a[i];
    for (int i = 0; i < nb; i++) if (!ina[b[i]]) res[nr++] = b[i];
    break;
  case 3: for (int i = 0; i < na; i++) if (inb[a[i]]) res[nr++] = a[i]; break;   /* intersection */
  case 4: for (int i = 0; i < na; i++) if (!inb[a[i]]) res[nr++] = a[i]; break;  /* difference */
  case 5: for (int i = 0; i < na; i++) res[nr++] = a[i]; break;                  /* range_incl */
  case 6: for (int i = 0; i < n; i++) if (!ina[i]) res[nr++] = i; break;         /* range_excl */
  }
  int s = free_slot(c);
  if (s < 0) return;
  int member = 0;
  for (int i = 0; i < nr; i++) if (res[i] == par->me) member = 1;
  if (by_group && !member) {  /* MPI_Comm_create_group: only the group's members call */
    if (nr > 0) {
      int mem[MAXR];
      for (int i = 0; i < nr; i++) mem[i] = par->members[res[i]];
      slot_set(c, s, mem, nr, MPI_COMM_NULL, p);
    }
    return;
  }
  MPI_Comm nc = MPI_COMM_NULL;
  if (par->me >= 0) {
    MPI_Group pg, ga, gb, g;
    MPI_Comm_group(par->comm, &pg);
    if (how == 1) MPI_Group_excl(pg, na, a, &g);
    else if (how == 5) MPI_Group_range_incl(pg, nrg, rg, &g);
    else if (how == 6) MPI_Group_range_excl(pg, nrg, rg, &g);
    else {
      MPI_Group_incl(pg, na, a, &ga);
      if (how == 0) g = ga;
      else {
        MPI_Group_incl(pg, nb, b, &gb);
        if (how == 2) MPI_Group_union(ga, gb, &g);
        else if (how == 3) MPI_Group_intersection(ga, gb, &g);
        else MPI_Group_difference(ga, gb, &g);
        MPI_Group_free(&ga);
        MPI_Group_free(&gb);
      }
    }
    int gs, gr, tr[MAXR], all[MAXR], cmp;
    MPI_Group_size(g, &gs);
    MPI_Group_rank(g, &gr);
    for (int i = 0; i < gs; i++) all[i] = i;
    MPI_Group_translate_ranks(g, gs, all, pg, tr);
    MPI_Group_compare(g, pg, &cmp);
    if (gs != nr) die("a group has not the size MPI defines");
    for (int i = 0; i < gs; i++) if (tr[i] != res[i]) die("a group's ranks translate to the wrong parent ranks");
    hash_int(&c->hash, gs); hash_int(&c->hash, gr); hash_int(&c->hash, cmp);
    if (by_group) MPI_Comm_create_group(par->comm, g, tag, &nc);
    else MPI_Comm_create(par->comm, g, &nc);
    MPI_Group_free(&g);
    MPI_Group_free(&pg);
  }
  if (nr == 0) { if (nc != MPI_COMM_NULL) die("an empty group gave a communicator"); return; }
  int mem[MAXR];
  for (int i = 0; i < nr; i++) mem[i] = par->members[res[i]];
  slot_set(c, s, mem, nr, nc, p);
}

static void free_comm(Ctx *c, int s) {
  if (c->slot[s].comm != MPI_COMM_NULL) MPI_Comm_free(&c->slot[s].comm);
  c->slot[s].live = 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Process topologies: a Cartesian grid (MPI_Dims_create, periodic only along dimensions of 3 or more, where
 * the neighbour order is unambiguous; reorder 0) or a distributed graph from adjacency lists (random edges,
 * in random order); its queries, then a neighbourhood collective (allgather, alltoall or alltoallv,
 * blocking or nonblocking) of MPI_INT blocks. The topology communicator is freed at the end of the step. */
enum { NB_ALLGATHER, NB_ALLTOALL, NB_ALLTOALLV };
static void step_topo(Ctx *c, int p) {
  Rng *r = &c->rng;
  const Slot *sl = &c->slot[p];
  int n = sl->size, me = sl->me, cart = rpct(r, 65), nd = rint_(r, 1, 3), dims[3] = {0, 0, 0}, per[3];
  int coll = rint_(r, 0, 2), nb = rpct(r, 40), u = rint_(r, 0, 4), sdisp = rint_(r, 1, 2);
  MPI_Dims_create(n, nd, dims);  /* local: every rank computes the same grid */
  for (int d = 0; d < nd; d++) per[d] = dims[d] >= 3 && rpct(r, 50);
  /* graph: every rank's out-edges, then every rank's in-edges in a random order (this rank keeps its own) */
  int out[MAXR][MAXR], nout[MAXR] = {0}, in[MAXR], nin = 0;
  if (!cart) {
    for (int i = 0; i < n; i++) {
      int perm[MAXR];
      for (int j = 0; j < n; j++) perm[j] = j;
      shuffle(r, perm, n);
      nout[i] = rint_(r, 0, n < 4 ? n : 4);
      for (int k = 0; k < nout[i]; k++) out[i][k] = perm[k];
    }
    for (int j = 0; j < n; j++) {
      int lst[MAXR], k = 0;
      for (int i = 0; i < n; i++)
        for (int e = 0; e < nout[i]; e++)
          if (out[i][e] == j) lst[k++] = i;
      shuffle(r, lst, k);
      if (j == me) { nin = k; memcpy(in, lst, sizeof(int) * (size_t)k); }
    }
  }
  if (me < 0) return;
  MPI_Comm tc;
  int indeg, outdeg, srcs[MAXR], dsts[MAXR];
  uint64_t *h = &c->hash;
  if (cart) {
    MPI_Cart_create(sl->comm, nd, dims, per, 0, &tc);
    int cr, coords[3], tt, ndims, gd[3], gp[3], gc[3];
    MPI_Comm_rank(tc, &cr);
    MPI_Topo_test(tc, &tt);
    MPI_Cartdim_get(tc, &ndims);
    MPI_Cart_get(tc, nd, gd, gp, gc);
    MPI_Cart_coords(tc, cr, nd, coords);
    hash_int(h, cr); hash_int(h, tt); hash_int(h, ndims);
    for (int d = 0; d < nd; d++) { hash_int(h, gd[d]); hash_int(h, gp[d]); hash_int(h, gc[d]); hash_int(h, coords[d]); }
    indeg = outdeg = 0;
    for (int d = 0; d < nd; d++) {
      int a, b, a2, b2;
      MPI_Cart_shift(tc, d, 1, &a, &b);
      MPI_Cart_shift(tc, d, sdisp, &a2, &b2);
      hash_int(h, a); hash_int(h, b); hash_int(h, a2); hash_int(h, b2);
      srcs[indeg++] = a; srcs[indeg++] = b;  /* neighbour order: per dimension, -1 then +1 */
      dsts[outdeg++] = a; dsts[outdeg++] = b;
      int cc[3], rr;
      for (int e = 0; e < nd; e++) cc[e] = coords[e];
      cc[d] = per[d] ? coords[d] + dims[d] + 1 : (coords[d] + 1) % dims[d];  /* wraps only where periodic */
      MPI_Cart_rank(tc, cc, &rr);
      hash_int(h, rr);
    }
  } else {
    int sw = 0;
    MPI_Dist_graph_create_adjacent(sl->comm, nin, in, MPI_UNWEIGHTED, nout[me], out[me], MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &tc);
    int wgt, tt;
    MPI_Topo_test(tc, &tt);
    MPI_Dist_graph_neighbors_count(tc, &indeg, &outdeg, &wgt);
    MPI_Dist_graph_neighbors(tc, indeg, srcs, &sw, outdeg, dsts, &sw);
    hash_int(h, tt); hash_int(h, indeg); hash_int(h, outdeg);
    if (indeg != nin || outdeg != nout[me]) die("MPI_Dist_graph_neighbors_count differs from the adjacency given");
    for (int i = 0; i < indeg; i++) { hash_int(h, srcs[i]); if (srcs[i] != in[i]) die("MPI_Dist_graph_neighbors: sources out of order"); }
    for (int i = 0; i < outdeg; i++) { hash_int(h, dsts[i]); if (dsts[i] != out[me][i]) die("MPI_Dist_graph_neighbors: destinations out of order"); }
  }
  /* the neighbourhood collective: blocks of u ints; alltoallv: 0-3 ints per edge, the same number on both
   * ends (a function of the sender and the edge: on a grid its dimension and direction of travel) */
  int sc[MAXR], sd[MAXR], rc[MAXR], rd[MAXR], stot = 0, rtot = 0;
  for (int i = 0; i < outdeg; i++) {
    int key = cart ? 2 * (i / 2) + (i % 2) : dsts[i];  /* grid: block 2d travels -1, block 2d+1 travels +1 */
    sc[i] = coll == NB_ALLTOALLV ? (int)(mix64(data_seed(c, 5, me) + (uint64_t)key) % 4) : u;
    sd[i] = stot + 1; stot += sc[i] + 1;
  }
  for (int i = 0; i < indeg; i++) {
    int from = srcs[i], key = cart ? 2 * (i / 2) + 1 - (i % 2) : me;  /* from -1 travels +1 and back */
    rc[i] = coll == NB_ALLTOALLV ? (from == MPI_PROC_NULL ? 0 : (int)(mix64(data_seed(c, 5, from) + (uint64_t)key) % 4)) : u;
    rd[i] = rtot + 1; rtot += rc[i] + 1;
  }
  int *sb = malloc(sizeof(int) * (size_t)(stot + u + 1)), *rb = malloc(sizeof(int) * (size_t)(rtot + indeg * u + 4));
  fill_random(sb, sizeof(int) * (size_t)(stot + u + 1), data_seed(c, 4, me));
  memset(rb, 0xA5, sizeof(int) * (size_t)(rtot + indeg * u + 4));
  MPI_Request q = MPI_REQUEST_NULL;
  switch (coll) {
  case NB_ALLGATHER:
    if (nb) MPI_Ineighbor_allgather(sb, u, MPI_INT, rb, u, MPI_INT, tc, &q);
    else MPI_Neighbor_allgather(sb, u, MPI_INT, rb, u, MPI_INT, tc);
    break;
  case NB_ALLTOALL:
    if (nb) MPI_Ineighbor_alltoall(sb, u, MPI_INT, rb, u, MPI_INT, tc, &q);
    else MPI_Neighbor_alltoall(sb, u, MPI_INT, rb, u, MPI_INT, tc);
    break;
  default:
    if (nb) MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, tc, &q);
    else MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, tc);
    break;
  }
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  hash_int(h, 2000 + coll);
  hash_bytes(h, rb, sizeof(int) * (size_t)(rtot + indeg * u + 4));
  free(sb);
  free(rb);
  MPI_Comm_free(&tc);
}

/* ---------------------------------------------------------------------------------------------------
 * Nonblocking collectives in flight: completed by a "complete" step, before their communicator is
 * freed, or when too many are in flight. Digested in start order. */
static void complete_pending(Ctx *c, int which_slot, int method) {
  MPI_Request reqs[MAXPEND];
  MPI_Status st[MAXPEND];
  Exec *done[MAXPEND];
  int k = 0, w = 0;
  for (int i = 0; i < c->npend; i++) {
    Exec *e = c->pend[i];
    if (which_slot >= 0 && e->c.slot != which_slot) { c->pend[w++] = e; continue; }
    c->slot[e->c.slot].pending--;
    if (c->slot[e->c.slot].me < 0) { free(e); continue; }
    done[k] = e;
    reqs[k++] = e->req;
  }
  c->npend = w;
  c->st.wmethods[method]++;
  complete_all(method, k, reqs, st);
  for (int i = 0; i < k; i++) { coll_finish(c, done[i]); free(done[i]); }  /* digested in start order */
}

static void step_collective(Ctx *c) {
  int s = random_live_slot(c, 1);
  gen_coll(c, &c->coll, s);
  if (c->coll.nb && c->npend == MAXPEND) complete_pending(c, -1, W_WAITALL);
  const Slot *sl = &c->slot[s];
  Exec *e = calloc(1, sizeof *e);
  e->live = 1;
  e->c = c->coll;
  if (sl->me >= 0) coll_start(c, e);
  if (c->coll.nb) {
    c->slot[s].pending++;
    c->pend[c->npend++] = e;
  } else {
    if (sl->me >= 0) coll_finish(c, e);
    free(e);
  }
}

/* ---------------------------------------------------------------------------------------------------
 * One seed */
static void run_seed(Ctx *c, uint64_t seed, int max_steps, char *line, size_t linesz) {
  c->seed = seed;
  c->hash = mix64(seed);
  c->rng.s = mix64(seed ^ 0xd1b54a32d192ed03ULL);
  memset(c->slot, 0, sizeof c->slot);
  c->npend = 0;
  for (int i = 0; i < c->wsize; i++) c->slot[0].members[i] = i;
  c->slot[0].live = 1; c->slot[0].size = c->wsize; c->slot[0].comm = MPI_COMM_WORLD; c->slot[0].me = c->wrank;
  int nsteps = rint_(&c->rng, 4, max_steps);
  P2P *p2p = malloc(sizeof *p2p);
  for (c->step = 0; c->step < nsteps; c->step++) {
    int k = rint_(&c->rng, 0, 99), kind;
    if (k < 32) kind = S_P2P;
    else if (k < 38) kind = S_SHIFT;
    else if (k < 67) kind = S_COLL;
    else if (k < 72) kind = S_COMPLETE;
    else if (k < 77) kind = S_TOPO;
    else if (k < 83) kind = S_SPLIT;
    else if (k < 87) kind = S_DUP;
    else if (k < 91) kind = S_CREATE;
    else if (k < 94) kind = S_CREATE_GROUP;
    else kind = S_FREE;
    c->st.steps[kind]++;
    switch (kind) {
    case S_P2P: {
      int s = random_live_slot(c, 1);
      gen_p2p(c, p2p, &c->slot[s]);
      if (c->slot[s].me >= 0) exec_p2p(c, p2p, &c->slot[s]);
      break;
    }
    case S_SHIFT: step_shift(c, &c->slot[random_live_slot(c, 1)]); break;
    case S_COLL: step_collective(c); break;
    case S_COMPLETE: {
      int all = rpct(&c->rng, 50), s = random_live_slot(c, 1), m = rint_(&c->rng, 0, NWMETHOD - 1);
      complete_pending(c, all ? -1 : s, m);
      break;
    }
    case S_TOPO: step_topo(c, random_live_slot(c, 1)); break;
    case S_SPLIT: step_split(c, random_live_slot(c, 1)); break;
    case S_DUP: step_dup(c, random_live_slot(c, 1)); break;
    case S_CREATE: step_create(c, random_live_slot(c, 1), 0); break;
    case S_CREATE_GROUP: step_create(c, random_live_slot(c, 1), 1); break;
    case S_FREE: {
      int s = random_live_slot(c, 1);
      if (s == 0) break;
      if (c->slot[s].pending) complete_pending(c, s, W_WAITALL);
      free_comm(c, s);
      break;
    }
    }
    if (c->trace) {
      uint64_t all[MAXR];
      MPI_Gather(&c->hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
      if (c->wrank == 0) {
        printf("  seed %llu step %d %s:", (unsigned long long)seed, c->step, step_name[kind]);
        for (int i = 0; i < c->wsize; i++) printf(" %016llx", (unsigned long long)all[i]);
        printf("\n");
        fflush(stdout);
      }
    }
  }
  free(p2p);
  complete_pending(c, -1, W_WAITALL);
  for (int s = 1; s < MAXSLOT; s++) if (c->slot[s].live) free_comm(c, s);
  MPI_Barrier(MPI_COMM_WORLD);  /* no message of this seed may meet the next seed's receives */
  uint64_t all[MAXR];
  MPI_Gather(&c->hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (c->wrank == 0) {
    size_t o = (size_t)snprintf(line, linesz, "seed %llu ranks %d steps %d:", (unsigned long long)seed, c->wsize, nsteps);
    for (int i = 0; i < c->wsize && o < linesz; i++) o += (size_t)snprintf(line + o, linesz - o, " %016llx", (unsigned long long)all[i]);
  }
  c->st.seeds++;
}

static void print_stats(const Ctx *c) {
  /* sums over ranks of what each rank executed, except steps (counted once, by rank 0's generator) */
  Stats sum;
  MPI_Reduce(&c->st, &sum, (int)(sizeof(Stats) / sizeof(long)), MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (c->wrank != 0) return;
  FILE *f = stderr;
  fprintf(f, "randprog: %ld seeds over %d ranks\n  steps:", c->st.seeds, c->wsize);
  for (int i = 0; i < NSTEP; i++) fprintf(f, " %s %ld", step_name[i], c->st.steps[i]);
  fprintf(f, "\n  collective calls (all ranks; nonblocking in brackets):");
  for (int i = 0; i < NCOLL; i++) fprintf(f, " %s %ld (%ld)", coll_name[i], sum.coll[i], sum.coll_nb[i]);
  fprintf(f, "\n  in place %ld\n  reductions:", sum.inplace);
  for (int i = 0; i < nreds; i++) fprintf(f, " %s %ld;", reds[i].name, sum.reds[i]);
  fprintf(f, "\n  messages %ld (empty %ld, over 64 KiB %ld, to MPI_PROC_NULL %ld):", sum.messages, sum.zero_msgs,
          sum.big_msgs, sum.proc_null);
  for (int i = 0; i < NMODE; i++) fprintf(f, " %s %ld", mode_name[i], sum.modes[i]);
  fprintf(f, "\n  receives: wildcard source+tag %ld, wildcard source+MPI_ANY_TAG %ld, MPI_ANY_TAG %ld, cancelled %ld;",
          sum.wild_tag, sum.wild_any, sum.anytag, sum.cancel);
  for (int i = 0; i < NRMETHOD; i++) fprintf(f, " %s %ld", rmethod_name[i], sum.rmethods[i]);
  fprintf(f, "\n  completion:");
  for (int i = 0; i < NWMETHOD; i++) fprintf(f, " %s %ld", wmethod_name[i], sum.wmethods[i]);
  fprintf(f, "\n  point-to-point layouts:");
  for (int i = 0; i < NLAYOUT; i++) fprintf(f, " %s %ld", layout_name[i], sum.layouts[i]);
  fprintf(f, "\n");
}

static void usage(void) {
  fprintf(stderr, "usage: randprog [--seeds A-B | --seed S] [--max-steps K] [--trace] [--verbose] [--stats]\n"
                  "  --seeds A-B    run seeds A..B (default 1-10)\n"
                  "  --max-steps K  at most K steps per seed (default 24, at least 4)\n"
                  "  --trace        print every rank's digest after every step (finds the first differing step)\n"
                  "  --verbose      every rank describes every operation it runs on stderr\n"
                  "  --stats        print what was exercised on stderr at the end\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Ctx *c = calloc(1, sizeof *c);
  unsigned long long a = 1, b = 10;
  int max_steps = 24, stats = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
      if (sscanf(argv[++i], "%llu-%llu", &a, &b) != 2 || b < a) { usage(); return 2; }
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      a = b = strtoull(argv[++i], NULL, 10);
    } else if (!strcmp(argv[i], "--max-steps") && i + 1 < argc) {
      max_steps = atoi(argv[++i]);
      if (max_steps < 4) { usage(); return 2; }
    } else if (!strcmp(argv[i], "--trace")) c->trace = 1;
    else if (!strcmp(argv[i], "--stats")) stats = 1;
    else if (!strcmp(argv[i], "--verbose")) c->verbose = 1;
    else { usage(); return 2; }
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &c->wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &c->wsize);
  if (c->wsize > MAXR) {
    if (c->wrank == 0) fprintf(stderr, "randprog: at most %d ranks (got %d)\n", MAXR, c->wsize);
    MPI_Finalize();
    return 2;
  }
  /* B_S: struct {int a; double b; char c[3];} as C lays it out, and packed (same type signature) */
  int bl[3] = {1, 1, 3};
  MPI_Datatype ts[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, tmp;
  MPI_Aint dn[3] = {0, 8, 16}, dp[3] = {0, 4, 12};
  MPI_Type_create_struct(3, bl, dn, ts, &tmp);
  MPI_Type_create_resized(tmp, 0, 24, &c->t.s_nat);
  MPI_Type_free(&tmp);
  MPI_Type_create_struct(3, bl, dp, ts, &tmp);
  MPI_Type_create_resized(tmp, 0, 15, &c->t.s_pack);
  MPI_Type_free(&tmp);
  MPI_Type_contiguous(4, MPI_UNSIGNED, &c->t.mat);
  MPI_Type_commit(&c->t.s_nat);
  MPI_Type_commit(&c->t.s_pack);
  MPI_Type_commit(&c->t.mat);
  MPI_Op_create(op_ucomm_fn, 1, &c->t.op_ucomm);
  MPI_Op_create(op_matmul_fn, 0, &c->t.op_matmul);
  MPI_Op_create(op_first_fn, 0, &c->t.op_first);
  MPI_Op_create(op_last_fn, 0, &c->t.op_last);
  int commute[4];
  MPI_Op_commutative(c->t.op_ucomm, &commute[0]);
  MPI_Op_commutative(c->t.op_matmul, &commute[1]);
  MPI_Op_commutative(MPI_SUM, &commute[2]);
  MPI_Op_commutative(c->t.op_last, &commute[3]);
  if (!commute[0] || commute[1] || !commute[2] || commute[3]) die("MPI_Op_commutative answers wrongly");
  void *bsend = malloc(BSEND_BUF);
  MPI_Buffer_attach(bsend, BSEND_BUF);

  char *line = malloc(64 + 17 * MAXR);
  for (unsigned long long s = a; s <= b; s++) {
    run_seed(c, s, max_steps, line, 64 + 17 * MAXR);
    if (c->wrank == 0) { printf("%s\n", line); fflush(stdout); }
  }
  if (stats) print_stats(c);

  void *bb;
  int bs;
  MPI_Buffer_detach(&bb, &bs);
  free(bsend);
  MPI_Op_free(&c->t.op_ucomm);
  MPI_Op_free(&c->t.op_matmul);
  MPI_Op_free(&c->t.op_first);
  MPI_Op_free(&c->t.op_last);
  MPI_Type_free(&c->t.s_nat);
  MPI_Type_free(&c->t.s_pack);
  MPI_Type_free(&c->t.mat);
  free(line);
  free(c);
  MPI_Finalize();
  return 0;
}
