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
