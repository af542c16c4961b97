/* thread_multiple.c - MPI_THREAD_MULTIPLE: the threads of a rank call MPI (issue 20, docs/applications.md
 * "Threads"). Each thread of a threaded rank is a fiber of the rank with its own virtual clock, so threads
 * that communicate at the same time overlap in virtual time, and the waits between threads (mutex,
 * condition variable, barrier, semaphore, join, sched_yield) never block the native thread.
 *
 *   thread_multiple pingpong   ranks in pairs (2j, 2j+1); kThreads threads per rank, thread k exchanging
 *                              kRounds round trips of one int with the same thread of the partner (tag k);
 *                              handshakes through a mutex and a condition variable, a barrier among the
 *                              threads, a detached thread that posts a semaphore, a flag polled with
 *                              sched_yield, results through pthread_join. Prints each thread's end time.
 *   thread_multiple compute    thread k computes (k + 1) x 100 us (xsim_compute): the rank's main thread,
 *                              after joining them, is at 300 us (they overlap), not 600.
 *   thread_multiple anysource  rank 0's threads send kRounds messages each to rank 1, whose threads receive
 *                              from MPI_ANY_SOURCE with MPI_ANY_TAG (the osu_latency_mt pattern): every
 *                              message is received exactly once.
 *   thread_multiple collectives  thread k of every rank runs MPI_Allreduce and MPI_Bcast on its own duplicate of
 *                              MPI_COMM_WORLD, after computing k x 10 us more than the thread before it each
 *                              round: the results and each thread's time (printed) must not depend on the
 *                              collectives' fast path (-xsim-coll-replay) nor on N.
 *   thread_multiple large      the pingpong's pattern with 1 MiB messages (rendezvous under the loggp model).
 *   thread_multiple deadlock   two threads take two mutexes in opposite orders: xsim must stop with a
 *                              report that names each thread's wait.
 *   thread_multiple answer     rank 0's main thread computes 1 ms while its other thread waits in MPI_Recv for
 *                              rank 1's message (arriving at ~50 us) and answers at once; rank 1 polls with
 *                              MPI_Iprobe every 10 us of computation: the answer must be seen at about
 *                              100 us, not after rank 0's main thread is done (the rank goes back to its
 *                              waiting thread's time).
 *   thread_multiple exitmain   the main thread calls pthread_exit: xsim must stop with a message (it is the
 *                              native thread of every rank).
 *   thread_multiple stuck      a thread waits for a message nobody sends while the main thread joins it:
 *                              the deadlock report names the rank's thread in MPI_Recv and the main thread
 *                              in pthread_join.
 * Exits non-zero on any wrong value.
 */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include "xsim.h"

enum { kThreads = 3, kRounds = 5 };

static int me, np, bad;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started, total;
static pthread_barrier_t bar;
static sem_t sem;
static volatile int flag;
static double t_end[kThreads], t_bar[kThreads];

static void check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "thread_multiple: FAILED: rank %d: %s\n", me, what);
    bad = 1;
  }
}

static void* pingpong(void* arg) {
  const int k = (int)(long)arg;
  int main_flag = 1;
  MPI_Is_thread_main(&main_flag);
  check(!main_flag, "MPI_Is_thread_main says 1 in a created thread");
  pthread_mutex_lock(&mu);
  ++started;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  const int peer = me ^ 1;
  int v = 0;
  for (int i = 0; i < kRounds; ++i) {
    if (me & 1) {
      MPI_Recv(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ++v;
      MPI_Send(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD);
    } else {
      v = 100 * k + i;
      MPI_Send(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_INT, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(v == 100 * k + i + 1, "a thread received another thread's reply");
    }
  }
  t_end[k] = MPI_Wtime();
  pthread_mutex_lock(&mu);
  total += v;
  pthread_mutex_unlock(&mu);
  pthread_barrier_wait(&bar);
  t_bar[k] = MPI_Wtime();
  return (void*)(long)(k + 10);
}

static void* poster(void* arg) {
  (void)arg;
  while (!flag) sched_yield(); /* set by the main thread after the handshake */
  sem_post(&sem);
  pthread_exit(NULL); /* a detached thread that ends with pthread_exit */
}

static void run_pingpong(void) {
  pthread_barrier_init(&bar, NULL, kThreads);
  sem_init(&sem, 0, 0);
  pthread_t th[kThreads], det;
  for (long k = 0; k < kThreads; ++k) pthread_create(&th[k], NULL, pingpong, (void*)k);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&det, &attr, poster, NULL);
  pthread_attr_destroy(&attr);
  pthread_mutex_lock(&mu);
  while (started < kThreads) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  flag = 1;
  sem_wait(&sem);
  long results = 0;
  for (int k = 0; k < kThreads; ++k) {
    void* r = NULL;
    pthread_join(th[k], &r);
    results += (long)r;
  }
  check(results == 10 + 11 + 12, "pthread_join returned wrong results");
  check(total == 0 + 100 + 200 + 3 * kRounds,
        "wrong sum of the last values");
  for (int k = 1; k < kThreads; ++k) check(t_bar[k] == t_bar[0], "threads left the barrier at different times");
  printf("rank %d: threads end %.9f %.9f %.9f barrier %.9f main %.9f\n", me, t_end[0], t_end[1], t_end[2], t_bar[0],
         MPI_Wtime());
}

static void* compute(void* arg) {
  const int k = (int)(long)arg;
  xsim_compute((k + 1) * 100e-6);
  t_end[k] = MPI_Wtime();
  return NULL;
}

static void run_compute(void) {
  pthread_t th[kThreads];
  for (long k = 0; k < kThreads; ++k) pthread_create(&th[k], NULL, compute, (void*)k);
  for (int k = 0; k < kThreads; ++k) pthread_join(th[k], NULL);
  printf("rank %d: threads end %.9f %.9f %.9f main %.9f\n", me, t_end[0], t_end[1], t_end[2], MPI_Wtime());
}

static int received[kThreads * kRounds];

static void* anysource(void* arg) {
  const int k = (int)(long)arg;
  for (int i = 0; i < kRounds; ++i) {
    if (me == 0) {
      int v = k * kRounds + i;
      MPI_Send(&v, 1, MPI_INT, 1, k, MPI_COMM_WORLD);
    } else {
      int v = -1;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      check(v >= 0 && v < kThreads * kRounds && st.MPI_TAG == v / kRounds && st.MPI_SOURCE == 0,
            "a message arrived with a wrong value, tag or source");
      if (v >= 0 && v < kThreads * kRounds) ++received[v];
    }
  }
  return NULL;
}

static void run_anysource(void) {
  pthread_t th[kThreads];
  if (me < 2)
    for (long k = 0; k < kThreads; ++k) pthread_create(&th[k], NULL, anysource, (void*)k);
  if (me < 2)
    for (int k = 0; k < kThreads; ++k) pthread_join(th[k], NULL);
  if (me == 1)
    for (int v = 0; v < kThreads * kRounds; ++v) check(received[v] == 1, "a message was received twice or never");
  printf("rank %d: main %.9f\n", me, MPI_Wtime());
}

static MPI_Comm comms[kThreads];

static void* collectives(void* arg) {
  const int k = (int)(long)arg;
  long sum = 0;
  for (int i = 0; i < kRounds; ++i) {
    xsim_compute((k + 1) * (me + 1) * 10e-6);
    long mine = me * 10 + k + i, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, comms[k]);
    check(all == 10L * np * (np - 1) / 2 + (long)np * (k + i), "MPI_Allreduce in a thread gave a wrong sum");
    long root_value = i == 0 ? -1 : all + k;
    if (me == i % np) root_value = all + k;
    MPI_Bcast(&root_value, 1, MPI_LONG, i % np, comms[k]);
    check(root_value == all + k, "MPI_Bcast in a thread gave a wrong value");
    sum += all;
  }
  t_end[k] = MPI_Wtime();
  return (void*)sum;
}

static void run_collectives(void) {
  for (int k = 0; k < kThreads; ++k) MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
  pthread_t th[kThreads];
  for (long k = 0; k < kThreads; ++k) pthread_create(&th[k], NULL, collectives, (void*)k);
  for (int k = 0; k < kThreads; ++k) pthread_join(th[k], NULL);
  for (int k = 0; k < kThreads; ++k) MPI_Comm_free(&comms[k]);
  printf("rank %d: threads end %.9f %.9f %.9f main %.9f\n", me, t_end[0], t_end[1], t_end[2], MPI_Wtime());
}

enum { kLarge = 1 << 20 };
static char large_buf[kThreads][2][kLarge];

static void* large(void* arg) {
  const int k = (int)(long)arg;
  const int peer = me ^ 1;
  char* out = large_buf[k][0];
  char* in = large_buf[k][1];
  for (int i = 0; i < kRounds; ++i) {
    memset(out, 'a' + k + i, kLarge);
    if (me & 1) {
      MPI_Recv(in, kLarge, MPI_CHAR, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, kLarge, MPI_CHAR, peer, k, MPI_COMM_WORLD);
    } else {
      MPI_Send(out, kLarge, MPI_CHAR, peer, k, MPI_COMM_WORLD);
      MPI_Recv(in, kLarge, MPI_CHAR, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    check(in[0] == 'a' + k + i && in[kLarge - 1] == 'a' + k + i, "a large message came from the wrong thread");
  }
  t_end[k] = MPI_Wtime();
  return NULL;
}

static void run_large(void) {
  pthread_t th[kThreads];
  for (long k = 0; k < kThreads; ++k) pthread_create(&th[k], NULL, large, (void*)k);
  for (int k = 0; k < kThreads; ++k) pthread_join(th[k], NULL);
  printf("rank %d: threads end %.9f %.9f %.9f main %.9f\n", me, t_end[0], t_end[1], t_end[2], MPI_Wtime());
}

static pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER, mb = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void* lock_two(void* arg) {
  pthread_mutex_t* first = arg ? &ma : &mb;
  pthread_mutex_t* second = arg ? &mb : &ma;
  pthread_mutex_lock(first);
  pthread_barrier_wait(&both); /* each holds its first mutex */
  pthread_mutex_lock(second);
  pthread_mutex_unlock(second);
  pthread_mutex_unlock(first);
  return NULL;
}

static void run_deadlock(void) {
  pthread_t a, b;
  pthread_barrier_init(&both, NULL, 2);
  pthread_create(&a, NULL, lock_two, (void*)1);
  pthread_create(&b, NULL, lock_two, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

static void* answer(void* arg) {
  (void)arg;
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  ++v;
  MPI_Send(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
  return NULL;
}

static void run_answer(void) {
  if (me == 0) {
    pthread_t t;
    pthread_create(&t, NULL, answer, NULL);
    xsim_compute(1e-3);
    pthread_join(t, NULL);
  } else if (me == 1) {
    int v = 41, flag = 0;
    MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    while (!flag) {
      MPI_Iprobe(0, 8, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (!flag) xsim_compute(10e-6);
    }
    const double seen = MPI_Wtime();
    MPI_Recv(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(v == 42, "wrong answer");
    check(seen < 200e-6, "the answer was seen only after rank 0's main thread went on");
    printf("rank 1: answer seen at %.9f\n", seen);
  }
}

static void* never(void* arg) {
  (void)arg;
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, me, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return NULL;
}

static void run_stuck(void) {
  pthread_t t;
  pthread_create(&t, NULL, never, NULL);
  pthread_join(t, NULL);
}

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int level = -1, main_flag = 0;
  MPI_Query_thread(&level);
  MPI_Is_thread_main(&main_flag);
  check(provided == MPI_THREAD_MULTIPLE && level == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
  check(main_flag == 1, "MPI_Is_thread_main says 0 in the main thread");
  const char* mode = argc > 1 ? argv[1] : "pingpong";
  if (!strcmp(mode, "pingpong"))
    run_pingpong();
  else if (!strcmp(mode, "compute"))
    run_compute();
  else if (!strcmp(mode, "anysource"))
    run_anysource();
  else if (!strcmp(mode, "collectives"))
    run_collectives();
  else if (!strcmp(mode, "large"))
    run_large();
  else if (!strcmp(mode, "deadlock"))
    run_deadlock();
  else if (!strcmp(mode, "stuck"))
    run_stuck();
  else if (!strcmp(mode, "answer"))
    run_answer();
  else if (!strcmp(mode, "exitmain"))
    pthread_exit(NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return bad;
}
