/* The loggp model's probe cases (issue 21; docs/network-model.md), each printing the virtual times the
 * closed forms in tests/mpi/CMakeLists.txt predict. Run on a star with 1 us links of 1 Gbps:
 *   burst:  rank 0 sends 8 x 1 MiB to rank 1 with MPI_Isend; rank 1 has posted the receives.
 *   incast: ranks 1..8 each MPI_Send 1 MiB to rank 0, which has posted the receives.
 *   late:   rank 0 MPI_Sends 1 MiB; rank 1 computes 100 ms before it posts the receive.
 *   small:  rank 0 sends 8 x 8 B with MPI_Send; rank 1 receives them with MPI_Recv (os = or = 5 us).
 *   ssend:  rank 0 MPI_Ssends 8 B; rank 1 computes 100 ms before it receives.
 *   pairs:  (link contention, any network) every rank r of the first half MPI_Sends 1 MiB to rank
 *           r + size/2, which prints when its receive returned.
 * Every line is "probe: RANK what TIME_US" with the time in microseconds to the picosecond. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xsim.h"

enum { kBig = 1 << 20, kCount = 8 };

static void say(int rank, const char* what, double t) { printf("probe: %d %s %.6f\n", rank, what, t * 1e6); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "burst";
  char* big = calloc(kBig, 1);
  MPI_Request req[kCount];
  MPI_Status st[kCount];
  char* bufs = calloc((size_t)kCount * kBig, 1);
  if (strcmp(mode, "burst") == 0 && size >= 2) {
    if (rank == 0) {
      for (int i = 0; i < kCount; ++i) {
        memset(bufs + (size_t)i * kBig, i + 1, kBig);
        MPI_Isend(bufs + (size_t)i * kBig, kBig, MPI_BYTE, 1, i, MPI_COMM_WORLD, &req[i]);
      }
      MPI_Waitall(kCount, req, st);
      say(rank, "sends-done", MPI_Wtime());
    } else if (rank == 1) {
      for (int i = 0; i < kCount; ++i) MPI_Irecv(bufs + (size_t)i * kBig, kBig, MPI_BYTE, 0, i, MPI_COMM_WORLD, &req[i]);
      for (int i = 0; i < kCount; ++i) {
        MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        if (bufs[(size_t)i * kBig + kBig - 1] != i + 1) printf("probe: %d WRONG DATA in message %d\n", rank, i);
        char what[32];
        snprintf(what, sizeof what, "arrival-%d", i);
        say(rank, what, MPI_Wtime());
      }
    }
  } else if (strcmp(mode, "pairs") == 0 && size >= 2) {
    const int half = size / 2;
    if (rank < half) {
      memset(big, rank + 1, kBig);
      MPI_Send(big, kBig, MPI_BYTE, rank + half, 0, MPI_COMM_WORLD);
    } else if (rank < 2 * half) {
      MPI_Recv(big, kBig, MPI_BYTE, rank - half, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (big[kBig - 1] != rank - half + 1) printf("probe: %d WRONG DATA\n", rank);
      say(rank, "recv-returned", MPI_Wtime());
    }
  } else if (strcmp(mode, "incast") == 0) {
    if (rank == 0) {
      for (int i = 1; i < size && i <= kCount; ++i)
        MPI_Irecv(bufs + (size_t)(i - 1) * kBig, kBig, MPI_BYTE, i, 0, MPI_COMM_WORLD, &req[i - 1]);
      MPI_Waitall(size - 1 < kCount ? size - 1 : kCount, req, st);
      say(rank, "all-arrived", MPI_Wtime());
    } else if (rank <= kCount) {
      memset(big, rank, kBig);
      MPI_Send(big, kBig, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      say(rank, "send-returned", MPI_Wtime());
    }
  } else if (strcmp(mode, "late") == 0 && size >= 2) {
    if (rank == 0) {
      MPI_Send(big, kBig, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      say(rank, "send-returned", MPI_Wtime());
    } else if (rank == 1) {
      xsim_compute(0.1);
      MPI_Recv(big, kBig, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      say(rank, "recv-returned", MPI_Wtime());
    }
  } else if (strcmp(mode, "small") == 0 && size >= 2) {
    double v[kCount];
    if (rank == 0) {
      for (int i = 0; i < kCount; ++i) {
        v[i] = i;
        MPI_Send(&v[i], 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      }
      say(rank, "sender-busy", MPI_Wtime());
    } else if (rank == 1) {
      for (int i = 0; i < kCount; ++i) MPI_Recv(&v[i], 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      say(rank, "last-received", MPI_Wtime());
    }
  } else if (strcmp(mode, "ssend") == 0 && size >= 2) {
    double v = 1;
    if (rank == 0) {
      MPI_Ssend(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      say(rank, "ssend-returned", MPI_Wtime());
    } else if (rank == 1) {
      xsim_compute(0.1);
      MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      say(rank, "recv-returned", MPI_Wtime());
    }
  }
  free(big);
  free(bufs);
  MPI_Finalize();
  return 0;
}
