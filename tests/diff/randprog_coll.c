/* randprog_coll.c — randprog's collectives (randprog.h): drawing, running and digesting them. */
#include "randprog.h"

/* ---------------------------------------------------------------------------------------------------
 * Collectives. gen_coll draws everything for every member (the same draws on every rank) and keeps
 * this rank's part; coll_start runs it (blocking, or starts it nonblocking); coll_finish digests it. */
void gen_coll(Ctx *c, Coll *x, int slot) {
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

void coll_start(Ctx *c, Exec *e) {
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

void coll_finish(Ctx *c, Exec *e) {
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
