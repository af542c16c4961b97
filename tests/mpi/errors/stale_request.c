/* stale_request.c - request handles used after their request was completed or freed (issue 24). Each handle
 * carries its request's generation, so a stale copy is refused with MPI_ERR_REQUEST even when a newer request
 * has taken the old one's place, for requests of every origin: point-to-point (MPI_Isend, MPI_Irecv), MPI_Request_free,
 * persistent (MPI_Send_init, MPI_Recv_init), nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce), RMA
 * (MPI_Rput, MPI_Rget) and MPI-IO (MPI_File_iwrite_at, MPI_File_iread_at). The newer request itself still
 * completes with its own data. Also: MPI_REQUEST_NULL in the completion calls, a stale handle inside
 * MPI_Waitall's array, and MPI_Request_c2f/MPI_Request_f2c (a round trip keeps the handle, and a stale
 * Fortran integer converts to a handle that is refused as well).
 *
 *   stale_request [return|fatal] [DIR]
 *   return (default): MPI_COMM_WORLD gets MPI_ERRORS_RETURN; every check is a line of rank-ordered output
 *       ("ok" or "FAILED"); any failed check makes the program exit 1.
 *   fatal: rank 1 waits on a stale handle under MPI_ERRORS_ARE_FATAL: the run must end naming the call.
 *   DIR: where the MPI-IO case puts its file (default "."); the file is deleted when it is closed.
 * No global or static variables (the ranks of a process would share them without privatization). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "rank_log.h"

typedef struct {
  Log lg;
  int me, np, failed;
} Ctx;

static void check(Ctx* c, int ok, const char* what) {
  say(&c->lg, "%s: %s\n", what, ok ? "ok" : "FAILED");
  if (!ok) {
    c->failed = 1;
    fprintf(stderr, "stale_request: FAILED: rank %d: %s\n", c->me, what);
  }
}

static int error_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* `rc` is MPI_ERR_REQUEST and the call left the stale handle `h` as it was. */
static void refused(Ctx* c, int rc, MPI_Request h, MPI_Request before, const char* what) {
  check(c, error_class(rc) == MPI_ERR_REQUEST && h == before, what);
}

/* Point-to-point: a completed MPI_Isend's copy, then a new MPI_Irecv (which reuses the freed slot). */
static void p2p(Ctx* c) {
  int out = 100 + c->me, in = -1, got = -1, flag = 7;
  MPI_Request r, stale, r2;
  MPI_Isend(&out, 1, MPI_INT, c->me, 1, MPI_COMM_WORLD, &r);
  stale = r;
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  check(c, r == MPI_REQUEST_NULL, "isend: MPI_Wait sets the handle to MPI_REQUEST_NULL");
  MPI_Recv(&got, 1, MPI_INT, c->me, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Irecv(&in, 1, MPI_INT, c->me, 2, MPI_COMM_WORLD, &r2);
  check(c, r2 != stale, "irecv after isend: a new handle, not the completed request's");
  MPI_Request h = stale;
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale, "isend: MPI_Wait on the stale copy: MPI_ERR_REQUEST");
  refused(c, MPI_Test(&h, &flag, MPI_STATUS_IGNORE), h, stale, "isend: MPI_Test on the stale copy: MPI_ERR_REQUEST");
  refused(c, MPI_Request_free(&h), h, stale, "isend: MPI_Request_free on the stale copy: MPI_ERR_REQUEST");
  refused(c, MPI_Cancel(&h), h, stale, "isend: MPI_Cancel on the stale copy: MPI_ERR_REQUEST");
  refused(c, MPI_Request_get_status(h, &flag, MPI_STATUS_IGNORE), h, stale,
          "isend: MPI_Request_get_status on the stale copy: MPI_ERR_REQUEST");
  /* a stale handle among valid ones: the whole call is refused before anything completes */
  MPI_Request arr[2] = {r2, stale};
  refused(c, MPI_Waitall(2, arr, MPI_STATUSES_IGNORE), arr[1], stale,
          "isend: MPI_Waitall with a stale copy in the array: MPI_ERR_REQUEST");
  check(c, arr[0] == r2, "MPI_Waitall refused: the valid handle is left alone");
  out = 200 + c->me;
  MPI_Send(&out, 1, MPI_INT, c->me, 2, MPI_COMM_WORLD);
  MPI_Status st;
  int rc = MPI_Wait(&r2, &st);
  check(c, rc == MPI_SUCCESS && in == 200 + c->me && st.MPI_SOURCE == c->me && st.MPI_TAG == 2,
        "irecv: the new request completes with its own message");
}

/* MPI_Request_free: on an active receive (completes unobserved later) and on a completed send. */
static void freed(Ctx* c) {
  int in = -1, out = 300 + c->me, v = -1;
  MPI_Request r, stale;
  MPI_Irecv(&in, 1, MPI_INT, c->me, 3, MPI_COMM_WORLD, &r);
  stale = r;
  MPI_Request_free(&r);
  check(c, r == MPI_REQUEST_NULL, "irecv: MPI_Request_free sets the handle to MPI_REQUEST_NULL");
  MPI_Request h = stale;
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale,
          "irecv freed while active: MPI_Wait on the copy: MPI_ERR_REQUEST");
  MPI_Send(&out, 1, MPI_INT, c->me, 3, MPI_COMM_WORLD); /* the freed receive takes it */
  MPI_Isend(&out, 1, MPI_INT, c->me, 4, MPI_COMM_WORLD, &r);
  stale = r;
  MPI_Request_free(&r); /* complete already (sends are eager): released now */
  MPI_Request r2;
  MPI_Irecv(&v, 1, MPI_INT, c->me, 4, MPI_COMM_WORLD, &r2);
  h = stale;
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale,
          "isend freed, its slot reused: MPI_Wait on the copy: MPI_ERR_REQUEST");
  check(c, MPI_Wait(&r2, MPI_STATUS_IGNORE) == MPI_SUCCESS && v == 300 + c->me,
        "irecv after a freed isend: completes with the freed send's message");
}

/* Persistent requests: a freed persistent request's copy cannot be started, waited on or freed. */
static void persistent(Ctx* c) {
  int out = 400 + c->me, in = -1;
  MPI_Request p, stale, q;
  MPI_Send_init(&out, 1, MPI_INT, c->me, 5, MPI_COMM_WORLD, &p);
  stale = p;
  MPI_Start(&p);
  MPI_Recv(&in, 1, MPI_INT, c->me, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&p, MPI_STATUS_IGNORE);
  check(c, p == stale && in == 400 + c->me, "send_init: inactive after MPI_Wait, the same handle");
  MPI_Request_free(&p);
  MPI_Recv_init(&in, 1, MPI_INT, c->me, 6, MPI_COMM_WORLD, &q);
  MPI_Request h = stale;
  refused(c, MPI_Start(&h), h, stale, "send_init freed: MPI_Start on the copy: MPI_ERR_REQUEST");
  refused(c, MPI_Startall(1, &h), h, stale, "send_init freed: MPI_Startall on the copy: MPI_ERR_REQUEST");
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale, "send_init freed: MPI_Wait on the copy: MPI_ERR_REQUEST");
  refused(c, MPI_Request_free(&h), h, stale, "send_init freed: MPI_Request_free on the copy: MPI_ERR_REQUEST");
  MPI_Start(&q);
  out = 450 + c->me;
  MPI_Send(&out, 1, MPI_INT, c->me, 6, MPI_COMM_WORLD);
  check(c, MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS && in == 450 + c->me,
        "recv_init: the new persistent request receives its own message");
  MPI_Request_free(&q);
}

/* Nonblocking collectives. */
static void nbc(Ctx* c) {
  MPI_Request r, stale, r2;
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  stale = r;
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  int one = c->me + 1, sum = 0;
  MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r2);
  MPI_Request h = stale;
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale, "ibarrier: MPI_Wait on the copy: MPI_ERR_REQUEST");
  int flag = 7;
  refused(c, MPI_Test(&h, &flag, MPI_STATUS_IGNORE), h, stale, "ibarrier: MPI_Test on the copy: MPI_ERR_REQUEST");
  check(c, MPI_Wait(&r2, MPI_STATUS_IGNORE) == MPI_SUCCESS && sum == c->np * (c->np + 1) / 2,
        "iallreduce: completes with its own sum");
}

/* RMA request-based operations, passive target. */
static void rma(Ctx* c) {
  int* mem = NULL;
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  mem[0] = mem[1] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  const int right = (c->me + 1) % c->np;
  MPI_Win_lock_all(0, win);
  int v = 500 + c->me, back = -1;
  MPI_Request r, stale, r2;
  MPI_Rput(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r);
  stale = r;
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Win_flush(right, win);
  MPI_Rget(&back, 1, MPI_INT, right, 0, 1, MPI_INT, win, &r2);
  MPI_Request h = stale;
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale, "rput: MPI_Wait on the copy: MPI_ERR_REQUEST");
  check(c, MPI_Wait(&r2, MPI_STATUS_IGNORE) == MPI_SUCCESS && back == 500 + c->me,
        "rget: completes with what the rput wrote");
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
}

/* MPI-IO nonblocking accesses. */
static void io(Ctx* c, const char* dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/stale_request_%d.dat", dir, c->np);
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh);
  check(c, rc == MPI_SUCCESS, "file: opened");
  if (rc != MPI_SUCCESS) return;
  int v = 600 + c->me, back = -1;
  MPI_Request r, stale, r2;
  MPI_File_iwrite_at(fh, (MPI_Offset)sizeof(int) * c->me, &v, 1, MPI_INT, &r);
  stale = r;
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_File_iread_at(fh, (MPI_Offset)sizeof(int) * c->me, &back, 1, MPI_INT, &r2);
  MPI_Request h = stale;
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale, "iwrite_at: MPI_Wait on the copy: MPI_ERR_REQUEST");
  check(c, MPI_Wait(&r2, MPI_STATUS_IGNORE) == MPI_SUCCESS && back == 600 + c->me,
        "iread_at: completes with what the iwrite_at wrote");
  MPI_File_close(&fh);
}

/* MPI_REQUEST_NULL: an empty status, flag true; arrays of null handles. */
static void null_requests(Ctx* c) {
  MPI_Request n = MPI_REQUEST_NULL, arr[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st;
  st.MPI_SOURCE = st.MPI_TAG = 77;
  int rc = MPI_Wait(&n, &st);
  check(c, rc == MPI_SUCCESS && n == MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
        "MPI_REQUEST_NULL: MPI_Wait returns an empty status");
  int flag = 0;
  rc = MPI_Test(&n, &flag, MPI_STATUS_IGNORE);
  check(c, rc == MPI_SUCCESS && flag == 1, "MPI_REQUEST_NULL: MPI_Test says complete");
  check(c, MPI_Waitall(2, arr, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_REQUEST_NULL: MPI_Waitall of nulls");
  int idx = 5;
  check(c, MPI_Waitany(2, arr, &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS && idx == MPI_UNDEFINED,
        "MPI_REQUEST_NULL: MPI_Waitany of nulls gives MPI_UNDEFINED");
  flag = 0;
  check(c, MPI_Request_get_status(n, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag == 1,
        "MPI_REQUEST_NULL: MPI_Request_get_status says complete");
  check(c, error_class(MPI_Request_free(&n)) == MPI_ERR_REQUEST, "MPI_REQUEST_NULL: MPI_Request_free refused");
  check(c, MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL,
        "MPI_REQUEST_NULL: c2f and f2c keep it");
}

/* Fortran integers: a round trip keeps a live handle; a stale integer stays stale. */
static void fortran_handles(Ctx* c) {
  int in = -1, out = 700 + c->me, v = -1;
  MPI_Request r;
  MPI_Irecv(&in, 1, MPI_INT, c->me, 7, MPI_COMM_WORLD, &r);
  MPI_Fint f = MPI_Request_c2f(r);
  MPI_Request back = MPI_Request_f2c(f);
  check(c, back == r, "c2f then f2c gives the same handle");
  MPI_Send(&out, 1, MPI_INT, c->me, 7, MPI_COMM_WORLD);
  check(c, MPI_Wait(&back, MPI_STATUS_IGNORE) == MPI_SUCCESS && in == 700 + c->me,
        "the converted handle completes the receive");
  MPI_Request r2;
  MPI_Irecv(&v, 1, MPI_INT, c->me, 8, MPI_COMM_WORLD, &r2);
  MPI_Request stale = MPI_Request_f2c(f);
  MPI_Request h = stale;
  refused(c, MPI_Wait(&h, MPI_STATUS_IGNORE), h, stale, "a stale Fortran integer converted back: MPI_ERR_REQUEST");
  check(c, MPI_Request_f2c(MPI_Request_c2f(r2)) == r2, "c2f then f2c of the newer request");
  out = 800 + c->me;
  MPI_Send(&out, 1, MPI_INT, c->me, 8, MPI_COMM_WORLD);
  check(c, MPI_Wait(&r2, MPI_STATUS_IGNORE) == MPI_SUCCESS && v == 800 + c->me, "the newer request completes");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Ctx* c = calloc(1, sizeof(Ctx));
  MPI_Comm_rank(MPI_COMM_WORLD, &c->me);
  MPI_Comm_size(MPI_COMM_WORLD, &c->np);
  const int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
  const char* dir = argc > 2 ? argv[2] : ".";
  if (fatal) {
    if (c->me == 1) {
      int out = 1, in = -1;
      MPI_Request r, stale, r2;
      MPI_Isend(&out, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
      stale = r;
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Recv(&in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Irecv(&in, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r2);
      MPI_Wait(&stale, MPI_STATUS_IGNORE);
      fprintf(stderr, "stale_request: FAILED: MPI_Wait on a stale handle returned under MPI_ERRORS_ARE_FATAL\n");
      return 1;
    }
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  p2p(c);
  freed(c);
  persistent(c);
  nbc(c);
  rma(c);
  io(c, dir);
  null_requests(c);
  fortran_handles(c);
  print_all(&c->lg, c->me, c->np);
  int any = 0;
  MPI_Allreduce(&c->failed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (c->me == 0) printf("stale_request: %s\n", any ? "FAILED" : "all checks ok");
  free(c);
  MPI_Finalize();
  return any;
}
