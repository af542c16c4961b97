/* Flows of 1 MiB between given pairs of ranks, all started at once (MPI_Isend / MPI_Irecv posted at time
 * 0); every receiving rank prints when its last receive completed. For bench/links-smpi.sh, which runs it
 * under xsim and under SimGrid's SMPI on the same line of hosts. Usage: flows SRC:DST ... */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBytes = 1 << 20, kMaxBytes = 64 << 20, kMaxFlows = 64 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int largest = 0;  // the send buffer: the largest flow's size
  for (int i = 1; i < argc && i <= kMaxFlows; ++i) {
    int s, d, bytes = kBytes;
    if (sscanf(argv[i], "%d:%d:%d", &s, &d, &bytes) >= 2 && bytes > largest && bytes <= kMaxBytes) largest = bytes;
  }
  char* send = calloc((size_t)largest + 1, 1);
  char* recv[kMaxFlows];
  MPI_Request reqs[2 * kMaxFlows];
  int n = 0, receives = 0;
  for (int i = 1; i < argc && i <= kMaxFlows; ++i) {
    int s, d, bytes = kBytes;
    if (sscanf(argv[i], "%d:%d:%d", &s, &d, &bytes) < 2 || bytes < 0 || bytes > kMaxBytes) {
      fprintf(stderr, "flows: bad pair %s (give SRC:DST or SRC:DST:BYTES, up to 64 MiB)\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == s) MPI_Isend(send, bytes, MPI_BYTE, d, i, MPI_COMM_WORLD, &reqs[n++]);
    if (rank == d) {
      recv[receives] = malloc((size_t)bytes + 1);
      MPI_Irecv(recv[receives++], bytes, MPI_BYTE, s, i, MPI_COMM_WORLD, &reqs[n++]);
    }
  }
  for (int i = 0; i < n; ++i) MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
  if (receives) printf("flows: rank %d received at %.3f us\n", rank, MPI_Wtime() * 1e6);
  for (int i = 0; i < receives; ++i) free(recv[i]);
  free(send);
  MPI_Finalize();
  return 0;
}
