/* replay_globals.c - MPI_Allreduce and MPI_Barrier whose buffers are global variables, as in NPB EP, IS and
 * LU (issue 20): with several ranks per native process every rank has its own copy of the globals
 * (docs/privatization.md), and the fast path of blocking collectives (-xsim-coll-replay) must reduce each
 * rank's own copy, not the copy of whichever rank happens to run the replay.
 * Buffers: a global send and receive array (small: copied images; a 2 MiB array: a mapped image under
 * -xsim-privatize auto), MPI_IN_PLACE on a global, a thread-local array, a global struct reduced with
 * MPI_MINLOC and a user-defined operation whose function reads a global
 * of its own. Every rank checks its results against the closed-form answers, and rank 0 prints every rank's
 * verdict and virtual time (rank_log.h): the output must be the same with the fast path on and off and for
 * any number of native processes (replay_same.sh), and the program exits 1 on any wrong element.
 *
 *   replay_globals
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "rank_log.h"

#define N 64
#define BIG (256 * 1024) /* doubles: 2 MiB, past the copy limit (256 KiB): this array's region is mapped */

double g_send[N], g_recv[N];
long g_inplace[N];
static double g_big[BIG];
static __thread double t_buf[N];
struct {
  double value;
  int rank;
} g_loc;
double g_scale = 0; /* read by the user operation: each rank's own value */

static void scaled_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i) b[i] = a[i] + b[i] + g_scale;
}

static int bad = 0;
static void expect(Log* lg, const char* what, int ok) {
  if (!ok) {
    bad = 1;
    say(lg, "%s: WRONG\n", what);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  Log lg = {.len = 0};
  const double sum_ranks = np * (np - 1) / 2.0;

  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < N; ++i) g_send[i] = me + i + round;
    MPI_Allreduce(g_send, g_recv, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < N; ++i) ok &= g_recv[i] == sum_ranks + (double)np * (i + round);
    expect(&lg, "global send/recv", ok);

    for (int i = 0; i < N; ++i) g_inplace[i] = (me + 1) * (i + 1);
    MPI_Allreduce(MPI_IN_PLACE, g_inplace, N, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    ok = 1;
    for (int i = 0; i < N; ++i) ok &= g_inplace[i] == (long)np * (i + 1);
    expect(&lg, "global in place", ok);

    g_big[0] = me;
    g_big[BIG / 2] = 1;
    g_big[BIG - 1] = 2.0 * me;
    MPI_Allreduce(MPI_IN_PLACE, g_big, BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ok = g_big[0] == sum_ranks && g_big[BIG / 2] == np && g_big[BIG - 1] == 2 * sum_ranks && g_big[1] == 0;
    expect(&lg, "mapped global", ok);
    memset(g_big, 0, sizeof g_big);

    for (int i = 0; i < N; ++i) t_buf[i] = me * i;
    MPI_Allreduce(MPI_IN_PLACE, t_buf, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ok = 1;
    for (int i = 0; i < N; ++i) ok &= t_buf[i] == sum_ranks * i;
    expect(&lg, "thread-local", ok);

    g_loc.value = (me * 7) % np;
    g_loc.rank = me;
    MPI_Allreduce(MPI_IN_PLACE, &g_loc, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    expect(&lg, "minloc", g_loc.value == 0 && g_loc.rank == 0);

    /* the user function adds the scale of the rank it reduces for; every rank sets the same scale, so the
     * result is known: each of the np - 1 combining steps adds it once per element */
    MPI_Op op;
    MPI_Op_create(scaled_sum, 1, &op);
    g_scale = 0.5;
    for (int i = 0; i < N; ++i) g_send[i] = me;
    MPI_Allreduce(g_send, g_recv, N, MPI_DOUBLE, op, MPI_COMM_WORLD);
    ok = 1;
    for (int i = 0; i < N; ++i) ok &= g_recv[i] == sum_ranks + 0.5 * (np - 1);
    expect(&lg, "user op", ok);
    MPI_Op_free(&op);

    MPI_Barrier(MPI_COMM_WORLD);
  }
  say(&lg, "%s at %.9f s\n", bad ? "FAILED" : "ok", MPI_Wtime());
  print_all(&lg, me, np);
  MPI_Finalize();
  return bad;
}
