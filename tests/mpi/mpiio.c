/* MPI-IO under xsim: files really written and read by the virtual ranks. Explicit offsets, individual,
 * shared and ordered file pointers, nonblocking and split collective accesses, views with vector
 * filetypes (interleaved blocks), collective writes read back independently, set_size, preallocate, sync,
 * delete (and delete-on-close), the default MPI_ERRORS_RETURN handler of files. Every file's bytes are
 * checked with plain C reads. Every rank logs its results with its virtual time and rank 0 prints all logs
 * in rank order, so runs with 1 and 2 native processes must print the same lines (tests/mpi/run.sh same).
 * Usage: mpiio [all|timing] [DIR]   files go to a fresh directory under DIR (default $TMPDIR, else /tmp),
 *   removed at the end; "timing" prints the exact virtual times of the storage model (docs/mpi-io.md).
 * No global or static variables: the virtual ranks of a native process share them. */
#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rank_log.h"
#include "xsim.h"

#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

/* The whole file, read with plain C (rank 0 only). Returns its size in bytes; *data is malloc'ed. */
static long slurp(const char* path, char** data) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *data = malloc((size_t)n + 1);
  if (fread(*data, 1, (size_t)n, f) != (size_t)n) n = -2;
  fclose(f);
  return n;
}

static void path_of(char* out, const char* dir, const char* name) { snprintf(out, 512, "%s/%s", dir, name); }

static int error_class(int rc) {
  int c = -1;
  MPI_Error_class(rc, &c);
  return c;
}

/* ---- explicit offsets and individual file pointers, nonblocking accesses ---- */
static void pointers(Log* lg, const char* dir, int me, int np) {
  char path[512];
  path_of(path, dir, "pointers.dat");
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int amode;
  MPI_File_get_amode(fh, &amode);
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %d", amode);
  /* region 0: explicit offsets; region 1: the individual pointer; region 2: nonblocking explicit */
  const MPI_Offset region = 16 * (MPI_Offset)np;
  int v[4];
  for (int i = 0; i < 4; ++i) v[i] = me * 100 + i;
  MPI_Status st;
  OK(MPI_File_write_at(fh, 16 * (MPI_Offset)me, v, 4, MPI_INT, &st));
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 4, "write_at count %d", count);
  OK(MPI_File_seek(fh, region + 16 * me, MPI_SEEK_SET));
  for (int i = 0; i < 4; ++i) v[i] = me * 1000 + i;
  OK(MPI_File_write(fh, v, 2, MPI_INT, MPI_STATUS_IGNORE));
  OK(MPI_File_write(fh, v + 2, 2, MPI_INT, MPI_STATUS_IGNORE));
  MPI_Offset pos;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == region + 16 * me + 16, "position %lld", (long long)pos);
  double t0 = MPI_Wtime();
  MPI_Request req;
  for (int i = 0; i < 4; ++i) v[i] = -me - i;
  OK(MPI_File_iwrite_at(fh, 2 * region + 16 * me, v, 4, MPI_INT, &req));
  CHECK(MPI_Wtime() == t0, "a nonblocking write must return at once");
  OK(MPI_Wait(&req, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 4, "iwrite_at count %d", count);
  say(lg, "pointers: iwrite_at took %.9f\n", MPI_Wtime() - t0);
  /* read the right neighbour's data back, after sync-barrier-sync */
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  const int right = (me + 1) % np;
  int r[4];
  OK(MPI_File_read_at(fh, 16 * (MPI_Offset)right, r, 4, MPI_INT, &st));
  for (int i = 0; i < 4; ++i) CHECK(r[i] == right * 100 + i, "read_at [%d] = %d", i, r[i]);
  OK(MPI_File_seek(fh, region + 16 * right, MPI_SEEK_SET));
  OK(MPI_File_read(fh, r, 4, MPI_INT, &st));
  for (int i = 0; i < 4; ++i) CHECK(r[i] == right * 1000 + i, "read [%d] = %d", i, r[i]);
  OK(MPI_File_iread_at(fh, 2 * region + 16 * right, r, 4, MPI_INT, &req));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; ++i) CHECK(r[i] == -right - i, "iread_at [%d] = %d", i, r[i]);
  /* a read at the end of the file is short */
  MPI_Offset size;
  OK(MPI_File_get_size(fh, &size));
  CHECK(size == 3 * region, "size %lld", (long long)size);
  OK(MPI_File_seek(fh, -8, MPI_SEEK_END));
  OK(MPI_File_read(fh, r, 4, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 2, "short read count %d", count);
  MPI_File_get_position(fh, &pos);
  CHECK(pos == size, "position after the short read %lld", (long long)pos);
  OK(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "MPI_File_close must reset the handle");
  if (me == 0) {
    char* d;
    long n = slurp(path, &d);
    CHECK(n == 3 * region, "file size %ld", n);
    const int* x = (const int*)d;
    for (int q = 0; q < np; ++q)
      for (int i = 0; i < 4; ++i) {
        CHECK(x[4 * q + i] == q * 100 + i, "byte check region 0");
        CHECK(x[4 * np + 4 * q + i] == q * 1000 + i, "byte check region 1");
        CHECK(x[8 * np + 4 * q + i] == -q - i, "byte check region 2");
      }
    free(d);
  }
  say(lg, "pointers: ok, time %.9f\n", MPI_Wtime());
}

/* ---- views: interleaved blocks with vector filetypes, collective write, independent read-back ---- */
static void views(Log* lg, const char* dir, int me, int np) {
  char path[512];
  path_of(path, dir, "views.dat");
  enum { K = 3, B = 2 };
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  /* one filetype of K blocks of B ints, stride np*B: rank r's blocks are the r-th of every np */
  MPI_Datatype blocks;
  MPI_Type_vector(K, B, np * B, MPI_INT, &blocks);
  MPI_Type_commit(&blocks);
  const MPI_Offset disp = (MPI_Offset)sizeof(int) * B * me;
  OK(MPI_File_set_view(fh, disp, MPI_INT, blocks, "native", MPI_INFO_NULL));
  MPI_Type_free(&blocks);  /* the view keeps what it needs */
  int w[K * B];
  for (int j = 0; j < K; ++j)
    for (int i = 0; i < B; ++i) w[j * B + i] = (j * np + me) * B + i;
  OK(MPI_File_write_all(fh, w, K * B, MPI_INT, MPI_STATUS_IGNORE));
  MPI_Offset pos, off;
  MPI_File_get_position(fh, &pos);
  CHECK(pos == K * B, "position %lld", (long long)pos);
  MPI_File_get_byte_offset(fh, 1, &off);
  CHECK(off == disp + 4, "byte offset of etype 1: %lld", (long long)off);
  MPI_File_get_byte_offset(fh, B, &off);
  CHECK(off == disp + 4 * (MPI_Offset)np * B, "byte offset of etype B: %lld", (long long)off);
  MPI_Offset vd;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING];
  OK(MPI_File_get_view(fh, &vd, &et, &ft, rep));
  int ftsize;
  MPI_Type_size(ft, &ftsize);
  CHECK(vd == disp && et == MPI_INT && ftsize == K * B * 4 && !strcmp(rep, "native"), "get_view");
  MPI_Type_free(&ft);
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  /* independent read-back of the right neighbour's blocks through a tiled view: one block of B ints
   * resized to np*B ints, so consecutive tiles are consecutive blocks of that rank */
  const int right = (me + 1) % np;
  MPI_Datatype one, tile;
  MPI_Type_contiguous(B, MPI_INT, &one);
  MPI_Type_create_resized(one, 0, (MPI_Aint)sizeof(int) * B * np, &tile);
  MPI_Type_commit(&tile);
  OK(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * B * right, MPI_INT, tile, "native", MPI_INFO_NULL));
  int r[K * B];
  OK(MPI_File_read_at(fh, 0, r, K * B, MPI_INT, MPI_STATUS_IGNORE));
  for (int j = 0; j < K; ++j)
    for (int i = 0; i < B; ++i) CHECK(r[j * B + i] == (j * np + right) * B + i, "read-back [%d][%d]", j, i);
  /* a strided memory type over the same view: every other int of a buffer */
  MPI_Datatype strided;
  MPI_Type_vector(K * B, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int s2[2 * K * B];
  for (int i = 0; i < 2 * K * B; ++i) s2[i] = -1;
  OK(MPI_File_read_at(fh, 0, s2, 1, strided, MPI_STATUS_IGNORE));
  for (int i = 0; i < K * B; ++i) CHECK(s2[2 * i] == r[i] && s2[2 * i + 1] == -1, "strided memory [%d]", i);
  MPI_Type_free(&strided);
  MPI_Type_free(&one);
  MPI_Type_free(&tile);
  /* the whole file as bytes again, collectively */
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  const int n = K * B * np;
  int* all = malloc(sizeof(int) * (size_t)n);
  OK(MPI_File_read_at_all(fh, 0, all, n, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i) CHECK(all[i] == i, "whole file [%d] = %d", i, all[i]);
  free(all);
  /* set_size, preallocate */
  OK(MPI_File_set_size(fh, (MPI_Offset)sizeof(int) * n / 2));
  MPI_Offset size;
  OK(MPI_File_get_size(fh, &size));
  CHECK(size == (MPI_Offset)sizeof(int) * n / 2, "after set_size %lld", (long long)size);
  OK(MPI_File_preallocate(fh, (MPI_Offset)sizeof(int) * n));
  OK(MPI_File_get_size(fh, &size));
  CHECK(size == (MPI_Offset)sizeof(int) * n, "after preallocate %lld", (long long)size);
  OK(MPI_File_close(&fh));
  if (me == 0) {
    char* d;
    long len = slurp(path, &d);
    CHECK(len == (long)sizeof(int) * n, "file size %ld", len);
    const int* x = (const int*)d;
    for (int i = 0; i < n; ++i) CHECK(x[i] == (i < n / 2 ? i : 0), "byte check [%d] = %d", i, x[i]);
    free(d);
  }
  say(lg, "views: ok, time %.9f\n", MPI_Wtime());
}

/* ---- the shared file pointer and the ordered calls ---- */
static void shared(Log* lg, const char* dir, int me, int np) {
  char path[512];
  path_of(path, dir, "shared.dat");
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  /* ordered: rank r writes r+1 copies of r, in rank order */
  int v[64];
  for (int i = 0; i <= me; ++i) v[i] = me;
  OK(MPI_File_write_ordered(fh, v, me + 1, MPI_INT, MPI_STATUS_IGNORE));
  const MPI_Offset ordered = (MPI_Offset)np * (np + 1) / 2;
  MPI_Offset pos;
  OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos >= ordered, "shared position after write_ordered %lld", (long long)pos);  /* others may have gone on */
  /* shared: every rank appends the pair (r, r), in the order its request reaches the pointer */
  int pair[2] = {me, me};
  OK(MPI_File_write_shared(fh, pair, 2, MPI_INT, MPI_STATUS_IGNORE));
  MPI_Request req;
  int tail = 1000 + me;
  OK(MPI_File_iwrite_shared(fh, &tail, 1, MPI_INT, &req));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == ordered + 3 * (MPI_Offset)np, "shared position %lld", (long long)pos);
  /* read everything back: ordered by split collective, then the pairs with read_shared */
  OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  int r[64];
  OK(MPI_File_read_ordered_begin(fh, r, me + 1, MPI_INT));
  MPI_Status st;
  OK(MPI_File_read_ordered_end(fh, r, &st));
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == me + 1, "read_ordered count %d", count);
  for (int i = 0; i <= me; ++i) CHECK(r[i] == me, "read_ordered [%d] = %d", i, r[i]);
  /* each rank reads the next two ints from the shared pointer: together they read the first 2 np */
  int got[2] = {-1, -1};
  OK(MPI_File_read_shared(fh, got, 2, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < 2; ++i)
    CHECK((got[i] >= 0 && got[i] < np) || (got[i] >= 1000 && got[i] < 1000 + np), "read_shared %d", got[i]);
  OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos >= ordered + 2 * me, "shared position after read_shared %lld", (long long)pos);
  OK(MPI_File_close(&fh));
  if (me == 0) {
    char* d;
    long len = slurp(path, &d);
    CHECK(len == (long)sizeof(int) * (ordered + 3 * np), "file size %ld", len);
    const int* x = (const int*)d;
    int k = 0;
    for (int q = 0; q < np; ++q)
      for (int i = 0; i <= q; ++i) CHECK(x[k++] == q, "ordered part [%d]", k - 1);
    char order[512] = "";
    int seen_pair = 0, seen_tail = 0, at = 0;
    for (int i = (int)ordered; i < (int)ordered + 3 * np;) {
      if (x[i] >= 1000) {
        seen_tail += 1 << (x[i] - 1000);
        at += snprintf(order + at, sizeof order - (size_t)at, " t%d", x[i] - 1000);
        ++i;
      } else {
        CHECK(x[i] == x[i + 1], "pair split at %d", i);
        seen_pair += 1 << x[i];
        at += snprintf(order + at, sizeof order - (size_t)at, " p%d", x[i]);
        i += 2;
      }
    }
    CHECK(seen_pair == (1 << np) - 1 && seen_tail == (1 << np) - 1, "every rank's pair and tail once");
    say(lg, "shared: order of arrival:%s\n", order);
    free(d);
  }
  say(lg, "shared: ok, time %.9f\n", MPI_Wtime());
}

/* ---- errors, delete, delete-on-close, exclusive create, atomicity, queries ---- */
static void misc(Log* lg, const char* dir, int me, int np) {
  char path[512], gone[512];
  path_of(path, dir, "pointers.dat");
  path_of(gone, dir, "never-created.dat");
  MPI_File fh;
  /* files return errors by default */
  int rc = MPI_File_open(MPI_COMM_WORLD, gone, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(error_class(rc) == MPI_ERR_NO_SUCH_FILE && fh == MPI_FILE_NULL, "open of a missing file: class %d",
        error_class(rc));
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  CHECK(error_class(rc) == MPI_ERR_FILE_EXISTS, "exclusive create of an existing file: class %d", error_class(rc));
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  CHECK(error_class(rc) == MPI_ERR_AMODE, "read-only create: class %d", error_class(rc));
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  int x = 0;
  rc = MPI_File_write_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(error_class(rc) == MPI_ERR_READ_ONLY, "write to a read-only file: class %d", error_class(rc));
  MPI_Errhandler eh;
  MPI_File_get_errhandler(fh, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "a file's default handler");
  int flag = -1;
  OK(MPI_File_set_atomicity(fh, 1));
  MPI_File_get_atomicity(fh, &flag);
  CHECK(flag == 1, "atomicity");
  MPI_Group g;
  OK(MPI_File_get_group(fh, &g));
  int gs, cmp;
  MPI_Group_size(g, &gs);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_compare(g, world, &cmp);
  CHECK(gs == np && cmp == MPI_IDENT, "group");
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Aint ext;
  MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext);
  CHECK(ext == sizeof(double), "type extent");
  MPI_Info info;
  OK(MPI_File_get_info(fh, &info));
  MPI_Info_free(&info);
  OK(MPI_File_close(&fh));
  /* delete, then it is gone */
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) OK(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  rc = MPI_File_delete(path, MPI_INFO_NULL);
  CHECK(error_class(rc) == MPI_ERR_NO_SUCH_FILE, "second delete: class %d", error_class(rc));
  /* delete on close */
  char tmp[512];
  path_of(tmp, dir, "scratch.dat");
  OK(MPI_File_open(MPI_COMM_WORLD, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                   &fh));
  OK(MPI_File_write_at_all(fh, (MPI_Offset)sizeof(int) * me, &me, 1, MPI_INT, MPI_STATUS_IGNORE));
  OK(MPI_File_close(&fh));
  if (me == 0) CHECK(access(tmp, F_OK) != 0 && errno == ENOENT, "delete on close");
  /* a fatal handler on MPI_FILE_NULL applies to opens */
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
  MPI_File_get_errhandler(MPI_FILE_NULL, &eh);
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_FILE_NULL's handler");
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  say(lg, "misc: ok, time %.9f\n", MPI_Wtime());
}

/* Brings every rank's clock to the same virtual time (collectives leave ranks at different times when
 * they entered at different times), so that a collective's cost can be read off exactly. */
static void align(void) {
  double t = MPI_Wtime(), tmax = 0;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  xsim_compute(tmax + 0.001 - MPI_Wtime());
}

/* ---- exact times of the storage model (docs/mpi-io.md) ---- */
static void timing(const char* dir, int me, int np) {
  char path[512];
  path_of(path, dir, "timing.dat");
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                   &fh));
  char* buf = calloc(4096, 1);
  double t[3] = {0, 0, 0};
  align();
  double t0 = MPI_Wtime();
  if (me == 0) {
    OK(MPI_File_write_at(fh, 0, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE));
    t[0] = MPI_Wtime() - t0;
  }
  align();
  t0 = MPI_Wtime();
  OK(MPI_File_write_at_all(fh, 4096 * (MPI_Offset)me, buf, 4096, MPI_BYTE, MPI_STATUS_IGNORE));
  t[1] = MPI_Wtime() - t0;
  align();
  t0 = MPI_Wtime();
  if (me == 1 % np) {
    OK(MPI_File_write_shared(fh, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    t[2] = MPI_Wtime() - t0;
  }
  double m[3];
  MPI_Reduce(t, m, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0)
    printf("mpiio timing: write_at 4096 bytes %.9f write_at_all 4096 bytes %.9f write_shared 8 bytes %.9f\n", m[0],
           m[1], m[2]);
  free(buf);
  OK(MPI_File_close(&fh));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "all";
  const char* base = argc > 2 ? argv[2] : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char dir[400] = "";
  if (me == 0) {
    snprintf(dir, sizeof dir, "%s/xsim_mpiio_XXXXXX", base);
    CHECK(mkdtemp(dir) != NULL, "cannot create a directory under %s", base);
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!strcmp(mode, "timing")) {
    timing(dir, me, np);
  } else {
    Log* lg = calloc(1, sizeof(Log));
    pointers(lg, dir, me, np);
    views(lg, dir, me, np);
    shared(lg, dir, me, np);
    misc(lg, dir, me, np);
    say(lg, "done at %.9f\n", MPI_Wtime());
    print_all(lg, me, np);
    free(lg);
    if (me == 0) {
      char p[512];
      path_of(p, dir, "views.dat");
      unlink(p);
      path_of(p, dir, "shared.dat");
      unlink(p);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) rmdir(dir);
  MPI_Finalize();
  return 0;
}
