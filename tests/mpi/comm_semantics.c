/* Communicators and groups under xsim: split, dup, create, free, compare, groups, MPI_COMM_SELF,
 * names, and isolation of traffic between communicators. Rank 0 prints the results; every rank checks
 * its own and aborts with "FAILED: ..." on a mismatch. Works for any number of ranks >= 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);

  /* split by parity, key reverses the order */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &half);
  int hr, hs, sum;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  int expect_size = me % 2 ? np / 2 : (np + 1) / 2;
  CHECK(hs == expect_size, "split size %d, expected %d", hs, expect_size);
  /* key np-me: the highest world rank of the colour comes first */
  int members_above = 0;
  for (int r = me + 1; r < np; ++r)
    if (r % 2 == me % 2) ++members_above;
  CHECK(hr == members_above, "split rank %d, expected %d", hr, members_above);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, half);
  int expect_sum = 0;
  for (int r = me % 2; r < np; r += 2) expect_sum += r;
  CHECK(sum == expect_sum, "allreduce in split %d, expected %d", sum, expect_sum);

  /* MPI_UNDEFINED gives MPI_COMM_NULL */
  MPI_Comm none;
  MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, 0, &none);
  CHECK((me == 0) == (none != MPI_COMM_NULL), "MPI_UNDEFINED colour");
  if (none != MPI_COMM_NULL) MPI_Comm_free(&none);

  /* dup: same group, separate traffic. A message on the dup must not match a receive on world. */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int cmp;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "compare world/dup = %d", cmp);
  MPI_Comm_compare(dup, dup, &cmp);
  CHECK(cmp == MPI_IDENT, "compare dup/dup = %d", cmp);
  MPI_Comm_compare(MPI_COMM_WORLD, half, &cmp);
  CHECK(cmp == MPI_UNEQUAL, "compare world/half = %d", cmp);
  if (me == 0) {
    int a = 111, b = 222;
    MPI_Send(&a, 1, MPI_INT, 1, 5, dup);
    MPI_Send(&b, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
  } else if (me == 1) {
    int x, y;
    MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
    CHECK(x == 222 && y == 111, "traffic crossed communicators: world got %d, dup got %d", x, y);
  }

  /* groups: the odd ranks of world, in reverse order */
  MPI_Group world_group, odd_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int nodd = np / 2;
  int* odd = malloc(sizeof(int) * (nodd > 0 ? nodd : 1));
  for (int i = 0; i < nodd; ++i) odd[i] = 2 * (nodd - 1 - i) + 1;
  MPI_Group_incl(world_group, nodd, odd, &odd_group);
  int gs, gr;
  MPI_Group_size(odd_group, &gs);
  MPI_Group_rank(odd_group, &gr);
  CHECK(gs == nodd, "group size %d", gs);
  CHECK(me % 2 ? gr == (nodd - 1 - me / 2) : gr == MPI_UNDEFINED, "group rank %d", gr);
  int probe[2] = {1, 0}, out[2];
  MPI_Group_translate_ranks(world_group, 2, probe, odd_group, out);
  CHECK(out[0] == nodd - 1 && out[1] == MPI_UNDEFINED, "translate %d %d", out[0], out[1]);
  /* comm from the group: members get a communicator in group order */
  MPI_Comm oddcomm;
  MPI_Comm_create(MPI_COMM_WORLD, odd_group, &oddcomm);
  if (me % 2) {
    int r, s, mx;
    MPI_Comm_rank(oddcomm, &r);
    MPI_Comm_size(oddcomm, &s);
    CHECK(r == gr && s == nodd, "created comm rank %d size %d", r, s);
    MPI_Allreduce(&me, &mx, 1, MPI_INT, MPI_MAX, oddcomm);
    CHECK(mx == 2 * nodd - 1, "max over odd ranks %d", mx);
    MPI_Comm_free(&oddcomm);
  } else {
    CHECK(oddcomm == MPI_COMM_NULL, "non-member got a communicator");
  }
  MPI_Group excl;
  int zero = 0;
  MPI_Group_excl(world_group, 1, &zero, &excl);
  MPI_Group_size(excl, &gs);
  CHECK(gs == np - 1, "excl size %d", gs);
  MPI_Group_free(&excl);
  MPI_Group_free(&odd_group);
  MPI_Group_free(&world_group);
  free(odd);

  /* MPI_COMM_SELF: size 1, collectives and a message to oneself */
  int sr, ss, v = me, w = -1;
  MPI_Comm_rank(MPI_COMM_SELF, &sr);
  MPI_Comm_size(MPI_COMM_SELF, &ss);
  CHECK(sr == 0 && ss == 1, "self rank %d size %d", sr, ss);
  MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
  CHECK(w == me, "self allreduce %d", w);
  MPI_Sendrecv(&v, 1, MPI_INT, 0, 9, &w, 1, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  CHECK(w == me, "self sendrecv %d", w);

  /* names */
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world name %s", name);
  MPI_Comm_set_name(dup, "my dup");
  MPI_Comm_get_name(dup, name, &len);
  CHECK(strcmp(name, "my dup") == 0 && len == 6, "dup name %s", name);

  /* virtual time of the collectives is part of the output: it must not depend on the native processes */
  double t = MPI_Wtime(), tmax;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  if (me == 0) printf("comm_semantics: %d ranks ok, virtual time %.9f\n", np, tmax);
  MPI_Finalize();
  return 0;
}
