/* One-sided communication under xsim: every synchronization mode (fence, post/start/complete/wait,
 * exclusive and shared locks, lock_all with flushes) and every operation (put, get, accumulate with
 * predefined and derived datatypes, get_accumulate, fetch_and_op, compare_and_swap, the request forms),
 * on windows of every flavor (create, allocate, dynamic, shared). Every rank checks its results against
 * their closed form and logs them with its virtual time; rank 0 prints all logs in rank order, so runs with
 * 1 and 2 native processes must print the same lines (tests/mpi/run.sh same).
 * Usage: rma [all|timing|outside-epoch|shared-refused]
 *   timing          exact virtual times of one fence epoch and one lock epoch (docs/rma.md)
 *   shared-refused  MPI_Win_allocate_shared over ranks of several nodes (must fail, naming the reason)
 * Run "all" with at least 3 ranks; with a multi-core node network (-xsim-mn star/star:4) the shared
 * window really spans several ranks. No global or static variables: the virtual ranks of a native process
 * share them. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rank_log.h"
#include "xsim.h"

/* ---- fence: put, get, accumulate (SUM, REPLACE, derived datatypes), get_accumulate, attributes ---- */
static void fence_epochs(Log* lg, int me, int np) {
  const int n = 4 * np;
  int* mem = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) mem[i] = -1;
  MPI_Win win;
  MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * (size_t)n), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  void* base;
  MPI_Aint* size;
  int *disp_unit, *flavor, *model, flag;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
  CHECK(flag && base == mem, "MPI_WIN_BASE");
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
  CHECK(flag && *size == (MPI_Aint)(sizeof(int) * (size_t)n), "MPI_WIN_SIZE %ld", (long)*size);
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &disp_unit, &flag);
  CHECK(flag && *disp_unit == (int)sizeof(int), "MPI_WIN_DISP_UNIT");
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR");
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
  CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");

  const int right = (me + 1) % np, left = (me + np - 1) % np;
  /* 1. put my rank into the right neighbour's slot [me]; get the left neighbour's slot 0 later */
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  int v = me * 10 + 1;
  MPI_Put(&v, 1, MPI_INT, right, me, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK(mem[left] == left * 10 + 1, "put from the left: %d", mem[left]);
  for (int i = 0; i < np; ++i) CHECK(i == left || mem[i] == -1, "slot %d touched: %d", i, mem[i]);
  /* 2. get the right neighbour's slot [me] (what I put there) and its slot [right-1] */
  int got[2] = {0, 0};
  MPI_Get(&got[0], 1, MPI_INT, right, me, 1, MPI_INT, win);
  MPI_Get(&got[1], 1, MPI_INT, left, left == 0 ? np - 1 : left - 1, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  int leftleft = (left + np - 1) % np;
  CHECK(got[0] == me * 10 + 1 && got[1] == leftleft * 10 + 1, "get %d %d", got[0], got[1]);
  /* 3. accumulate: everybody adds (r+1) to slots np..2np-1 of rank 0 (which start at -1) */
  for (int i = np; i < 2 * np; ++i) mem[i] = 0;
  MPI_Win_fence(0, win);
  int add[64];
  for (int i = 0; i < np && i < 64; ++i) add[i] = me + 1;
  MPI_Accumulate(add, np, MPI_INT, 0, np, np, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  if (me == 0)
    for (int i = np; i < 2 * np; ++i) CHECK(mem[i] == np * (np + 1) / 2, "sum %d", mem[i]);
  /* 4. derived target datatype: every other int of slots 2np..4np-1 of the right neighbour, SUM then
   *    REPLACE; and a contiguous origin of np ints */
  for (int i = 2 * np; i < 4 * np; ++i) mem[i] = 100;
  MPI_Datatype every_other;
  MPI_Type_vector(np, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Win_fence(0, win);
  int src[64];
  for (int i = 0; i < np && i < 64; ++i) src[i] = me * 1000 + i;
  MPI_Accumulate(src, np, MPI_INT, right, 2 * np, 1, every_other, MPI_SUM, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < np; ++i) {
    CHECK(mem[2 * np + 2 * i] == 100 + left * 1000 + i, "vector sum [%d] = %d", i, mem[2 * np + 2 * i]);
    CHECK(mem[2 * np + 2 * i + 1] == 100, "gap [%d] = %d", i, mem[2 * np + 2 * i + 1]);
  }
  MPI_Win_fence(0, win);  /* nobody writes here before everybody has looked */
  MPI_Accumulate(src, np, MPI_INT, right, 2 * np + 1, 1, every_other, MPI_REPLACE, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < np; ++i) CHECK(mem[2 * np + 2 * i + 1] == left * 1000 + i, "vector replace [%d]", i);
  /* 5. a derived origin datatype for a get: the right neighbour's gaps into every other int of mine */
  int back[128];
  for (int i = 0; i < 2 * np; ++i) back[i] = -7;
  MPI_Get(back, 1, every_other, right, 2 * np + 1, 1, every_other, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < np; ++i) CHECK(back[2 * i] == me * 1000 + i && back[2 * i + 1] == -7, "strided get [%d]", i);
  MPI_Type_free(&every_other);
  /* 6. get_accumulate: everybody fetches-and-adds 1 on rank 0's slot 0 (which holds -1 or left's put) */
  if (me == 0) mem[0] = 0;
  MPI_Win_fence(0, win);
  int one = 1, old = -1;
  MPI_Get_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  CHECK(old >= 0 && old < np, "fetched %d", old);
  int sum = 0;
  MPI_Allreduce(&old, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == np * (np - 1) / 2, "tickets sum %d", sum);
  if (me == 0) CHECK(mem[0] == np, "counter %d", mem[0]);
  say(lg, "fence: put/get/acc ok, ticket %d, time %.9f\n", old, MPI_Wtime());
  /* errors go to the window's handler: MPI_ERRORS_RETURN here */
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  int rc = MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RMA_SYNC, "put outside an epoch: class %d", cls);
  MPI_Win_fence(0, win);
  rc = MPI_Put(&v, 1, MPI_INT, right, n, 1, MPI_INT, win);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RMA_RANGE, "put beyond the window: class %d", cls);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  MPI_Win_free(&win);
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free must reset the handle");
  free(mem);
}

/* ---- post/start/complete/wait: a ring, and a star around rank 0 tested with MPI_Win_test ---- */
static void pscw(Log* lg, int me, int np) {
  double* mem;
  MPI_Win win;
  MPI_Win_allocate(sizeof(double) * 4, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  for (int i = 0; i < 4; ++i) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Group world, lg_, rg;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  MPI_Group_incl(world, 1, &left, &lg_);
  MPI_Group_incl(world, 1, &right, &rg);
  for (int round = 0; round < 3; ++round) {
    MPI_Win_post(lg_, 0, win);  /* the left neighbour writes into me */
    MPI_Win_start(rg, 0, win);
    double v[2] = {me + 0.5 * round, -me - 0.25};
    MPI_Put(v, 2, MPI_DOUBLE, right, 0, 2, MPI_DOUBLE, win);
    double g = -1;
    MPI_Get(&g, 1, MPI_DOUBLE, right, 3, 1, MPI_DOUBLE, win);
    MPI_Win_complete(win);
    CHECK(g == (round == 0 ? 0 : right * 100 + round - 1), "round %d: got %g from the right", round, g);
    MPI_Win_wait(win);
    CHECK(mem[0] == left + 0.5 * round && mem[1] == -left - 0.25, "round %d: %g %g", round, mem[0], mem[1]);
    mem[3] = me * 100 + round;  /* read by the left neighbour next round (its get follows my next post) */
  }
  say(lg, "pscw ring: 3 rounds ok, time %.9f\n", MPI_Wtime());
  /* star: rank 0 exposes to everybody, everybody accumulates into mem[2]; rank 0 polls MPI_Win_test */
  if (me == 0) {
    for (int i = 0; i < 4; ++i) mem[i] = 0;
    MPI_Win_post(world, 0, win);
  }
  MPI_Group zero;
  int z = 0;
  MPI_Group_incl(world, 1, &z, &zero);
  MPI_Win_start(zero, 0, win);
  double inc = me + 1;
  MPI_Accumulate(&inc, 1, MPI_DOUBLE, 0, 2, 1, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_complete(win);
  if (me == 0) {
    int flag = 0, polls = 0;
    while (!flag) {
      MPI_Win_test(win, &flag);
      ++polls;
    }
    CHECK(mem[2] == np * (np + 1) / 2.0, "star sum %g", mem[2]);
    say(lg, "pscw star: sum %g after %s polls\n", mem[2], polls > 1 ? "several" : "one");
  }
  say(lg, "pscw star: time %.9f\n", MPI_Wtime());
  MPI_Group_free(&zero);
  MPI_Group_free(&lg_);
  MPI_Group_free(&rg);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
}

/* ---- passive target: exclusive read-modify-write, shared reads, a target that computes ---- */
static void locks(Log* lg, int me, int np) {
  long* mem;
  MPI_Win win;
  MPI_Win_allocate(sizeof(long) * 2, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  mem[0] = 0;
  mem[1] = 42;
  MPI_Barrier(MPI_COMM_WORLD);
  /* every rank increments rank 0's counter with get + put under an exclusive lock: no update is lost */
  long seen = -1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Get(&seen, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
  MPI_Win_flush(0, win);
  long next = seen + 1;
  MPI_Put(&next, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) CHECK(mem[0] == np, "exclusive counter %ld", mem[0]);
  long all = 0;
  MPI_Allreduce(&seen, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all == (long)np * (np - 1) / 2, "every value seen once: sum %ld", all);
  say(lg, "lock exclusive: saw %ld, time %.9f\n", seen, MPI_Wtime());
  /* shared locks: everybody reads rank 0's pair at once */
  long pair[2] = {0, 0};
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get(pair, 2, MPI_LONG, 0, 0, 2, MPI_LONG, win);
  MPI_Win_unlock(0, win);
  CHECK(pair[0] == np && pair[1] == 42, "shared read %ld %ld", pair[0], pair[1]);
  say(lg, "lock shared: time %.9f\n", MPI_Wtime());
  MPI_Barrier(MPI_COMM_WORLD);
  /* passive progress: rank 0 computes for a virtual second without calling MPI; rank 1's epoch on it
   * completes at once (the target's process applies the operations, not the target's code) */
  double t0 = MPI_Wtime();
  if (me == 0) {
    xsim_compute(1.0);
  } else if (me == 1) {
    long v = 7;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
    double dt = MPI_Wtime() - t0;
    CHECK(dt < 0.001, "the epoch waited for the computing target: %.9f", dt);
    say(lg, "lock while the target computes: epoch %.9f\n", dt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) CHECK(mem[1] == 7, "put during the computation %ld", mem[1]);
  say(lg, "locks: time %.9f\n", MPI_Wtime());
  MPI_Win_free(&win);
}

/* ---- lock_all with flushes; fetch_and_op tickets; compare_and_swap spin lock; Rput/Rget ---- */
static void lock_all_ops(Log* lg, int me, int np) {
  int* mem;
  MPI_Win win;
  const int n = np + 4;
  MPI_Win_allocate((MPI_Aint)sizeof(int) * n, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  for (int i = 0; i < n; ++i) mem[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  /* everybody writes its rank+1 into slot [me] of every rank */
  int v = me + 1;
  for (int t = 0; t < np; ++t) MPI_Put(&v, 1, MPI_INT, t, me, 1, MPI_INT, win);
  MPI_Win_flush_all(win);
  /* tickets from rank 0's counter (slot np) */
  int one = 1, ticket = -1;
  MPI_Fetch_and_op(&one, &ticket, MPI_INT, 0, np, MPI_SUM, win);
  MPI_Win_flush_local(0, win);
  CHECK(ticket >= 0 && ticket < np, "ticket %d", ticket);
  /* a spin lock in rank 0's slot np+1 (0 = free, r+1 = held by r) guarding slot np+2 */
  int mine = me + 1, zero = 0, prev = -1, tries = 0;
  do {
    MPI_Compare_and_swap(&mine, &zero, &prev, MPI_INT, 0, np + 1, win);
    MPI_Win_flush(0, win);
    ++tries;
  } while (prev != 0);
  int cur = -1;
  MPI_Get(&cur, 1, MPI_INT, 0, np + 2, 1, MPI_INT, win);
  MPI_Win_flush(0, win);
  int upd = cur + me;
  MPI_Put(&upd, 1, MPI_INT, 0, np + 2, 1, MPI_INT, win);
  MPI_Win_flush(0, win);
  MPI_Compare_and_swap(&zero, &mine, &prev, MPI_INT, 0, np + 1, win);
  MPI_Win_flush(0, win);
  CHECK(prev == mine, "lock released by its holder: %d", prev);
  /* request-based operations */
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  int rv = -1, wv = 1000 + me;
  MPI_Request reqs[2];
  MPI_Rget(&rv, 1, MPI_INT, right, me, 1, MPI_INT, win, &reqs[0]);  /* what I put there (flushed) */
  MPI_Rput(&wv, 1, MPI_INT, left, np + 3, 1, MPI_INT, win, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  CHECK(rv == me + 1, "Rget %d", rv);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  for (int i = 0; i < np; ++i) CHECK(mem[i] == i + 1, "slot %d = %d", i, mem[i]);
  CHECK(mem[np + 3] == 1000 + right, "Rput %d", mem[np + 3]);
  if (me == 0) {
    CHECK(mem[np] == np, "ticket counter %d", mem[np]);
    CHECK(mem[np + 1] == 0, "spin lock left held: %d", mem[np + 1]);
    CHECK(mem[np + 2] == np * (np - 1) / 2, "guarded sum %d", mem[np + 2]);
  }
  say(lg, "lock_all: ticket %d, spin lock after %d tries, time %.9f\n", ticket, tries, MPI_Wtime());
  MPI_Win_free(&win);
}

/* ---- dynamic windows: attach, exchange addresses, put, detach ---- */
static void dynamic(Log* lg, int me, int np) {
  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int* mem = malloc(sizeof(int) * 4);
  for (int i = 0; i < 4; ++i) mem[i] = -1;
  MPI_Win_attach(win, mem, sizeof(int) * 4);
  MPI_Aint mine, *addr = malloc(sizeof(MPI_Aint) * (size_t)np);
  MPI_Get_address(mem, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
  const int right = (me + 1) % np, left = (me + np - 1) % np;
  int v[2] = {me, me * me};
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  MPI_Put(v, 2, MPI_INT, right, MPI_Aint_add(addr[right], sizeof(int)), 2, MPI_INT, win);
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(mem[0] == -1 && mem[1] == left && mem[2] == left * left && mem[3] == -1, "dynamic %d %d %d %d", mem[0],
        mem[1], mem[2], mem[3]);
  int* flavor, flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(*flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor");
  MPI_Win_detach(win, mem);
  MPI_Win_free(&win);
  free(addr);
  free(mem);
  say(lg, "dynamic: ok, time %.9f\n", MPI_Wtime());
}

/* ---- shared windows over each simulated node ---- */
static void shared(Log* lg, int me) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  int nr, nn;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &nn);
  int* part;
  MPI_Win win;
  MPI_Win_allocate_shared((MPI_Aint)sizeof(int) * (nr + 1), sizeof(int), MPI_INFO_NULL, node, &part, &win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  for (int i = 0; i <= nr; ++i) part[i] = me * 100 + i;
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  long sum = 0;
  for (int r = 0; r < nn; ++r) {
    MPI_Aint size;
    int du;
    int* p;
    MPI_Win_shared_query(win, r, &size, &du, &p);
    CHECK(size == (MPI_Aint)sizeof(int) * (r + 1) && du == (int)sizeof(int), "query %d: %ld %d", r, (long)size, du);
    if (r > 0) {  /* contiguous: rank r's part follows rank r-1's */
      int* q;
      MPI_Win_shared_query(win, r - 1, &size, &du, &q);
      CHECK(p == q + r, "rank %d's part is not contiguous", r);
    }
    for (int i = 0; i <= r; ++i) sum += p[i];
  }
  MPI_Win_unlock_all(win);
  int* first;
  MPI_Aint size;
  int du;
  MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &du, &first);
  CHECK(first == part - (nr * (nr + 1)) / 2, "MPI_PROC_NULL query");
  say(lg, "shared: node of %d ranks, I am %d, sum %ld, time %.9f\n", nn, nr, sum, MPI_Wtime());
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
}

/* ---- exact times: one fence epoch and one lock epoch (docs/rma.md) ---- */
static void timing(int me, int np) {
  double* mem;
  MPI_Win win;
  MPI_Win_allocate(sizeof(double) * 100, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_fence(0, win);
  double t0 = MPI_Wtime();
  double v[100];
  for (int i = 0; i < 100; ++i) v[i] = me + i;
  MPI_Put(v, 100, MPI_DOUBLE, (me + 1) % np, 0, 100, MPI_DOUBLE, win);
  MPI_Win_fence(0, win);
  double t_put = MPI_Wtime() - t0;
  t0 = MPI_Wtime();
  MPI_Get(v, 100, MPI_DOUBLE, (me + 1) % np, 0, 100, MPI_DOUBLE, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  double t_get = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t_lock = 0;
  if (me == 1) {
    t0 = MPI_Wtime();
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(v, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
    t_lock = MPI_Wtime() - t0;
  }
  /* MPI_Win_flush_all waits for the put's acknowledgement (it returned at once under MPICH, whose
     MPI_PROC_NULL is -1, the value xsim used for "every target") */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  MPI_Put(v, 1, MPI_DOUBLE, (me + 1) % np, 1, 1, MPI_DOUBLE, win);
  t0 = MPI_Wtime();
  MPI_Win_flush_all(win);
  double t_flush = MPI_Wtime() - t0;
  MPI_Win_unlock_all(win);
  double times[4] = {t_put, t_get, t_lock, t_flush}, max[4];
  MPI_Reduce(times, max, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("rma timing: fence epoch put 800 bytes %.9f get 800 bytes %.9f lock epoch put 8 bytes %.9f"
           " flush_all put 8 bytes %.9f\n", max[0], max[1], max[2], max[3]);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "all";
  if (!strcmp(mode, "timing")) {
    timing(me, np);
  } else if (!strcmp(mode, "shared-refused")) {
    int* p;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win);
  } else {
    Log* lg = calloc(1, sizeof(Log));
    fence_epochs(lg, me, np);
    pscw(lg, me, np);
    locks(lg, me, np);
    lock_all_ops(lg, me, np);
    dynamic(lg, me, np);
    shared(lg, me);
    say(lg, "done at %.9f\n", MPI_Wtime());
    print_all(lg, me, np);
    free(lg);
  }
  MPI_Finalize();
  return 0;
}
