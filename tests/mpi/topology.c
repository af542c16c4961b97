/* Process topologies and neighbourhood collectives under xsim. Modes (argv[1]):
 *   all (default)   Cartesian (periodic, non-periodic, size-1/2 periodic dimensions, sub-grids, a grid
 *                   smaller than the communicator), graph and distributed-graph communicators: every query
 *                   function and every neighbourhood collective, checked against values computed here; rank 0
 *                   prints every rank's results and MPI_Wtime, so runs with different numbers of native
 *                   processes can be compared. Any number of ranks >= 2.
 *   timing          16 ranks: MPI_Cart_create of a periodic 4x4 torus, then MPI_Neighbor_alltoall of 250 ints
 *                   per neighbour, then the same as MPI_Ineighbor_alltoall + MPI_Wait; rank 0 prints the
 *                   largest virtual times.
 *   error-dims      MPI_Cart_create of a grid larger than MPI_COMM_WORLD (fatal error).
 *   error-topology  MPI_Cart_shift on MPI_COMM_WORLD, which has no topology (fatal error).
 * A mismatch aborts with "FAILED: ...". No global or static variables: all ranks of a process share them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define UNTOUCHED (-7)

/* Appends " v" for each value to a line buffer. */
static void append_ints(char* line, size_t cap, const char* label, const int* v, int n) {
  size_t len = strlen(line);
  len += (size_t)snprintf(line + len, cap - len, " %s[", label);
  for (int i = 0; i < n && len < cap; ++i) len += (size_t)snprintf(line + len, cap - len, i ? " %d" : "%d", v[i]);
  if (len < cap) snprintf(line + len, cap - len, "]");
}

/* Each rank collects its lines in `out` (OUT_CAP bytes); rank 0 prints everybody's at the end, since lines
 * written by several native processes can be cut and interleaved by the launcher. */
#define OUT_CAP 4096
static void emit(char* out, const char* line) {
  size_t len = strlen(out), add = strlen(line);
  if (len + add + 2 > OUT_CAP) {
    fprintf(stderr, "FAILED: output of a rank exceeds %d bytes\n", OUT_CAP);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memcpy(out + len, line, add);
  out[len + add] = '\n';
  out[len + add + 1] = '\0';
}

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* The send slot of rank q (= my source j) whose block I receive in slot j, by the rule for graphs: the m-th
 * occurrence of q among my sources takes the m-th block q sends to me. q_dests: q's destinations. */
static int graph_pair(const int* my_sources, int j, int me_in_comm, const int* q_dests, int q_outdeg) {
  int m = 0, seen = 0;
  for (int i = 0; i < j; ++i)
    if (my_sources[i] == my_sources[j]) ++m;
  for (int s = 0; s < q_outdeg; ++s)
    if (q_dests[s] == me_in_comm && seen++ == m) return s;
  return -1;
}

/* Every neighbourhood collective on a Cartesian communicator, checked against Cart_shift's neighbours;
 * appends the received data to `line`. */
static void cart_collectives(MPI_Comm cart, int me, char* line, size_t cap, int nonblocking) {
  MPI_Request req;
  int ndims, r;
  MPI_Cartdim_get(cart, &ndims);
  MPI_Comm_rank(cart, &r);
  int deg = 2 * ndims;
  int* nb = malloc(sizeof(int) * (size_t)(deg + 1));
  for (int d = 0; d < ndims; ++d) MPI_Cart_shift(cart, d, 1, &nb[2 * d], &nb[2 * d + 1]);
  int* sbuf = malloc(sizeof(int) * (size_t)(4 * deg + 4));
  int* rbuf = malloc(sizeof(int) * (size_t)(8 * deg + 8));

  /* allgather: my rank to everyone */
  for (int j = 0; j < deg; ++j) rbuf[j] = UNTOUCHED;
  if (nonblocking) {
    MPI_Ineighbor_allgather(&r, 1, MPI_INT, rbuf, 1, MPI_INT, cart, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Neighbor_allgather(&r, 1, MPI_INT, rbuf, 1, MPI_INT, cart);
  }
  for (int j = 0; j < deg; ++j)
    CHECK(rbuf[j] == (nb[j] == MPI_PROC_NULL ? UNTOUCHED : nb[j]), "cart allgather block %d = %d, neighbour %d", j,
          rbuf[j], nb[j]);

  /* alltoall: block k = 100 r + k; I receive in slot j what neighbour j sent in the opposite direction */
  for (int k = 0; k < deg; ++k) sbuf[k] = 100 * r + k;
  for (int j = 0; j < deg; ++j) rbuf[j] = UNTOUCHED;
  if (nonblocking) {
    MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, cart, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, cart);
  }
  for (int j = 0; j < deg; ++j) {
    int want = nb[j] == MPI_PROC_NULL ? UNTOUCHED : 100 * nb[j] + (j % 2 == 0 ? j + 1 : j - 1);
    CHECK(rbuf[j] == want, "cart alltoall block %d = %d, expected %d", j, rbuf[j], want);
  }
  append_ints(line, cap, "a2a", rbuf, deg);

  /* allgatherv: I send (r % 3) + 1 ints; block j sits at 3 j, one untouched element after it */
  int sc = r % 3 + 1, rc[64], dsp[64];
  for (int i = 0; i < sc; ++i) sbuf[i] = 1000 * r + i;
  for (int j = 0; j < 4 * deg; ++j) rbuf[j] = UNTOUCHED;
  for (int j = 0; j < deg; ++j) {
    int q = nb[j];
    rc[j] = q == MPI_PROC_NULL ? 0 : q % 3 + 1;
    dsp[j] = 4 * j;
  }
  if (nonblocking) {
    MPI_Ineighbor_allgatherv(sbuf, sc, MPI_INT, rbuf, rc, dsp, MPI_INT, cart, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Neighbor_allgatherv(sbuf, sc, MPI_INT, rbuf, rc, dsp, MPI_INT, cart);
  }
  for (int j = 0; j < deg; ++j)
    for (int i = 0; i < 4; ++i) {
      int want = i < rc[j] ? 1000 * nb[j] + i : UNTOUCHED;
      CHECK(rbuf[4 * j + i] == want, "cart allgatherv block %d element %d = %d, expected %d", j, i, rbuf[4 * j + i], want);
    }

  /* alltoallv: block k holds k % 3 ints (zero included), laid out in reverse order */
  int scs[64], sds[64], at = 0;
  for (int k = deg - 1; k >= 0; --k) {
    scs[k] = k % 3;
    sds[k] = at;
    for (int i = 0; i < scs[k]; ++i) sbuf[at + i] = 10000 * r + 10 * k + i;
    at += scs[k];
  }
  for (int j = 0; j < deg; ++j) {
    int opp = j % 2 == 0 ? j + 1 : j - 1;
    rc[j] = nb[j] == MPI_PROC_NULL ? 0 : opp % 3;
    dsp[j] = 3 * j;
  }
  for (int j = 0; j < 3 * deg; ++j) rbuf[j] = UNTOUCHED;
  if (nonblocking) {
    MPI_Ineighbor_alltoallv(sbuf, scs, sds, MPI_INT, rbuf, rc, dsp, MPI_INT, cart, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Neighbor_alltoallv(sbuf, scs, sds, MPI_INT, rbuf, rc, dsp, MPI_INT, cart);
  }
  for (int j = 0; j < deg; ++j) {
    int opp = j % 2 == 0 ? j + 1 : j - 1;
    for (int i = 0; i < 3; ++i) {
      int want = i < rc[j] ? 10000 * nb[j] + 10 * opp + i : UNTOUCHED;
      CHECK(rbuf[3 * j + i] == want, "cart alltoallv block %d element %d = %d, expected %d", j, i, rbuf[3 * j + i], want);
    }
  }

  /* alltoallw: one double per block, received as MPI_DOUBLE at byte displacements in reverse order */
  double* ds = malloc(sizeof(double) * (size_t)(deg + 1));
  double* dr = malloc(sizeof(double) * (size_t)(deg + 1));
  int* ones = malloc(sizeof(int) * (size_t)(deg + 1));
  MPI_Aint* sdw = malloc(sizeof(MPI_Aint) * (size_t)(deg + 1));
  MPI_Aint* rdw = malloc(sizeof(MPI_Aint) * (size_t)(deg + 1));
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)(deg + 1));
  for (int k = 0; k < deg; ++k) {
    ds[k] = r + 0.125 * k;
    dr[k] = -1.0;
    ones[k] = 1;
    sdw[k] = (MPI_Aint)(sizeof(double) * (size_t)k);
    rdw[k] = (MPI_Aint)(sizeof(double) * (size_t)(deg - 1 - k));
    types[k] = MPI_DOUBLE;
  }
  if (nonblocking) {
    MPI_Ineighbor_alltoallw(ds, ones, sdw, types, dr, ones, rdw, types, cart, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Neighbor_alltoallw(ds, ones, sdw, types, dr, ones, rdw, types, cart);
  }
  for (int j = 0; j < deg; ++j) {
    int opp = j % 2 == 0 ? j + 1 : j - 1;
    double want = nb[j] == MPI_PROC_NULL ? -1.0 : nb[j] + 0.125 * opp;
    CHECK(dr[deg - 1 - j] == want, "cart alltoallw block %d = %g, expected %g", j, dr[deg - 1 - j], want);
  }
  free(ds), free(dr), free(ones), free(sdw), free(rdw), free(types);
  free(nb), free(sbuf), free(rbuf);
}

static int run_all(int me, int np) {
  char line[2048];
  char* out = calloc(OUT_CAP, 1);
  int topo;

  MPI_Topo_test(MPI_COMM_WORLD, &topo);
  CHECK(topo == MPI_UNDEFINED, "world has topology %d", topo);

  /* --- Dims_create (the native MPI's) --- */
  int d2[2] = {0, 0}, d3[3] = {0, 0, 0}, dfix[2] = {0, 1};
  MPI_Dims_create(np, 2, d2);
  MPI_Dims_create(np, 3, d3);
  MPI_Dims_create(np, 2, dfix);
  CHECK(d2[0] * d2[1] == np && d2[0] >= d2[1], "dims_create 2: %d x %d", d2[0], d2[1]);
  CHECK(d3[0] * d3[1] * d3[2] == np && d3[0] >= d3[1] && d3[1] >= d3[2], "dims_create 3");
  CHECK(dfix[0] == np && dfix[1] == 1, "dims_create with a fixed dimension: %d x %d", dfix[0], dfix[1]);
  if (me == 0) printf("dims_create %d: %dx%d, %dx%dx%d\n", np, d2[0], d2[1], d3[0], d3[1], d3[2]);

  /* --- 2-D grid, periodic in the first dimension only --- */
  int periods2[2] = {1, 0};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, d2, periods2, 1, &cart);
  CHECK(cart != MPI_COMM_NULL, "no cart communicator");
  MPI_Topo_test(cart, &topo);
  CHECK(topo == MPI_CART, "topo_test %d", topo);
  int cr, cs, nd, gd[2], gp[2], gc[2], c[2];
  MPI_Comm_rank(cart, &cr);
  MPI_Comm_size(cart, &cs);
  MPI_Cartdim_get(cart, &nd);
  MPI_Cart_get(cart, 2, gd, gp, gc);
  MPI_Cart_coords(cart, cr, 2, c);
  CHECK(cr == me && cs == np && nd == 2, "cart rank %d size %d ndims %d", cr, cs, nd);
  CHECK(gd[0] == d2[0] && gd[1] == d2[1] && gp[0] == 1 && gp[1] == 0, "cart_get dims/periods");
  CHECK(c[0] == me / d2[1] && c[1] == me % d2[1] && gc[0] == c[0] && gc[1] == c[1], "coords (%d,%d) not row-major",
        c[0], c[1]);
  for (int r = 0; r < np; ++r) { /* coords and rank are inverse */
    int rc[2], back;
    MPI_Cart_coords(cart, r, 2, rc);
    MPI_Cart_rank(cart, rc, &back);
    CHECK(back == r, "cart_rank(cart_coords(%d)) = %d", r, back);
  }
  int wrapped[2] = {c[0] - d2[0], c[1]}, wr;
  MPI_Cart_rank(cart, wrapped, &wr);
  CHECK(wr == me, "periodic coordinate not wrapped: %d", wr);
  int src0, dst0, src1, dst1, src2, dst2;
  MPI_Cart_shift(cart, 0, 1, &src0, &dst0);
  MPI_Cart_shift(cart, 1, 1, &src1, &dst1);
  MPI_Cart_shift(cart, 1, -2, &src2, &dst2);
  CHECK(src0 == mod(c[0] - 1, d2[0]) * d2[1] + c[1] && dst0 == mod(c[0] + 1, d2[0]) * d2[1] + c[1], "shift dim 0");
  CHECK(src1 == (c[1] == 0 ? MPI_PROC_NULL : me - 1) && dst1 == (c[1] == d2[1] - 1 ? MPI_PROC_NULL : me + 1),
        "shift dim 1: %d %d", src1, dst1);
  CHECK(src2 == (c[1] + 2 < d2[1] ? me + 2 : MPI_PROC_NULL) && dst2 == (c[1] - 2 >= 0 ? me - 2 : MPI_PROC_NULL),
        "shift dim 1 by -2: %d %d", src2, dst2);
  snprintf(line, sizeof line, "rank %3d cart2d (%d,%d) shift %d %d %d %d", me, c[0], c[1], src0, dst0, src1, dst1);
  cart_collectives(cart, me, line, sizeof line, 0);
  emit(out, line);

  /* a duplicate keeps the topology */
  MPI_Comm dup;
  MPI_Comm_dup(cart, &dup);
  MPI_Topo_test(dup, &topo);
  int ds0, dd0;
  MPI_Cart_shift(dup, 0, 1, &ds0, &dd0);
  CHECK(topo == MPI_CART && ds0 == src0 && dd0 == dst0, "dup lost the topology");
  MPI_Comm_free(&dup);

  /* Cart_sub: keep dimension 1 (rows of the grid); and keep nothing (0-D) */
  int keep_cols[2] = {0, 1}, keep_none[2] = {0, 0};
  MPI_Comm row, point;
  MPI_Cart_sub(cart, keep_cols, &row);
  int rr, rs, rnd, sum;
  MPI_Comm_rank(row, &rr);
  MPI_Comm_size(row, &rs);
  MPI_Cartdim_get(row, &rnd);
  CHECK(rr == c[1] && rs == d2[1] && rnd == 1, "cart_sub row: rank %d size %d ndims %d", rr, rs, rnd);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, row);
  int want_sum = 0;
  for (int j = 0; j < d2[1]; ++j) want_sum += c[0] * d2[1] + j;
  CHECK(sum == want_sum, "allreduce over a row: %d, expected %d", sum, want_sum);
  int rsrc, rdst;
  MPI_Cart_shift(row, 0, 1, &rsrc, &rdst);
  CHECK(rsrc == (c[1] == 0 ? MPI_PROC_NULL : c[1] - 1), "row shift source %d", rsrc);
  MPI_Cart_sub(cart, keep_none, &point);
  int ps, pnd;
  MPI_Comm_size(point, &ps);
  MPI_Cartdim_get(point, &pnd);
  CHECK(ps == 1 && pnd == 0, "0-D sub-grid size %d ndims %d", ps, pnd);
  MPI_Comm_free(&point);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);

  /* --- 3-D periodic grid from Dims_create: dimensions of size 1 or 2 give the same neighbour twice --- */
  int periods3[3] = {1, 1, 1};
  MPI_Comm cube;
  MPI_Cart_create(MPI_COMM_WORLD, 3, d3, periods3, 0, &cube);
  snprintf(line, sizeof line, "rank %3d cart3d", me);
  cart_collectives(cube, me, line, sizeof line, 0);
  emit(out, line);
  /* the nonblocking forms give the same results */
  snprintf(line, sizeof line, "rank %3d cart3d-nonblocking", me);
  cart_collectives(cube, me, line, sizeof line, 1);
  emit(out, line);
  { /* two nonblocking neighbourhood collectives in flight at once, a blocking one between them */
    int r3, nbr[6], s1[6], a1[6], g1[6], b1[6];
    MPI_Request q[2];
    MPI_Comm_rank(cube, &r3);
    for (int d = 0; d < 3; ++d) MPI_Cart_shift(cube, d, 1, &nbr[2 * d], &nbr[2 * d + 1]);
    for (int k = 0; k < 6; ++k) s1[k] = 100 * r3 + k;
    MPI_Ineighbor_alltoall(s1, 1, MPI_INT, a1, 1, MPI_INT, cube, &q[0]);
    MPI_Ineighbor_allgather(&r3, 1, MPI_INT, g1, 1, MPI_INT, cube, &q[1]);
    MPI_Neighbor_alltoall(s1, 1, MPI_INT, b1, 1, MPI_INT, cube);
    MPI_Status st[2];
    MPI_Waitall(2, q, st);
    for (int j = 0; j < 6; ++j) {
      int want = 100 * nbr[j] + (j % 2 == 0 ? j + 1 : j - 1);
      CHECK(a1[j] == want && b1[j] == want && g1[j] == nbr[j], "overlapped neighbourhood collectives, block %d: %d %d %d",
            j, a1[j], b1[j], g1[j]);
    }
  }
  MPI_Comm_free(&cube);

  /* --- a 1-D ring of size 2 and a non-periodic line of half the ranks (the others get MPI_COMM_NULL) --- */
  int two = 2, yes = 1, half = np / 2, no = 0;
  MPI_Comm pair, line_comm;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &two, &yes, 0, &pair);
  MPI_Cart_create(MPI_COMM_WORLD, 1, &half, &no, 0, &line_comm);
  CHECK((me < 2) == (pair != MPI_COMM_NULL), "ring of 2 membership");
  CHECK((me < half) == (line_comm != MPI_COMM_NULL), "line membership");
  if (pair != MPI_COMM_NULL) {
    snprintf(line, sizeof line, "rank %3d ring2", me);
    cart_collectives(pair, me, line, sizeof line, 0);
    emit(out, line);
    snprintf(line, sizeof line, "rank %3d ring2-nonblocking", me);
    cart_collectives(pair, me, line, sizeof line, 1);
    emit(out, line);
    MPI_Comm_free(&pair);
  }
  if (line_comm != MPI_COMM_NULL) {
    snprintf(line, sizeof line, "rank %3d line%d", me, half);
    cart_collectives(line_comm, me, line, sizeof line, 0);
    emit(out, line);
    MPI_Comm_free(&line_comm);
  }
  int mapped;
  MPI_Cart_map(MPI_COMM_WORLD, 1, &half, &no, &mapped);
  CHECK(mapped == (me < half ? me : MPI_UNDEFINED), "cart_map %d", mapped);

  /* --- graph: a ring over np-1 nodes, even nodes with a self loop (the last rank is not in it) --- */
  int nn = np - 1;
  int* index = malloc(sizeof(int) * (size_t)nn);
  int* edges = malloc(sizeof(int) * (size_t)(3 * nn));
  int ne = 0;
  for (int i = 0; i < nn; ++i) {
    edges[ne++] = (i + 1) % nn;
    edges[ne++] = (i - 1 + nn) % nn;
    if (i % 2 == 0) edges[ne++] = i;
    index[i] = ne;
  }
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, nn, index, edges, 0, &graph);
  CHECK((me < nn) == (graph != MPI_COMM_NULL), "graph membership");
  MPI_Graph_map(MPI_COMM_WORLD, nn, index, edges, &mapped);
  CHECK(mapped == (me < nn ? me : MPI_UNDEFINED), "graph_map %d", mapped);
  if (graph != MPI_COMM_NULL) {
    int gn, gne, cnt, nbrs[3], qn[3], qcnt;
    MPI_Topo_test(graph, &topo);
    MPI_Graphdims_get(graph, &gn, &gne);
    CHECK(topo == MPI_GRAPH && gn == nn && gne == ne, "graph dims %d %d", gn, gne);
    int* gi = malloc(sizeof(int) * (size_t)nn);
    int* ge = malloc(sizeof(int) * (size_t)ne);
    MPI_Graph_get(graph, nn, ne, gi, ge);
    CHECK(memcmp(gi, index, sizeof(int) * (size_t)nn) == 0 && memcmp(ge, edges, sizeof(int) * (size_t)ne) == 0,
          "graph_get");
    free(gi), free(ge);
    MPI_Graph_neighbors_count(graph, me, &cnt);
    MPI_Graph_neighbors(graph, me, 3, nbrs);
    CHECK(cnt == (me % 2 == 0 ? 3 : 2) && nbrs[0] == (me + 1) % nn, "graph neighbours of %d: %d", me, cnt);
    int sbuf[3], rbuf[3] = {UNTOUCHED, UNTOUCHED, UNTOUCHED}, gat[3];
    for (int k = 0; k < cnt; ++k) sbuf[k] = 100 * me + k;
    MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, graph);
    MPI_Neighbor_allgather(&me, 1, MPI_INT, gat, 1, MPI_INT, graph);
    for (int j = 0; j < cnt; ++j) {
      int q = nbrs[j];
      MPI_Graph_neighbors_count(graph, q, &qcnt);
      MPI_Graph_neighbors(graph, q, 3, qn);
      int s = graph_pair(nbrs, j, me, qn, qcnt);
      CHECK(rbuf[j] == 100 * q + s, "graph alltoall block %d = %d, expected %d", j, rbuf[j], 100 * q + s);
      CHECK(gat[j] == q, "graph allgather block %d = %d", j, gat[j]);
    }
    snprintf(line, sizeof line, "rank %3d graph", me);
    append_ints(line, sizeof line, "nbrs", nbrs, cnt);
    append_ints(line, sizeof line, "a2a", rbuf, cnt);
    emit(out, line);
    MPI_Comm_free(&graph);
  }
  free(index), free(edges);

  /* --- distributed graph, adjacent form: out to r+1, r+2; in from r-1, r-2; weighted --- */
  int srcs[2] = {mod(me - 1, np), mod(me - 2, np)}, dsts[2] = {mod(me + 1, np), mod(me + 2, np)};
  int sw[2] = {10, 20}, dw[2] = {1, 2};
  MPI_Comm dg;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, sw, 2, dsts, dw, MPI_INFO_NULL, 0, &dg);
  int indeg, outdeg, weighted, gs[2], gsw[2], gdst[2], gdw[2];
  MPI_Topo_test(dg, &topo);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(topo == MPI_DIST_GRAPH && indeg == 2 && outdeg == 2 && weighted, "dist graph counts %d %d %d", indeg, outdeg,
        weighted);
  MPI_Dist_graph_neighbors(dg, 2, gs, gsw, 2, gdst, gdw);
  CHECK(gs[0] == srcs[0] && gs[1] == srcs[1] && gdst[0] == dsts[0] && gdst[1] == dsts[1], "dist graph neighbours");
  CHECK(gsw[0] == 10 && gsw[1] == 20 && gdw[0] == 1 && gdw[1] == 2, "dist graph weights");
  {
    int sbuf[2] = {100 * me, 100 * me + 1}, rbuf[2] = {UNTOUCHED, UNTOUCHED};
    MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dg);
    /* r-1 sent to me (its r+1) in slot 0, r-2 (its r+2) in slot 1 */
    CHECK(rbuf[0] == 100 * srcs[0] && rbuf[1] == 100 * srcs[1] + 1, "dist graph alltoall %d %d", rbuf[0], rbuf[1]);
    MPI_Comm dgdup;
    MPI_Comm_dup(dg, &dgdup);
    MPI_Dist_graph_neighbors_count(dgdup, &indeg, &outdeg, &weighted);
    CHECK(indeg == 2 && outdeg == 2, "dup of a dist graph lost its adjacency");
    MPI_Comm_free(&dgdup);
    snprintf(line, sizeof line, "rank %3d distgraph-adjacent in %d %d a2a %d %d", me, gs[0], gs[1], rbuf[0], rbuf[1]);
    emit(out, line);
  }
  MPI_Comm_free(&dg);

  /* --- distributed graph, general form: rank 0 names every edge i -> i+1 (weight i); every rank names
   *     its own edge to r+5 (weight 7) --- */
  int n0 = me == 0 ? np + 1 : 1;
  int* gsrc = malloc(sizeof(int) * (size_t)n0);
  int* gdeg = malloc(sizeof(int) * (size_t)n0);
  int* gdest = malloc(sizeof(int) * (size_t)n0);
  int* gwt = malloc(sizeof(int) * (size_t)n0);
  int e = 0;
  if (me == 0)
    for (int i = 0; i < np; ++i, ++e) gsrc[e] = i, gdeg[e] = 1, gdest[e] = (i + 1) % np, gwt[e] = i;
  gsrc[e] = me, gdeg[e] = 1, gdest[e] = mod(me + 5, np), gwt[e] = 7;
  MPI_Dist_graph_create(MPI_COMM_WORLD, n0, gsrc, gdeg, gdest, gwt, MPI_INFO_NULL, 0, &dg);
  free(gsrc), free(gdeg), free(gdest), free(gwt);
  MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
  CHECK(indeg == 2 && outdeg == 2 && weighted, "general dist graph counts %d %d", indeg, outdeg);
  MPI_Dist_graph_neighbors(dg, 2, gs, gsw, 2, gdst, gdw);
  /* the order of the neighbours is the implementation's: check them as sets */
  int prev = mod(me - 1, np), back5 = mod(me - 5, np), next = (me + 1) % np, fwd5 = mod(me + 5, np);
  int in_ok = (gs[0] == prev && gsw[0] == prev && gs[1] == back5 && gsw[1] == 7) ||
              (gs[1] == prev && gsw[1] == prev && gs[0] == back5 && gsw[0] == 7);
  int out_ok = (gdst[0] == next && gdw[0] == me && gdst[1] == fwd5 && gdw[1] == 7) ||
               (gdst[1] == next && gdw[1] == me && gdst[0] == fwd5 && gdw[0] == 7);
  CHECK(in_ok && out_ok, "general dist graph: in %d(%d) %d(%d) out %d(%d) %d(%d)", gs[0], gsw[0], gs[1], gsw[1], gdst[0],
        gdw[0], gdst[1], gdw[1]);
  {
    int rbuf[2] = {UNTOUCHED, UNTOUCHED};
    MPI_Neighbor_allgather(&me, 1, MPI_INT, rbuf, 1, MPI_INT, dg);
    CHECK(rbuf[0] == gs[0] && rbuf[1] == gs[1], "general dist graph allgather %d %d", rbuf[0], rbuf[1]);
    snprintf(line, sizeof line, "rank %3d distgraph in %d %d out %d %d allgather %d %d", me, gs[0], gs[1], gdst[0],
             gdst[1], rbuf[0], rbuf[1]);
    emit(out, line);
  }
  MPI_Comm_free(&dg);

  /* --- errors come back with MPI_ERRORS_RETURN (inherited by a new topology communicator) --- */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int a, b, cls, rc;
  rc = MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &a, &b);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "cart_shift on world: class %d", cls);
  int too_big[2] = {np, 2};
  MPI_Comm bad = MPI_COMM_NULL;
  rc = MPI_Cart_create(MPI_COMM_WORLD, 2, too_big, periods2, 0, &bad);
  CHECK(rc != MPI_SUCCESS, "a grid larger than the communicator was accepted");
  int neg[1] = {-1};
  rc = MPI_Cart_create(MPI_COMM_WORLD, 1, neg, periods2, 0, &bad);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_DIMS, "negative dimension: class %d", cls);
  MPI_Comm lin;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &np, &no, 0, &lin);
  int outside = np;
  rc = MPI_Cart_rank(lin, &outside, &a);
  CHECK(rc != MPI_SUCCESS, "an out-of-range coordinate of a non-periodic dimension was accepted");
  rc = MPI_Cart_shift(lin, 1, 1, &a, &b);
  CHECK(rc != MPI_SUCCESS, "a shift along a missing dimension was accepted");
  rc = MPI_Graphdims_get(lin, &a, &b);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "graphdims_get on a Cartesian communicator: class %d", cls);
  rc = MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, &a, 1, MPI_INT, lin);
  CHECK(rc != MPI_SUCCESS, "MPI_IN_PLACE accepted by a neighbourhood collective");
  MPI_Comm_free(&lin);
  /* an intercommunicator cannot carry a topology */
  MPI_Comm halfc, inter;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &halfc);
  MPI_Intercomm_create(halfc, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 77, &inter);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int one = 1;
  bad = MPI_COMM_NULL;
  rc = MPI_Cart_create(inter, 1, &one, &no, 0, &bad);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM && bad == MPI_COMM_NULL, "cart_create on an intercommunicator: class %d", cls);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&halfc);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  double t = MPI_Wtime(), tmax;
  snprintf(line, sizeof line, "rank %3d time %.9f", me, t);
  emit(out, line);
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  char* all = me == 0 ? malloc((size_t)OUT_CAP * (size_t)np) : NULL;
  MPI_Gather(out, OUT_CAP, MPI_CHAR, all, OUT_CAP, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (me == 0) {
    for (int r = 0; r < np; ++r) fputs(all + (size_t)r * OUT_CAP, stdout);
    printf("topology: %d ranks ok, virtual time %.9f\n", np, tmax);
  }
  free(all);
  free(out);
  return 0;
}

static int run_timing(int me, int np) {
  CHECK(np == 16, "the timing mode needs 16 ranks, not %d", np);
  int dims[2] = {4, 4}, periods[2] = {1, 1};
  MPI_Comm torus;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &torus);
  double t0 = MPI_Wtime();
  int* sbuf = malloc(sizeof(int) * 4 * 250);
  int* rbuf = malloc(sizeof(int) * 4 * 250);
  for (int i = 0; i < 4 * 250; ++i) sbuf[i] = me;
  MPI_Neighbor_alltoall(sbuf, 250, MPI_INT, rbuf, 250, MPI_INT, torus);
  double t1 = MPI_Wtime();
  MPI_Request req;
  MPI_Ineighbor_alltoall(sbuf, 250, MPI_INT, rbuf, 250, MPI_INT, torus, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  double t2 = MPI_Wtime(), times[3] = {t0, t1, t2}, tmax[3];
  free(sbuf), free(rbuf);
  MPI_Reduce(times, tmax, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("topology timing: cart_create %.9f neighbor_alltoall done %.9f ineighbor_alltoall done %.9f\n", tmax[0],
           tmax[1], tmax[2]);
  MPI_Comm_free(&torus);
  return 0;
}

int main(int argc, char** argv) {
  int me, np, rc = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "all";
  if (strcmp(mode, "all") == 0) {
    rc = run_all(me, np);
  } else if (strcmp(mode, "timing") == 0) {
    rc = run_timing(me, np);
  } else if (strcmp(mode, "error-dims") == 0) {
    int dims[2] = {np, 2}, periods[2] = {0, 0};
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
  } else if (strcmp(mode, "error-topology") == 0) {
    int a, b;
    MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &a, &b);
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  MPI_Finalize();
  return rc;
}
