/* Persistent requests, matched probes and nonblocking collectives under xsim: every data result is checked
 * against its closed form, and each rank prints its results with MPI_Wtime, so runs with different
 * native process counts must print the same lines (tests/mpi/run.sh same).
 * Usage: nonblocking [overlap|double-start|lonely-ibarrier]
 *   overlap          prints only the overlap timings (for the exact-time test)
 *   double-start     starts an active persistent request again (must fail, naming the call)
 *   lonely-ibarrier  rank 0 waits for a barrier nobody else enters (must be reported as a deadlock)
 * No global or static variables: the virtual ranks of one native process share them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "xsim.h"

static void persistent(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = 0, in = -1, sync_out = 0, sync_in = -1;
  MPI_Request reqs[4];
  MPI_Send_init(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[0]);
  MPI_Recv_init(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[1]);
  MPI_Ssend_init(&sync_out, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &reqs[2]);
  MPI_Recv_init(&sync_in, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &reqs[3]);
  /* an inactive persistent request completes at once, with an empty status */
  MPI_Status st;
  MPI_Wait(&reqs[1], &st);
  CHECK(reqs[1] != MPI_REQUEST_NULL, "the persistent request must survive MPI_Wait");
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status expected");
  long sum = 0;
  for (int it = 0; it < 3; ++it) {
    out = rank * 100 + it;
    sync_out = rank * 1000 + it;
    MPI_Startall(4, reqs);
    MPI_Status sts[4];
    MPI_Waitall(4, reqs, sts);
    CHECK(in == left * 100 + it, "iteration %d: got %d from %d", it, in, left);
    CHECK(sync_in == right * 1000 + it, "iteration %d: synchronous got %d", it, sync_in);
    CHECK(sts[3].MPI_SOURCE == right && sts[3].MPI_TAG == 8, "status of the wildcard persistent receive");
    for (int i = 0; i < 4; ++i) CHECK(reqs[i] != MPI_REQUEST_NULL, "request %d freed by MPI_Waitall", i);
    sum += in + sync_in;
  }
  /* MPI_Start + MPI_Test loop on one of them */
  out = -rank;
  MPI_Start(&reqs[0]);
  MPI_Start(&reqs[1]);
  int flag = 0;
  while (!flag) MPI_Test(&reqs[1], &flag, MPI_STATUS_IGNORE);
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  CHECK(in == -left, "test loop: got %d", in);
  for (int i = 0; i < 4; ++i) MPI_Request_free(&reqs[i]);
  CHECK(reqs[0] == MPI_REQUEST_NULL, "MPI_Request_free must reset the handle");
  printf("persistent rank %d sum %ld time %.9f\n", rank, sum, MPI_Wtime());
}

static void matched_probe(int rank, int size) {
  /* every rank sends its rank to rank 0 under tag 5, then rank 0 takes them with Mprobe/Improbe */
  MPI_Send(&rank, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
  if (rank == 0) {
    long sum = 0;
    for (int i = 0; i < size; ++i) {
      MPI_Message msg;
      MPI_Status st;
      int v = -1, count = -1;
      if (i % 2 == 0) {
        MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &msg, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 1, "count %d", count);
        MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
      } else {
        int flag = 0;
        while (!flag) MPI_Improbe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Request req;
        MPI_Imrecv(&v, 1, MPI_INT, &msg, &req);
        MPI_Wait(&req, &st);
      }
      CHECK(msg == MPI_MESSAGE_NULL, "the message handle must be reset");
      CHECK(v == st.MPI_SOURCE, "message from %d carried %d", st.MPI_SOURCE, v);
      sum += v;
    }
    CHECK(sum == (long)size * (size - 1) / 2, "sum %ld", sum);
    /* a matched message is invisible to later probes */
    int flag = 1;
    MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 0, "no message may be left");
    MPI_Message msg;
    MPI_Status st;
    MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st);
    CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL probe");
    MPI_Mrecv(NULL, 0, MPI_INT, &msg, &st);
    CHECK(msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL receive");
    printf("mprobe sum %ld time %.9f\n", sum, MPI_Wtime());
  }
}

static void collectives(int rank, int size) {
  MPI_Request r[12];
  int n = size;
  int *all = malloc(sizeof(int) * (size_t)n), *a2a_out = malloc(sizeof(int) * (size_t)n),
      *a2a_in = malloc(sizeof(int) * (size_t)n), *counts = malloc(sizeof(int) * (size_t)n),
      *displs = malloc(sizeof(int) * (size_t)n), *gathered = malloc(sizeof(int) * (size_t)n),
      *allv = malloc(sizeof(int) * (size_t)n), *rs_in = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    a2a_out[i] = rank * n + i;
    counts[i] = 1;
    displs[i] = i;
    rs_in[i] = rank + i;
  }
  int bc = rank == 1 % size ? 4242 : 0, red = -1, ared = -1, scn = -1, exs = -1, sc = -1, rsb = -1;
  /* start everything, some on a duplicate, then complete in an order different from the start order */
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(&bc, 1, MPI_INT, 1 % size, MPI_COMM_WORLD, &r[1]);
  MPI_Ireduce(&rank, &red, 1, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD, &r[2]);
  MPI_Iallreduce(&rank, &ared, 1, MPI_INT, MPI_MAX, dup, &r[3]);
  MPI_Iallgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &r[4]);
  MPI_Ialltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, dup, &r[5]);
  MPI_Iscan(&rank, &scn, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[6]);
  MPI_Iexscan(&rank, &exs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[7]);
  MPI_Igather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, 0, dup, &r[8]);
  MPI_Iscatterv(a2a_out, counts, displs, MPI_INT, &sc, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[9]);
  MPI_Iallgatherv(&rank, 1, MPI_INT, allv, counts, displs, MPI_INT, dup, &r[10]);
  MPI_Ireduce_scatter_block(rs_in, &rsb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[11]);
  MPI_Comm_free(&dup); /* pending operations on it still complete */
  for (int i = 11; i >= 6; --i) MPI_Wait(&r[i], MPI_STATUS_IGNORE);
  int done = 0;
  while (!done) MPI_Testall(6, r, &done, MPI_STATUSES_IGNORE);
  long tri = (long)size * (size - 1) / 2;
  CHECK(bc == 4242, "ibcast %d", bc);
  if (rank == size - 1) CHECK(red == tri, "ireduce %d", red);
  CHECK(ared == size - 1, "iallreduce %d", ared);
  CHECK(scn == rank * (rank + 1) / 2, "iscan %d", scn);
  if (rank > 0) CHECK(exs == rank * (rank - 1) / 2, "iexscan %d", exs);
  CHECK(sc == 0 * n + rank, "iscatterv %d", sc);
  CHECK(rsb == rank * size + (int)tri, "ireduce_scatter_block %d", rsb);
  for (int i = 0; i < n; ++i) {
    CHECK(all[i] == i && allv[i] == i, "iallgather(v)[%d]", i);
    CHECK(a2a_in[i] == i * n + rank, "ialltoall[%d] = %d", i, a2a_in[i]);
    if (rank == 0) CHECK(gathered[i] == i, "igather[%d]", i);
  }
  printf("collectives rank %d ok time %.9f\n", rank, MPI_Wtime());
  free(all), free(a2a_out), free(a2a_in), free(counts), free(displs), free(gathered), free(allv), free(rs_in);
}

/* The NBX sparse exchange (Hoefler et al.): synchronous sends, probe for incoming messages, enter a
 * nonblocking barrier once the own sends are matched, finish when the barrier completes. It depends on
 * the barrier making progress while the rank keeps probing. */
static void nbx(int rank, int size) {
  int targets[2] = {(rank + 1) % size, (rank + 3) % size}, vals[2] = {rank, -rank};
  MPI_Request sends[2], barrier = MPI_REQUEST_NULL;
  for (int i = 0; i < 2; ++i) MPI_Issend(&vals[i], 1, MPI_INT, targets[i], 11, MPI_COMM_WORLD, &sends[i]);
  int received = 0, sum = 0, barrier_done = 0;
  while (!barrier_done) {
    int flag;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      sum += v;
      ++received;
    }
    if (barrier == MPI_REQUEST_NULL) {
      int sent;
      MPI_Testall(2, sends, &sent, MPI_STATUSES_IGNORE);
      if (sent) MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    } else {
      MPI_Test(&barrier, &barrier_done, MPI_STATUS_IGNORE);
    }
  }
  int from1 = (rank + size - 1) % size, from3 = (rank + size - 3 % size) % size;
  CHECK(received == 2 && sum == from1 - from3, "nbx received %d sum %d", received, sum);
  printf("nbx rank %d received %d time %.9f\n", rank, received, MPI_Wtime());
}

/* Overlap under MPICH's progress model: a nonblocking allreduce advances only inside MPI calls. */
static void overlap(int rank) {
  int v = rank, out;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  xsim_compute(100e-6);
  double blocking = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  MPI_Request req;
  MPI_Iallreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  xsim_compute(100e-6);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  double nonblocking = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  double ibarrier = MPI_Wtime() - t0;
  if (rank == 0)
    printf("overlap: allreduce+compute %.9f iallreduce+compute+wait %.9f ibarrier+wait %.9f\n", blocking, nonblocking,
           ibarrier);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "overlap") == 0) {
    overlap(rank);
  } else if (argc > 1 && strcmp(argv[1], "double-start") == 0) {
    int v = 0;
    MPI_Request req;
    MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Start(&req);
  } else if (argc > 1 && strcmp(argv[1], "lonely-ibarrier") == 0) {
    if (rank == 0) {
      MPI_Request req;
      MPI_Ibarrier(MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
  } else {
    persistent(rank, size);
    matched_probe(rank, size);
    collectives(rank, size);
    nbx(rank, size);
    overlap(rank);
  }
  MPI_Finalize();
  return 0;
}
