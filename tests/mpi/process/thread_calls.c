/* thread_calls.c - MPI and native application threads (issue 20, docs/applications.md "Threads"). Asked for
 * MPI_THREAD_FUNNELED, MPI_Init_thread answers FUNNELED, the rank's threads are native threads, and the main
 * thread's MPI calls work while another thread of the rank computes. In mode "foreign" a thread the rank
 * created calls MPI_Comm_rank: xsim must stop the run with a message naming the call, never let the native
 * thread into the engine while a rank runs (thread_multiple.c has the threads that may call MPI).
 *
 *   thread_calls [foreign | single]   (single: asks for MPI_THREAD_SINGLE, which MPI_Query_thread must answer)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "rank_log.h"

static void* work(void* arg) {
  long* sum = arg;
  for (long i = 1; i <= 1000; ++i) *sum += i;
  return NULL;
}

static void* call_mpi(void* arg) {
  int* rank = arg;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1, queried = -1;
  const int required = argc > 1 && strcmp(argv[1], "single") == 0 ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Query_thread(&queried);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  Log lg = {.len = 0};
  say(&lg, "provided %s\n", provided == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
                            : provided == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE"
                                                            : "something else");
  pthread_t t;
  long sum = 0;
  pthread_create(&t, NULL, work, &sum); /* a thread of the rank computes ... */
  MPI_Barrier(MPI_COMM_WORLD);          /* ... while the main thread calls MPI */
  pthread_join(t, NULL);
  say(&lg, "thread computed %ld\n", sum);
  if (argc > 1 && strcmp(argv[1], "foreign") == 0 && me == 1) {
    int rank = -1;
    pthread_create(&t, NULL, call_mpi, &rank);
    pthread_join(t, NULL);
    say(&lg, "foreign call returned rank %d\n", rank);
  }
  print_all(&lg, me, np);
  /* the output is compared across native process counts only: wrong values must fail the run too */
  const int bad = provided != required || queried != required || sum != 500500;
  if (bad)
    fprintf(stderr,
            "thread_calls: FAILED: rank %d: provided %d, MPI_Query_thread %d (asked %d), thread computed %ld "
            "(expected 500500)\n",
            me, provided, queried, required, sum);
  MPI_Finalize();
  return bad;
}
