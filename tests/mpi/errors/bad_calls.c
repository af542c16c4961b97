/* Misuse of MPI inside the application, one mode per mistake (tests/mpi/bad_input.cmake runs each).
 * Usage: bad_calls MODE HANDLER, HANDLER = "return" or "fatal".
 *   return: MPI_COMM_WORLD gets MPI_ERRORS_RETURN; the offending call must return the expected error class,
 *           the program prints "bad_calls MODE: CALL returned CLASS (error string)" and "... ok", then goes on
 *           and ends normally (exit 0); a wrong or missing code prints FAILED and exits 1.
 *   fatal:  the default MPI_ERRORS_ARE_FATAL stays; xsim must end the run naming the rank and the call (the
 *           test checks the exit code and the message); reaching the line after the call prints FAILED.
 * The offending rank is rank 1 unless said otherwise. Modes that are not an MPI error code (a rank that exits
 * while another waits for it, MPI_Abort, calls before MPI_Init, virtual time overflow) ignore HANDLER. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "xsim.h"

static const char* g_mode;
static int g_return;  /* 1: MPI_ERRORS_RETURN */
static int g_failed;

static const char* class_name(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
    default: return "another class";
  }
}

/* Checks the code `rc` that `call` returned under MPI_ERRORS_RETURN against the class `want`. Under
 * MPI_ERRORS_ARE_FATAL the call must not have returned at all. */
static void expect(int rc, int want, const char* call) {
  if (!g_return) {
    fprintf(stderr, "bad_calls %s: FAILED: %s returned %d under MPI_ERRORS_ARE_FATAL\n", g_mode, call, rc);
    exit(1);
  }
  int cls = -1, len = 0;
  char text[MPI_MAX_ERROR_STRING] = "";
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, text, &len);
  printf("bad_calls %s: %s returned %s (%s)\n", g_mode, call, class_name(cls), text);
  if (cls != want) {
    printf("bad_calls %s: FAILED: expected %s\n", g_mode, class_name(want));
    g_failed = 1;
  } else {
    printf("bad_calls %s: ok\n", g_mode);
  }
}

/* An address range of `bytes` that costs no memory until written (reads see zeros). */
static void* reserve(size_t bytes) {
  void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return p;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bad_calls MODE return|fatal\n");
    return 2;
  }
  g_mode = argv[1];
  g_return = !strcmp(argv[2], "return");
  const char* m = g_mode;
  int me = -1, np = 0, buf[16] = {0};

  if (!strcmp(m, "before-init")) { /* no error handler can be set yet: the run always ends */
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    fprintf(stderr, "bad_calls before-init: FAILED: MPI_Comm_rank before MPI_Init returned\n");
    return 1;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (g_return) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  if (!strcmp(m, "rank")) {
    if (me == 1) expect(MPI_Send(buf, 1, MPI_INT, np, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send");
  } else if (!strcmp(m, "rank-negative")) {
    if (me == 1) expect(MPI_Recv(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK, "MPI_Recv");
  } else if (!strcmp(m, "root")) {
    if (me == 1) expect(MPI_Bcast(buf, 1, MPI_INT, np + 3, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast");
  } else if (!strcmp(m, "tag")) {
    if (me == 1) expect(MPI_Send(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send");
  } else if (!strcmp(m, "count")) {
    if (me == 1) expect(MPI_Send(buf, -3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send");
  } else if (!strcmp(m, "comm-null")) {
    if (me == 1) expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send");
  } else if (!strcmp(m, "comm-freed")) { /* a stale copy of a freed communicator's handle */
    MPI_Comm dup, stale;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    stale = dup;
    MPI_Comm_free(&dup);
    if (me == 1) expect(MPI_Send(buf, 1, MPI_INT, 0, 0, stale), MPI_ERR_COMM, "MPI_Send");
  } else if (!strcmp(m, "type-null")) {
    if (me == 1) expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
  } else if (!strcmp(m, "request-freed")) { /* a stale copy of a completed and freed request's handle */
    if (me == 1) {
      MPI_Request r, stale;
      MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
      stale = r;
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      expect(MPI_Wait(&stale, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait");
    } else if (me == 0) {
      MPI_Recv(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (!strcmp(m, "request-null")) { /* a null pointer where the request belongs */
    if (me == 1) expect(MPI_Wait(NULL, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait");
  } else if (!strcmp(m, "isend-null-request")) { /* nothing may be sent: the request cannot be handed out */
    if (me == 1) {
      MPI_Request* nowhere = NULL;
      expect(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, nowhere), MPI_ERR_REQUEST, "MPI_Isend");
    }
  } else if (!strcmp(m, "request-free-null")) {
    MPI_Request r = MPI_REQUEST_NULL;
    if (me == 1) expect(MPI_Request_free(&r), MPI_ERR_REQUEST, "MPI_Request_free");
  } else if (!strcmp(m, "truncate")) {
    if (me == 0) {
      int ten[10] = {0};
      MPI_Send(ten, 10, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else if (me == 1) {
      MPI_Status st;
      int got = -1;
      expect(MPI_Recv(buf, 4, MPI_INT, 0, 5, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE, "MPI_Recv");
      MPI_Get_count(&st, MPI_INT, &got);
      printf("bad_calls truncate: status source %d tag %d\n", st.MPI_SOURCE, st.MPI_TAG);
    }
  } else if (!strcmp(m, "finalize-twice")) {
    MPI_Finalize();
    if (me == 1) expect(MPI_Finalize(), MPI_ERR_OTHER, "MPI_Finalize");
    goto done;
  } else if (!strcmp(m, "after-finalize")) {
    MPI_Finalize();
    if (me == 1) expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_OTHER, "MPI_Send");
    goto done;
  } else if (!strcmp(m, "exit-while-waiting")) { /* rank 1 ends without MPI_Finalize; rank 0 waits for it */
    if (me == 1) return 0;
    if (me == 0) {
      MPI_Recv(buf, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      fprintf(stderr, "bad_calls exit-while-waiting: FAILED: rank 0 received a message nobody sent\n");
      return 1;
    }
  } else if (!strcmp(m, "abort-while-blocked")) { /* the others wait in MPI_Recv and MPI_Barrier */
    if (me == 1) MPI_Abort(MPI_COMM_WORLD, 4);
    if (me == 0) MPI_Recv(buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "bad_calls abort-while-blocked: FAILED: rank %d went on\n", me);
    return 1;
  } else if (!strcmp(m, "big-extent")) {
    /* count x extent beyond 2^31: 4 ints, one every GiB (an extent of 1 GiB), from a 4 GiB range that costs no
     * memory; they arrive as 16 contiguous bytes. */
    MPI_Datatype spaced;
    const MPI_Aint gib = (MPI_Aint)1 << 30;
    MPI_Type_create_resized(MPI_INT, 0, gib, &spaced);
    MPI_Type_commit(&spaced);
    if (me == 1) {
      char* far = reserve((size_t)4 << 30);
      for (int i = 0; i < 4; ++i) *(int*)(far + (size_t)i * (size_t)gib) = 1000 + i;
      MPI_Send(far, 4, spaced, 0, 9, MPI_COMM_WORLD);
      munmap(far, (size_t)4 << 30);
    } else if (me == 0) {
      int got[4] = {0};
      MPI_Status st;
      int n = -1;
      MPI_Recv(got, 4, MPI_INT, 1, 9, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_INT, &n);
      int ok = n == 4 && got[0] == 1000 && got[1] == 1001 && got[2] == 1002 && got[3] == 1003;
      printf("bad_calls big-extent: 4 ints with an extent of 1 GiB (4 GiB spanned): %s\n", ok ? "ok" : "FAILED");
      if (!ok) g_failed = 1;
    }
    MPI_Type_free(&spaced);
  } else if (!strcmp(m, "big-message")) {
    /* A message of more than 2^31 bytes (2049 elements of 1 MiB): its size, status and virtual time are 64-bit.
     * Rank 1 sends from a range that costs no memory; rank 0 probes it, then takes 1 byte of it, which must be
     * refused as a truncation under MPI_ERRORS_RETURN. */
    MPI_Datatype mib;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_commit(&mib);
    const MPI_Count bytes = (MPI_Count)2049 << 20;
    if (me == 1) {
      void* src = reserve((size_t)bytes);
      MPI_Send(src, 2049, mib, 0, 3, MPI_COMM_WORLD);
      munmap(src, (size_t)bytes);
    } else if (me == 0) {
      MPI_Status st;
      int n_mib = -1, n_bytes = -1;
      MPI_Count elements = -1;
      MPI_Probe(1, 3, MPI_COMM_WORLD, &st);
      double t = MPI_Wtime();
      MPI_Get_count(&st, mib, &n_mib);
      MPI_Get_count(&st, MPI_BYTE, &n_bytes);
      MPI_Get_elements_x(&st, MPI_BYTE, &elements);
      /* default ethernet star: 2 x 25 us + 8 x 2,148,532,224 bits / 1 Gbps = 17.188307792 s */
      printf("bad_calls big-message: %lld bytes, count %d of 1 MiB, MPI_BYTE count %s, arrival %.9f\n",
             (long long)elements, n_mib, n_bytes == MPI_UNDEFINED ? "MPI_UNDEFINED" : "a number", t);
      if (elements != bytes || n_mib != 2049 || n_bytes != MPI_UNDEFINED) g_failed = 1;
      char one = 0;
      expect(MPI_Recv(&one, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE, "MPI_Recv");
    }
    MPI_Type_free(&mib);
  } else if (!strcmp(m, "compute-overflow")) { /* rank 0 charges more than the virtual clock can hold */
    if (me == 0) xsim_compute(2e7);
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "bad_calls compute-overflow: FAILED: rank %d went on\n", me);
    return 1;
  } else if (!strcmp(m, "spin")) { /* 10 ms of host computation, then a barrier (for -xsim-cpu-scale) */
    struct timespec t0, t1; /* host time: the kernel's clock, past xsim's virtual clock_gettime */
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t0);
    do syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t1);
    while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 10000000L);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    fprintf(stderr, "bad_calls: unknown mode %s\n", m);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!g_return && me == 1 && strcmp(m, "big-extent") && strcmp(m, "big-message") && strcmp(m, "spin")) {
    fprintf(stderr, "bad_calls %s: FAILED: rank 1 went on after the bad call under MPI_ERRORS_ARE_FATAL\n", m);
    return 1;
  }
  MPI_Finalize();
done:
  return g_failed;
}
