/* Intercommunicators under xsim. Group A = world ranks 0, 3, 6, ... (leader: its rank 0), group B = the
 * others (leader: its rank 1, to exercise a leader that is not rank 0). Checks: sizes and groups,
 * point-to-point both ways (MPI_SOURCE is the remote-group rank), every intercommunicator collective with
 * checked data (roots in either group, short and long message algorithms), dup/compare, split, merge with
 * both orders of `high`. Every rank prints its results and virtual time (compare N = 1 and 2).
 * Modes (first argument): none: the full test; "time": exact virtual times on the default ethernet
 * (needs -xsim-np 8: groups 0-3 and 4-7); "badroot": an intercommunicator bcast with an invalid root;
 * "scan": MPI_Scan on an intercommunicator (both must fail).
 * No global or static variables: the virtual ranks of a native process share them. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each rank's output lines, printed by rank 0 in rank order at the end. */
#define RANK_LOG_BYTES 2048
#include "rank_log.h"

#include "check.h"

/* Exact times: A = world 0-3, B = world 4-7, leaders rank 0 of each. */
static int timing(int me) {
  MPI_Comm half, inter;
  int in_a = me < 4, lr;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, me, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? 4 : 0, 11, &inter);
  MPI_Comm_rank(inter, &lr);
  char buf[1000];
  memset(buf, 0, sizeof buf);
  /* Ping-pong between the leaders, started by A's leader once B's leader is surely waiting (B's leader
   * reports first, so A's leader's clock is past B's): one round trip = 2 x (2 x 25 us + 8 B / 1 Gbps). */
  if (lr == 0) {
    if (in_a) {
      MPI_Recv(buf, 1, MPI_CHAR, 0, 1, inter, MPI_STATUS_IGNORE);
      double t0 = MPI_Wtime();
      MPI_Send(buf, 1000, MPI_CHAR, 0, 2, inter);
      MPI_Recv(buf, 1000, MPI_CHAR, 0, 3, inter, MPI_STATUS_IGNORE);
      printf("intercomm pingpong 1000 bytes: round trip %.9f\n", MPI_Wtime() - t0);
    } else {
      MPI_Send(buf, 1, MPI_CHAR, 0, 1, inter);
      MPI_Recv(buf, 1000, MPI_CHAR, 0, 2, inter, MPI_STATUS_IGNORE);
      MPI_Send(buf, 1000, MPI_CHAR, 0, 3, inter);
    }
  }
  /* Bcast of 4 bytes from A's rank 0 (MPI_ROOT) to B, started once every B rank waits in it: the root
   * sends to B's rank 0 (one hop, L = 50.032 us), which bcasts in B by binomial tree (2 more steps):
   * the last B rank has it 3 L = 150.096 us after the start. */
  int v = 0;
  double t0 = 0, done = 0;
  if (in_a) {
    if (lr == 0) {
      for (int i = 0; i < 4; ++i) MPI_Recv(&v, 1, MPI_INT, i, 4, inter, MPI_STATUS_IGNORE);
      t0 = MPI_Wtime();
      v = 1234;
    }
    MPI_Bcast(&v, 1, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (lr == 0) {
      double worst = 0;
      for (int i = 0; i < 4; ++i) {
        MPI_Recv(&done, 1, MPI_DOUBLE, i, 5, inter, MPI_STATUS_IGNORE);
        if (done - t0 > worst) worst = done - t0;
      }
      printf("intercomm bcast 4 bytes to 4 ranks: %.9f\n", worst);
    }
  } else {
    MPI_Send(&v, 1, MPI_INT, 0, 4, inter);
    MPI_Bcast(&v, 1, MPI_INT, 0, inter);
    CHECK(v == 1234, "timed bcast got %d", v);
    done = MPI_Wtime();
    MPI_Send(&done, 1, MPI_DOUBLE, 0, 5, inter);
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "";
  Log lg = {{0}, 0};
  if (strcmp(mode, "time") == 0) return timing(me);

  const int in_a = me % 3 == 0;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, me, &local);
  int ls, lr;
  MPI_Comm_size(local, &ls);
  MPI_Comm_rank(local, &lr);
  /* A's leader: its rank 0 (world 0); B's leader: its rank 1 (world 2) */
  MPI_Intercomm_create(local, in_a ? 0 : 1, MPI_COMM_WORLD, in_a ? 2 : 0, 99, &inter);

  if (strcmp(mode, "badroot") == 0) {
    int x = 0, rs;
    MPI_Comm_remote_size(inter, &rs);
    MPI_Bcast(&x, 1, MPI_INT, in_a ? rs : 0, inter); /* A passes a root past the end of B */
    printf("r%02d: bad root accepted\n", me);
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "scan") == 0) {
    int x = 1, y;
    MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter);
    printf("r%02d: scan on an intercommunicator accepted\n", me);
    MPI_Finalize();
    return 0;
  }

  /* ---- structure ---- */
  int flag, s, r, rs;
  MPI_Comm_test_inter(inter, &flag);
  MPI_Comm_size(inter, &s);
  MPI_Comm_rank(inter, &r);
  MPI_Comm_remote_size(inter, &rs);
  const int na = (np + 2) / 3, nb = np - na;
  CHECK(flag && s == ls && r == lr && s == (in_a ? na : nb) && rs == (in_a ? nb : na),
        "inter flag %d size %d rank %d remote %d", flag, s, r, rs);
  MPI_Comm_test_inter(local, &flag);
  CHECK(!flag, "an intracommunicator tests as inter");
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "a rank has a parent");
  /* world rank of remote rank i */
  MPI_Group wg, rg, lgrp;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_remote_group(inter, &rg);
  MPI_Comm_group(inter, &lgrp);
  int* rw = malloc(sizeof(int) * (size_t)(rs + s) * 2);
  int *idx = rw + rs, *lw = rw + rs + s;
  for (int i = 0; i < rs + s; ++i) idx[i] = i;
  MPI_Group_translate_ranks(rg, rs, idx, wg, rw);
  MPI_Group_translate_ranks(lgrp, s, idx, wg, lw);
  for (int i = 0; i < rs; ++i) CHECK((rw[i] % 3 == 0) != in_a, "remote rank %d is world %d", i, rw[i]);
  CHECK(lw[r] == me, "local group rank %d is world %d", r, lw[r]);
  MPI_Group_free(&wg);
  MPI_Group_free(&rg);
  MPI_Group_free(&lgrp);
  int cmp;
  MPI_Comm dup;
  MPI_Comm_dup(inter, &dup);
  MPI_Comm_compare(inter, dup, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "compare inter/dup %d", cmp);
  MPI_Comm_compare(inter, local, &cmp);
  CHECK(cmp == MPI_UNEQUAL, "compare inter/intra %d", cmp);
  say(&lg, "%s rank %d of %d, remote size %d, time %.9f\n", in_a ? "A" : "B", r, s, rs, MPI_Wtime());

  /* ---- point-to-point both ways: each rank sends its world rank to every remote rank ---- */
  for (int i = 0; i < rs; ++i) MPI_Send(&me, 1, MPI_INT, i, 10 + r, inter);
  for (int i = 0; i < rs; ++i) {
    int v;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &st);
    CHECK(rw[st.MPI_SOURCE] == v && st.MPI_TAG == 10 + st.MPI_SOURCE, "p2p from remote %d: %d tag %d",
          st.MPI_SOURCE, v, st.MPI_TAG);
  }
  /* the dup's traffic stays apart */
  if (r == 0) {
    int a = 1, b = 2, x, y;
    MPI_Send(&a, 1, MPI_INT, 0, 0, dup);
    MPI_Send(&b, 1, MPI_INT, 0, 0, inter);
    MPI_Recv(&x, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
    MPI_Recv(&y, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
    CHECK(x == 2 && y == 1, "traffic crossed between an intercommunicator and its dup: %d %d", x, y);
  }
  say(&lg, "p2p ok, time %.9f\n", MPI_Wtime());

  /* ---- collectives ---- */
  MPI_Barrier(inter);
  const int big = 300; /* 1200-byte blocks: the long-message gather/scatter path */
  int *sb = malloc(sizeof(int) * (size_t)np * big), *rb = malloc(sizeof(int) * (size_t)np * big);
  int *cnt = malloc(sizeof(int) * (size_t)np * 4), *dsp = cnt + np, *cnt2 = cnt + 2 * np, *dsp2 = cnt + 3 * np;
  for (int root_in_a = 0; root_in_a < 2; ++root_in_a) {
    const int rootgroup = in_a == root_in_a;        /* my group holds the root */
    const int rootrank = 1;                          /* rank 1 of the root's group */
    const int root = rootgroup ? (r == rootrank ? MPI_ROOT : MPI_PROC_NULL) : rootrank;
    const int isroot = rootgroup && r == rootrank;
    const int other = rootgroup ? rs : s;            /* size of the non-root group */
    /* bcast */
    int v = isroot ? 777 + root_in_a : -1;
    MPI_Bcast(&v, 1, MPI_INT, root, inter);
    CHECK(rootgroup ? v == (isroot ? 777 + root_in_a : -1) : v == 777 + root_in_a, "bcast %d", v);
    /* reduce: the root gets the sum of the other group's world ranks */
    int sum = -1, want = 0;
    for (int i = 0; i < np; ++i)
      if ((i % 3 == 0) != (root_in_a == 1)) want += i;
    MPI_Reduce(&me, &sum, 1, MPI_INT, MPI_SUM, root, inter);
    CHECK(!isroot || sum == want, "reduce %d, expected %d", sum, want);
    /* gather, short and long */
    for (int n = 1; n <= big; n += big - 1) {
      for (int k = 0; k < n; ++k) sb[k] = me * 1000 + k;
      for (int i = 0; i < np * n; ++i) rb[i] = -1;
      MPI_Gather(sb, n, MPI_INT, rb, n, MPI_INT, root, inter);
      if (isroot)
        for (int i = 0; i < rs; ++i)
          for (int k = 0; k < n; ++k) CHECK(rb[i * n + k] == rw[i] * 1000 + k, "gather(%d) from %d", n, i);
      /* scatter back: block i is for remote rank i */
      if (isroot)
        for (int i = 0; i < rs; ++i)
          for (int k = 0; k < n; ++k) sb[i * n + k] = rw[i] * 7 + k;
      for (int k = 0; k < n; ++k) rb[k] = -1;
      MPI_Scatter(sb, n, MPI_INT, rb, n, MPI_INT, root, inter);
      if (!rootgroup)
        for (int k = 0; k < n; ++k) CHECK(rb[k] == me * 7 + k, "scatter(%d) element %d: %d", n, k, rb[k]);
    }
    /* gatherv / scatterv: remote rank i contributes i % 3 + 1 ints */
    int mine = rootgroup ? 0 : r % 3 + 1, off = 0;
    for (int i = 0; i < other; ++i) cnt[i] = i % 3 + 1, dsp[i] = off, off += cnt[i] + 1;
    for (int k = 0; k < mine; ++k) sb[k] = me * 100 + k;
    for (int i = 0; i < np * 4; ++i) rb[i] = -1;
    MPI_Gatherv(sb, mine, MPI_INT, rb, cnt, dsp, MPI_INT, root, inter);
    if (isroot)
      for (int i = 0; i < rs; ++i)
        for (int k = 0; k < cnt[i]; ++k) CHECK(rb[dsp[i] + k] == rw[i] * 100 + k, "gatherv from %d", i);
    if (isroot)
      for (int i = 0; i < rs; ++i)
        for (int k = 0; k < cnt[i]; ++k) sb[dsp[i] + k] = rw[i] * 3 + k;
    for (int k = 0; k < 4; ++k) rb[k] = -1;
    MPI_Scatterv(sb, cnt, dsp, MPI_INT, rb, mine, MPI_INT, root, inter);
    for (int k = 0; k < mine; ++k) CHECK(rb[k] == me * 3 + k, "scatterv element %d: %d", k, rb[k]);
  }
  say(&lg, "rooted collectives ok, time %.9f\n", MPI_Wtime());

  /* allreduce: each group gets the other group's sum */
  int sum = 0, want = 0;
  for (int i = 0; i < rs; ++i) want += rw[i];
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, inter);
  CHECK(sum == want, "allreduce %d, expected %d", sum, want);
  /* allgather (2 ints each) */
  int two[2] = {me, -me};
  MPI_Allgather(two, 2, MPI_INT, rb, 2, MPI_INT, inter);
  for (int i = 0; i < rs; ++i) CHECK(rb[2 * i] == rw[i] && rb[2 * i + 1] == -rw[i], "allgather from %d", i);
  /* allgatherv: remote rank i sends i % 2 + 1 ints */
  int off = 0;
  for (int i = 0; i < rs; ++i) cnt[i] = i % 2 + 1, dsp[i] = off, off += cnt[i] + 2;
  for (int k = 0; k < r % 2 + 1; ++k) sb[k] = me * 10 + k;
  MPI_Allgatherv(sb, r % 2 + 1, MPI_INT, rb, cnt, dsp, MPI_INT, inter);
  for (int i = 0; i < rs; ++i)
    for (int k = 0; k < cnt[i]; ++k) CHECK(rb[dsp[i] + k] == rw[i] * 10 + k, "allgatherv from %d", i);
  /* alltoall: to remote rank i, the value me * 100 + i */
  for (int i = 0; i < rs; ++i) sb[i] = me * 100 + i;
  MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter);
  for (int i = 0; i < rs; ++i) CHECK(rb[i] == rw[i] * 100 + r, "alltoall from %d: %d", i, rb[i]);
  /* alltoallv: to remote rank i, (r + i) % 2 + 1 ints */
  int so = 0, ro = 0;
  for (int i = 0; i < rs; ++i) {
    cnt[i] = cnt2[i] = (r + i) % 2 + 1;
    dsp[i] = so, dsp2[i] = ro;
    for (int k = 0; k < cnt[i]; ++k) sb[so + k] = me * 100 + i * 10 + k;
    so += cnt[i], ro += cnt2[i] + 1;
  }
  MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt2, dsp2, MPI_INT, inter);
  for (int i = 0; i < rs; ++i)
    for (int k = 0; k < cnt2[i]; ++k) CHECK(rb[dsp2[i] + k] == rw[i] * 100 + r * 10 + k, "alltoallv from %d", i);
  /* alltoallw: the same in bytes displacements, doubles to even remote ranks */
  MPI_Datatype* ty = malloc(sizeof(MPI_Datatype) * (size_t)rs);
  double* dsb = malloc(sizeof(double) * (size_t)rs);
  double* drb = malloc(sizeof(double) * (size_t)rs);
  for (int i = 0; i < rs; ++i) {
    ty[i] = MPI_DOUBLE;
    cnt[i] = 1;
    dsp[i] = i * (int)sizeof(double);
    dsb[i] = me + i / 10.0;
  }
  MPI_Alltoallw(dsb, cnt, dsp, ty, drb, cnt, dsp, ty, inter);
  for (int i = 0; i < rs; ++i) CHECK(drb[i] == rw[i] + r / 10.0, "alltoallw from %d: %g", i, drb[i]);
  free(drb);
  free(dsb);
  free(ty);
  /* reduce_scatter: both groups reduce na * nb elements; A's ranks get nb each, B's na each */
  const int per = in_a ? nb : na, tot = na * nb;
  for (int k = 0; k < tot; ++k) sb[k] = me + k;
  for (int i = 0; i < s; ++i) cnt[i] = per;
  MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, inter);
  for (int k = 0; k < per; ++k) CHECK(rb[k] == want + rs * (r * per + k), "reduce_scatter element %d: %d", k, rb[k]);
  for (int k = 0; k < per; ++k) rb[k] = -1;
  MPI_Reduce_scatter_block(sb, rb, per, MPI_INT, MPI_SUM, inter);
  for (int k = 0; k < per; ++k) CHECK(rb[k] == want + rs * (r * per + k), "reduce_scatter_block %d: %d", k, rb[k]);
  MPI_Barrier(inter);
  say(&lg, "all-to-all collectives ok, time %.9f\n", MPI_Wtime());

  /* ---- split: by local rank parity; the new intercommunicators pair the parities ---- */
  MPI_Comm sp;
  MPI_Comm_split(inter, r % 2, r, &sp);
  int sps, sprs, spr;
  MPI_Comm_size(sp, &sps);
  MPI_Comm_remote_size(sp, &sprs);
  MPI_Comm_rank(sp, &spr);
  CHECK(sps == (s + 1 - r % 2) / 2 && sprs == (rs + 1 - r % 2) / 2 && spr == r / 2, "split: size %d remote %d rank %d",
        sps, sprs, spr);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sp);
  want = 0;
  for (int i = r % 2; i < rs; i += 2) want += rw[i];
  CHECK(sum == want, "allreduce on the split %d, expected %d", sum, want);
  MPI_Comm_free(&sp);

  /* ---- merge: A high, B low -> B first; then both low -> the low group (A holds world 0) first ---- */
  MPI_Comm m1, m2;
  int mr, ms;
  MPI_Intercomm_merge(inter, in_a, &m1);
  MPI_Comm_rank(m1, &mr);
  MPI_Comm_size(m1, &ms);
  CHECK(ms == np && mr == (in_a ? nb + r : r), "merge(A high): rank %d of %d", mr, ms);
  MPI_Intercomm_merge(dup, 0, &m2);
  MPI_Comm_rank(m2, &mr);
  CHECK(mr == (in_a ? r : na + r), "merge(tie): rank %d", mr);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, m2);
  CHECK(sum == np * (np - 1) / 2, "allreduce on the merge %d", sum);
  MPI_Comm_free(&m2);
  MPI_Comm_free(&m1);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  free(cnt);
  free(rb);
  free(sb);
  free(rw);
  say(&lg, "split and merge ok, time %.9f\n", MPI_Wtime());
  print_all(&lg, me, np);
  MPI_Finalize();
  return 0;
}
