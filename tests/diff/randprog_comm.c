/* randprog_comm.c — randprog's communicator steps (split, dup, create, free) and process topologies
 * (randprog.h). */
#include "randprog.h"

/* ---------------------------------------------------------------------------------------------------
 * Communicators */
int free_slot(Ctx *c) {
  for (int i = 1; i < MAXSLOT; i++) if (!c->slot[i].live) return i;
  return -1;
}
int random_live_slot(Ctx *c, int min_size) {
  int ids[MAXSLOT], k = 0;
  for (int i = 0; i < MAXSLOT; i++) if (c->slot[i].live && c->slot[i].size >= min_size) ids[k++] = i;
  return k ? ids[rint_(&c->rng, 0, k - 1)] : 0;
}
/* A new slot with the given members (world ranks, in rank order); comm is this rank's handle. */
void slot_set(Ctx *c, int s, const int *members, int size, MPI_Comm comm, int parent) {
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

void step_split(Ctx *c, int p) {
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

void step_dup(Ctx *c, int p) {
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
void step_create(Ctx *c, int p, int by_group) {
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

void free_comm(Ctx *c, int s) {
  if (c->slot[s].comm != MPI_COMM_NULL) MPI_Comm_free(&c->slot[s].comm);
  c->slot[s].live = 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Process topologies: a Cartesian grid (MPI_Dims_create, periodic only along dimensions of 3 or more, where
 * the neighbour order is unambiguous; reorder 0) or a distributed graph from adjacency lists (random edges,
 * in random order); its queries, then a neighbourhood collective (allgather, alltoall or alltoallv,
 * blocking or nonblocking) of MPI_INT blocks. The topology communicator is freed at the end of the step. */
enum { NB_ALLGATHER, NB_ALLTOALL, NB_ALLTOALLV };
void step_topo(Ctx *c, int p) {
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
