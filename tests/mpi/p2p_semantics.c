/* Point-to-point semantics in virtual time, checked against the formulas of docs/architecture.md §2 with the
 * default ethernet network: L(s bytes) = 2 x 25 us + 8 s / 1e9 s, processor model "none",
 * poll cost 100 ns. Needs at least 4 ranks. Prints one line per check; exits 1 on the first failure. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xsim.h"

/* No globals: virtual ranks of one native process share them (until privatization). */
static long long ps(double t) { return llround(t * 1e12); }
static long long L(long long bytes) { return 50000000LL + bytes * 8000LL; } /* ps */

static void expect_(int me, const char* what, long long got, long long want) {
  if (got != want) {
    fprintf(stderr, "FAILED: rank %d: %s: got %lld ps, expected %lld ps\n", me, what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (me == 0 || strstr(what, "[all]") == NULL) printf("rank %d: %s = %lld ps ok\n", me, what, got);
}

/* Brings every rank's clock to the same instant: 1 ms after the latest clock. */
static void sync_clocks(void) {
  double now = MPI_Wtime(), latest;
  MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  long long target = ps(latest) + 1000000000LL;
  xsim_compute((double)(target - ps(MPI_Wtime())) * 1e-12);
}

#define expect(what, got, want) expect_(me, what, got, want)

int main(int argc, char** argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np < 4) {
    if (me == 0) fprintf(stderr, "needs at least 4 ranks\n");
    MPI_Finalize();
    return 2;
  }
  int x = 0;
  double t0;
  sync_clocks();

  /* 1. Receive posted before arrival completes at t_send + L. */
  if (me == 0) MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
  if (me == 1) {
    t0 = MPI_Wtime();
    MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("recv of 4 bytes completes at L(4)", ps(MPI_Wtime() - t0), L(4));
  }
  sync_clocks();

  /* 2. Late receiver: completes at its own time; the sender is not held up. */
  t0 = MPI_Wtime();
  if (me == 0) {
    MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    expect("eager send returns at once", ps(MPI_Wtime() - t0), 0);
  }
  if (me == 1) {
    xsim_compute(100e-6);
    MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("late receiver completes at its own clock", ps(MPI_Wtime() - t0), 100000000LL);
  }
  sync_clocks();

  /* 3. Synchronous send completes when matched plus the acknowledgement's latency. */
  t0 = MPI_Wtime();
  if (me == 0) {
    MPI_Ssend(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    expect("ssend completes at match (100 us) + L(0)", ps(MPI_Wtime() - t0), 100000000LL + L(0));
  }
  if (me == 1) {
    xsim_compute(100e-6);
    MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  sync_clocks();

  /* 4. Non-overtaking: a small message sent after a large one on the same pair arrives after it. */
  t0 = MPI_Wtime();
  if (me == 0) {
    char* big = calloc(1 << 20, 1);
    MPI_Send(big, 1 << 20, MPI_CHAR, 1, 4, MPI_COMM_WORLD);
    MPI_Send(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    free(big);
  }
  if (me == 1) {
    char* big = malloc(1 << 20);
    MPI_Status st;
    MPI_Recv(big, 1 << 20, MPI_CHAR, 0, 4, MPI_COMM_WORLD, &st);
    int n;
    MPI_Get_count(&st, MPI_CHAR, &n);
    if (n != (1 << 20)) { fprintf(stderr, "FAILED: count %d\n", n); MPI_Abort(MPI_COMM_WORLD, 1); }
    MPI_Recv(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("second message does not overtake the 1 MiB one", ps(MPI_Wtime() - t0), L(1 << 20));
    free(big);
  }
  sync_clocks();

  /* 5. Wildcard receive takes the earliest virtual arrival, not the first send in host order:
   * rank 1 sends first in host order but arrives at 30 us + L(4); rank 2 at 10 us + L(4). */
  t0 = MPI_Wtime();
  if (me == 1 || me == 2) {
    xsim_compute(me == 1 ? 30e-6 : 10e-6);
    x = me;
    MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
  }
  if (me == 0) {
    MPI_Status st;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
    expect("wildcard: first match is from rank", st.MPI_SOURCE, 2);
    expect("wildcard: first match completes at", ps(MPI_Wtime() - t0), 10000000LL + L(4));
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
    expect("wildcard: second match is from rank", st.MPI_SOURCE, 1);
    expect("wildcard: second match completes at", ps(MPI_Wtime() - t0), 30000000LL + L(4));
  }
  sync_clocks();

  /* 6. Wildcard with a message that is sent later in host time but arrives earlier: rank 3 first
   * waits for rank 2 (so it sends late in host order) but sends at virtual time L(0). */
  t0 = MPI_Wtime();
  if (me == 1) {
    xsim_compute(200e-6);
    MPI_Send(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  }
  if (me == 2) MPI_Send(NULL, 0, MPI_INT, 3, 60, MPI_COMM_WORLD);
  if (me == 3) {
    MPI_Recv(NULL, 0, MPI_INT, 2, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  }
  if (me == 0) {
    MPI_Status st;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &st);
    expect("wildcard: relayed message wins, from rank", st.MPI_SOURCE, 3);
    expect("wildcard: relayed message completes at", ps(MPI_Wtime() - t0), L(0) + L(4));
    MPI_Recv(&x, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &st);
  }
  sync_clocks();

  /* 7. Test polling moves virtual time by the poll cost (100 ns) and succeeds at the first poll at
   * or after the arrival: polls at 0, 0.1, ..., 50.1 us (502 polls); clock ends at 50.2 us. */
  t0 = MPI_Wtime();
  if (me == 0) MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
  if (me == 1) {
    MPI_Request rq;
    int flag = 0, polls = 0;
    MPI_Irecv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq);
    while (!flag) {
      MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
      ++polls;
    }
    expect("test loop polls", polls, 502);
    expect("test loop ends at", ps(MPI_Wtime() - t0), 50200000LL);
  }
  sync_clocks();

  /* 8. Iprobe likewise, then the receive completes at once. */
  t0 = MPI_Wtime();
  if (me == 2) MPI_Send(&x, 1, MPI_INT, 3, 8, MPI_COMM_WORLD);
  if (me == 3) {
    int flag = 0, polls = 0;
    MPI_Status st;
    while (!flag) {
      MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &flag, &st);
      ++polls;
    }
    expect("iprobe loop polls", polls, 502);
    expect("iprobe source", st.MPI_SOURCE, 2);
    MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("iprobe loop + recv ends at", ps(MPI_Wtime() - t0), 50200000LL);
  }
  sync_clocks();

  /* 9. Waitany returns the request that completes first in virtual time. */
  t0 = MPI_Wtime();
  if (me == 1 || me == 2) {
    xsim_compute(me == 1 ? 5e-6 : 50e-6);
    MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
  }
  if (me == 0) {
    MPI_Request rq[2];
    int idx, y = 0;
    MPI_Irecv(&y, 1, MPI_INT, 2, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
    expect("waitany index", idx, 1);
    expect("waitany completes at", ps(MPI_Wtime() - t0), 5000000LL + L(4));
    MPI_Status sts[2];
    MPI_Waitall(2, rq, sts);
    expect("waitall completes at", ps(MPI_Wtime() - t0), 50000000LL + L(4));
  }
  sync_clocks();

  /* 10. Truncation is reported, not silent, when MPI_ERRORS_RETURN is set. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (me == 0) {
    int two[2] = {1, 2};
    MPI_Send(two, 2, MPI_INT, 1, 10, MPI_COMM_WORLD);
  }
  if (me == 1) {
    int rc = MPI_Recv(&x, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int cls;
    MPI_Error_class(rc, &cls);
    expect("truncated receive returns MPI_ERR_TRUNCATE", cls, MPI_ERR_TRUNCATE);
  }
  /* 11. Invalid rank and tag are errors. */
  if (me == 0) {
    int rc = MPI_Send(&x, 1, MPI_INT, np, 0, MPI_COMM_WORLD), cls;
    MPI_Error_class(rc, &cls);
    expect("send to rank np returns MPI_ERR_RANK", cls, MPI_ERR_RANK);
    rc = MPI_Send(&x, 1, MPI_INT, 1, -5, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    expect("send with tag -5 returns MPI_ERR_TAG", cls, MPI_ERR_TAG);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  sync_clocks();

  /* 12. MPI_PROC_NULL completes at once with the documented status. */
  {
    MPI_Status st;
    t0 = MPI_Wtime();
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    expect("[all] recv from MPI_PROC_NULL source", st.MPI_SOURCE, MPI_PROC_NULL);
    expect("[all] recv from MPI_PROC_NULL takes", ps(MPI_Wtime() - t0), 0);
  }

  /* 13. Attributes. */
  {
    int* v;
    int flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
    expect("[all] MPI_WTIME_IS_GLOBAL", flag && *v, 1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    expect("[all] MPI_TAG_UB >= 32767", flag && *v >= 32767, 1);
  }
  /* 14. Derived datatypes: a strided vector arrives as 3 contiguous ints (12 bytes of payload). */
  sync_clocks();
  t0 = MPI_Wtime();
  if (me == 0) {
    int v[6] = {10, -1, 11, -1, 12, -1};
    MPI_Datatype vec;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Send(v, 1, vec, 1, 14, MPI_COMM_WORLD);
    MPI_Type_free(&vec);
  }
  if (me == 1) {
    int r[3] = {0, 0, 0}, n;
    MPI_Status st;
    MPI_Recv(r, 3, MPI_INT, 0, 14, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    expect("vector type: received count", n, 3);
    expect("vector type: values", r[0] * 10000 + r[1] * 100 + r[2], 101112);
    expect("vector type: arrival at L(12)", ps(MPI_Wtime() - t0), L(12));
  }
  if (me == 0) printf("p2p_semantics: all checks passed\n");
  MPI_Finalize();
  return 0;
}
