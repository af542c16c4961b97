/* Communicator extras under xsim: MPI_Comm_split_type (shared memory = a simulated node), 
 * MPI_Comm_create_group, attribute caching (copy/delete callbacks counted, predefined attributes, MPI-1
 * forms), user error handlers (called with the right communicator and code), error strings, names (each
 * rank's own), info hints, MPI_Comm_idup (no deadlock when ranks reach it at different times),
 * MPI_Alltoallw / MPI_Ialltoallw, and the environment queries. Every rank checks its own results and
 * prints them with its virtual time, so runs with 1 and 2 native processes can be compared.
 * Run with a multi-core node network, e.g. -xsim-np 13 -xsim-mn star/star:4 (4 ranks per node).
 * No global or static variables: the virtual ranks of a native process share them.
 * Argument "badtype": calls MPI_Comm_split_type with an unknown type (must fail). */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each rank's output lines, printed by rank 0 in rank order at the end. */
#define RANK_LOG_BYTES 2048
#include "rank_log.h"

#include "check.h"

typedef struct {
  int copies, deletes;
} AttrCount;

typedef struct {
  int calls, last_code;
  MPI_Comm last_comm;
} ErrCount;

static int count_copy(MPI_Comm old, int kv, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)kv;
  ((AttrCount*)extra)->copies++;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int kv, void* value, void* extra) {
  (void)comm;
  (void)kv;
  (void)value;
  ((AttrCount*)extra)->deletes++;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm old, int kv, void* extra, void* in, void* out, int* flag) {
  (void)old;
  (void)kv;
  (void)extra;
  (void)in;
  (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

/* The handler finds its counter through an attribute whose keyval is written in the communicator's name. */
static void count_errors(MPI_Comm* comm, int* code, ...) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0, kv = 0, flag = 0;
  ErrCount* c = NULL;
  MPI_Comm_get_name(*comm, name, &len);
  if (sscanf(name, "errcount %d", &kv) != 1) {
    fprintf(stderr, "FAILED: error handler called on a communicator named '%s'\n", name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm_get_attr(*comm, kv, &c, &flag);
  if (!flag) {
    fprintf(stderr, "FAILED: error handler: no counter attribute\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  c->calls++;
  c->last_code = *code;
  c->last_comm = *comm;
}

static void sum_op(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)t;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

int main(int argc, char** argv) {
  int me, np;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  Log lg = {{0}, 0};

  if (argc > 1 && strcmp(argv[1], "badtype") == 0) {
    MPI_Comm c;
    MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c);
    printf("r%02d: unknown split type accepted\n", me);
    MPI_Finalize();
    return 0;
  }

  /* ---- split_type: MPI_COMM_TYPE_SHARED groups the ranks of one simulated node (4 cores a node) ---- */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, np - me, MPI_INFO_NULL, &node);
  int ns, nr;
  MPI_Comm_size(node, &ns);
  MPI_Comm_rank(node, &nr);
  int first = me / 4 * 4, expect_ns = np - first < 4 ? np - first : 4;
  CHECK(ns == expect_ns, "node size %d, expected %d", ns, expect_ns);
  CHECK(nr == first + ns - 1 - me, "node rank %d (key reverses the order)", nr);
  /* every member of the node communicator has the same processor name */
  char pname[MPI_MAX_PROCESSOR_NAME], pall[4][MPI_MAX_PROCESSOR_NAME];
  int plen;
  memset(pname, 0, sizeof pname);
  MPI_Get_processor_name(pname, &plen);
  MPI_Allgather(pname, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, pall, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, node);
  for (int i = 0; i < ns; ++i) CHECK(strcmp(pall[i], pname) == 0, "node member on %s, I am on %s", pall[i], pname);
  say(&lg, "shared node size %d rank %d on %s\n", ns, nr, pname);

  MPI_Comm undef;
  MPI_Comm_split_type(MPI_COMM_WORLD, me % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &undef);
  CHECK((me % 2 == 1) == (undef == MPI_COMM_NULL), "MPI_UNDEFINED split type");
  if (undef != MPI_COMM_NULL) MPI_Comm_free(&undef);

#ifdef MPI_COMM_TYPE_HW_GUIDED /* MPI-4 split types: MPICH 4 has them, Open MPI 4 (MPI 3.1) does not */
  MPI_Info hw;
  MPI_Info_create(&hw);
  MPI_Info_set(hw, "mpi_hw_resource_type", "mpi_shared_memory");
  MPI_Comm guided;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, hw, &guided);
  int gs = -1, cmp;
  MPI_Comm_size(guided, &gs);
  MPI_Comm_compare(guided, node, &cmp);
  CHECK(gs == ns && cmp == (ns > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "HW_GUIDED mpi_shared_memory: size %d, compare %d", gs, cmp);
  MPI_Comm_free(&guided);
  MPI_Info_set(hw, "mpi_hw_resource_type", "no_such_resource");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, me, hw, &guided);
  CHECK(guided == MPI_COMM_NULL, "HW_GUIDED with an unknown resource type gave a communicator");
  MPI_Info_free(&hw);

  /* unguided: the world splits into nodes; a node into single cores; a one-rank node cannot split */
  MPI_Comm ung, ung2;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, me, MPI_INFO_NULL, &ung);
  MPI_Comm_compare(ung, node, &cmp);
  CHECK(cmp == (ns > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "HW_UNGUIDED on the world: compare with the node %d", cmp);
  MPI_Comm_split_type(ung, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &ung2);
  if (ns == 1) {
    CHECK(ung2 == MPI_COMM_NULL, "HW_UNGUIDED on a one-rank node gave a communicator");
  } else {
    int s2;
    MPI_Comm_size(ung2, &s2);
    CHECK(s2 == 1, "HW_UNGUIDED inside a node: size %d, expected one core", s2);
    MPI_Comm_free(&ung2);
  }
  MPI_Comm_free(&ung);
#endif
  say(&lg, "split_type ok, time %.9f\n", MPI_Wtime());

  /* ---- Comm_create_group: only members call; the others go on with a dup of the world ---- */
  MPI_Group wg, trio;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int tri[3] = {2, 0, 1};
  MPI_Group_incl(wg, 3, tri, &trio);
  if (me < 3) {
    MPI_Comm tc;
    MPI_Comm_create_group(MPI_COMM_WORLD, trio, 7, &tc);
    int tr, sum = 0;
    MPI_Comm_rank(tc, &tr);
    CHECK(tr == (me + 1) % 3, "create_group rank %d", tr);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, tc);
    CHECK(sum == 3, "create_group allreduce %d", sum);
    MPI_Comm_free(&tc);
  }
  MPI_Group_free(&trio);
  MPI_Group_free(&wg);
  MPI_Comm wd;
  MPI_Comm_dup(MPI_COMM_WORLD, &wd); /* same context on every rank, members of the group or not */
  int total = 0;
  MPI_Allreduce(&me, &total, 1, MPI_INT, MPI_SUM, wd);
  CHECK(total == np * (np - 1) / 2, "allreduce on a dup after create_group: %d", total);
  say(&lg, "create_group ok, time %.9f\n", MPI_Wtime());

  /* ---- attributes ---- */
  AttrCount ac = {0, 0}, nc = {0, 0}, sc = {0, 0};
  int kv, kv_nocopy, kv_dupfn, kv_old, flag;
  int value = 100 + me, other = 200 + me, *got;
  MPI_Comm_create_keyval(count_copy, count_delete, &kv, &ac);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kv_nocopy, &nc);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv_dupfn, NULL);
  MPI_Comm_set_attr(wd, kv, &value);
  MPI_Comm_set_attr(wd, kv_nocopy, &value);
  MPI_Comm_set_attr(wd, kv_dupfn, &other);
  MPI_Comm_get_attr(wd, kv, &got, &flag);
  CHECK(flag && got == &value, "get_attr after set");
  MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &got, &flag);
  CHECK(!flag, "an attribute of the dup is visible on the world");
  MPI_Comm d2;
  MPI_Comm_dup(wd, &d2);
  CHECK(ac.copies == 1 && nc.copies == 0, "copy callbacks: %d %d", ac.copies, nc.copies);
  MPI_Comm_get_attr(d2, kv, &got, &flag);
  CHECK(flag && got == &value, "copied attribute");
  MPI_Comm_get_attr(d2, kv_nocopy, &got, &flag);
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
  MPI_Comm_get_attr(d2, kv_dupfn, &got, &flag);
  CHECK(flag && got == &other, "MPI_COMM_DUP_FN attribute not copied");
  MPI_Comm_set_attr(d2, kv, &other); /* overwrite: the old value is deleted first */
  CHECK(ac.deletes == 1, "delete on overwrite: %d", ac.deletes);
  MPI_Comm_delete_attr(d2, kv);
  CHECK(ac.deletes == 2, "delete_attr: %d", ac.deletes);
  MPI_Comm_get_attr(d2, kv, &got, &flag);
  CHECK(!flag, "attribute still there after delete_attr");
  MPI_Comm_free_keyval(&kv_nocopy); /* the attribute on wd keeps the keyval alive */
  CHECK(kv_nocopy == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
  MPI_Comm_free(&d2);
  MPI_Comm_free(&wd); /* deletes kv's and kv_nocopy's attributes */
  CHECK(ac.deletes == 3 && nc.deletes == 1, "delete callbacks at free: %d %d", ac.deletes, nc.deletes);
  /* MPI-1 forms */
  MPI_Keyval_create(count_copy, count_delete, &kv_old, &ac);
  MPI_Attr_put(MPI_COMM_SELF, kv_old, &value);
  MPI_Attr_get(MPI_COMM_SELF, kv_old, &got, &flag);
  CHECK(flag && got == &value, "MPI_Attr_get");
  MPI_Attr_delete(MPI_COMM_SELF, kv_old);
  CHECK(ac.deletes == 4, "MPI_Attr_delete: %d", ac.deletes);
  MPI_Keyval_free(&kv_old);
  MPI_Comm_free_keyval(&kv);
  MPI_Comm_free_keyval(&kv_dupfn);
  /* MPI_COMM_SELF's attributes are deleted at MPI_Finalize */
  int kv_self;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kv_self, &sc);
  MPI_Comm_set_attr(MPI_COMM_SELF, kv_self, &value);
  /* predefined attributes */
  int *tag_ub, *wtg, *usize, *appnum, *host, *io;
  int f1, f2, f3, f4, f5, f6;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &f1);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtg, &f2);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &f3);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &f4);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &host, &f5);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &io, &f6);
  CHECK(f1 && f2 && f3 && f4 && f5 && f6, "a predefined attribute is missing");
  CHECK(*tag_ub >= 32767 && *wtg == 1 && *usize == np, "tag_ub %d wtime_is_global %d universe %d", *tag_ub, *wtg,
        *usize);
  say(&lg, "attributes ok: tag_ub %d wtime_is_global %d universe_size %d appnum %d host %d io %d\n",
           *tag_ub, *wtg, *usize, *appnum, *host, *io);

  /* ---- error handlers ---- */
  MPI_Comm ec;
  MPI_Comm_dup(MPI_COMM_WORLD, &ec);
  ErrCount cnt = {0, 0, MPI_COMM_NULL};
  int kv_err;
  char ename[MPI_MAX_OBJECT_NAME];
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv_err, NULL);
  MPI_Comm_set_attr(ec, kv_err, &cnt);
  snprintf(ename, sizeof ename, "errcount %d", kv_err);
  MPI_Comm_set_name(ec, ename);
  MPI_Errhandler eh, eh2;
  MPI_Comm_create_errhandler(count_errors, &eh);
  MPI_Comm_set_errhandler(ec, eh);
  MPI_Comm_get_errhandler(ec, &eh2);
  CHECK(eh2 == eh, "get_errhandler returned another handler");
  MPI_Errhandler_free(&eh2);
  MPI_Errhandler_free(&eh); /* still attached to ec: stays alive */
  int x = 1, rc, cls;
  rc = MPI_Send(&x, 1, MPI_INT, np + 5, 0, ec);
  MPI_Error_class(rc, &cls);
  CHECK(cnt.calls == 1 && cls == MPI_ERR_RANK && cnt.last_code == rc && cnt.last_comm == ec,
        "user handler after a bad send: calls %d class %d code %d/%d", cnt.calls, cls, cnt.last_code, rc);
  rc = MPI_Comm_call_errhandler(ec, MPI_ERR_OTHER);
  CHECK(rc == MPI_SUCCESS && cnt.calls == 2 && cnt.last_code == MPI_ERR_OTHER, "call_errhandler: rc %d calls %d", rc,
        cnt.calls);
  /* an application-defined error class reaches the handler, and has its string */
  int myclass, mycode, slen;
  char text[MPI_MAX_ERROR_STRING];
  MPI_Add_error_class(&myclass);
  MPI_Add_error_code(myclass, &mycode);
  MPI_Add_error_string(mycode, "xsim test error");
  MPI_Comm_call_errhandler(ec, mycode);
  MPI_Error_class(mycode, &cls);
  MPI_Error_string(mycode, text, &slen);
  CHECK(cnt.calls == 3 && cnt.last_code == mycode && cls == myclass && strcmp(text, "xsim test error") == 0,
        "user error code: calls %d, class %d/%d, '%s'", cnt.calls, cls, myclass, text);
  /* a dup inherits the handler (and, through MPI_COMM_DUP_FN, the counter) */
  MPI_Comm ec2;
  MPI_Comm_dup(ec, &ec2);
  MPI_Comm_set_name(ec2, ename);
  rc = MPI_Recv(&x, 1, MPI_INT, 0, -7, ec2, MPI_STATUS_IGNORE);
  MPI_Error_class(rc, &cls);
  CHECK(cnt.calls == 4 && cls == MPI_ERR_TAG && cnt.last_comm == ec2, "inherited handler: calls %d class %d",
        cnt.calls, cls);
  /* so does a communicator split from it (attributes are not copied by a split: set the counter again) */
  MPI_Comm ec3;
  MPI_Comm_split(ec, me % 2, me, &ec3);
  MPI_Comm_set_attr(ec3, kv_err, &cnt);
  MPI_Comm_set_name(ec3, ename);
  rc = MPI_Send(&x, 1, MPI_INT, -5, 0, ec3);
  CHECK(cnt.calls == 5 && cnt.last_comm == ec3 && cnt.last_code == rc, "handler inherited by a split: calls %d",
        cnt.calls);
  MPI_Comm_free(&ec3);
  /* a failing copy callback fails the dup, and ERRORS_RETURN returns its code */
  int kv_fail;
  MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kv_fail, NULL);
  MPI_Comm_set_errhandler(ec2, MPI_ERRORS_RETURN);
  MPI_Comm_set_attr(ec2, kv_fail, &value);
  MPI_Comm bad = MPI_COMM_NULL;
  rc = MPI_Comm_dup(ec2, &bad);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER && bad == MPI_COMM_NULL && cnt.calls == 5, "failing copy callback: class %d", cls);
  /* predefined attributes cannot be set; with MPI_ERRORS_RETURN the code comes back */
  rc = MPI_Comm_set_attr(ec2, MPI_TAG_UB, &value);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "setting MPI_TAG_UB: class %d", cls);
  MPI_Comm_free(&ec2);
  MPI_Comm_free(&ec);
  MPI_Comm_free_keyval(&kv_err);
  MPI_Comm_free_keyval(&kv_fail);
  const int classes[4] = {MPI_ERR_RANK, MPI_ERR_TAG, MPI_ERR_COMM, MPI_ERR_KEYVAL};
  for (int i = 0; i < 4; ++i) {
    MPI_Error_string(classes[i], text, &slen);
    if (me == 0) say(&lg, "error string %d: %s\n", classes[i], text);
  }
  say(&lg, "error handlers ok, %d calls, time %.9f\n", cnt.calls, MPI_Wtime());

  /* ---- names are each rank's own ---- */
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Comm nm;
  MPI_Comm_dup(MPI_COMM_WORLD, &nm);
  if (me == 0) MPI_Comm_set_name(nm, "named by rank 0");
  MPI_Barrier(nm);
  MPI_Comm_get_name(nm, name, &len);
  CHECK(strcmp(name, me == 0 ? "named by rank 0" : "") == 0, "dup name '%s'", name);
  MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self name '%s'", name);
  MPI_Comm_free(&nm);

  /* ---- info hints: round trip, dup copies them, dup_with_info replaces them ---- */
  MPI_Info in, out;
  MPI_Info_create(&in);
  MPI_Info_set(in, "xsim_test_hint", "yes");
  MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
  MPI_Comm ic, ic2, ic3;
  MPI_Comm_dup(MPI_COMM_WORLD, &ic);
  MPI_Comm_set_info(ic, in);
  MPI_Comm_dup(ic, &ic2);
  MPI_Comm_get_info(ic2, &out);
  int nkeys, vlen, vflag;
  char val[64];
  MPI_Info_get_nkeys(out, &nkeys);
  vlen = sizeof val - 1; /* MPI_Info_get: in MPI 3.1 (Open MPI 4) and 4.0 (MPICH 4) alike */
  MPI_Info_get(out, "xsim_test_hint", vlen, val, &vflag);
  CHECK(nkeys == 2 && vflag && strcmp(val, "yes") == 0, "info round trip: %d keys, '%s'", nkeys, val);
  MPI_Info_free(&out);
  MPI_Info_free(&in);
  MPI_Info_create(&in);
  MPI_Info_set(in, "other", "1");
  MPI_Comm_dup_with_info(ic, in, &ic3);
  MPI_Comm_get_info(ic3, &out);
  MPI_Info_get_nkeys(out, &nkeys);
  MPI_Info_get(out, "other", vlen, val, &vflag);
  CHECK(nkeys == 1 && vflag && strcmp(val, "1") == 0, "dup_with_info: %d keys", nkeys);
  MPI_Info_free(&out);
  MPI_Info_free(&in);
  MPI_Comm_get_info(MPI_COMM_WORLD, &out);
  MPI_Info_get_nkeys(out, &nkeys);
  CHECK(nkeys == 0, "world has %d hints", nkeys);
  MPI_Info_free(&out);
  MPI_Comm_free(&ic3);
  MPI_Comm_free(&ic2);
  MPI_Comm_free(&ic);
  say(&lg, "names and info ok, time %.9f\n", MPI_Wtime());

  /* ---- idup: rank 1 reaches it only after a message rank 0 sends after its own idup ---- */
  MPI_Comm idc;
  MPI_Request req;
  int token = 0;
  if (me == 1) MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Comm_idup(MPI_COMM_WORLD, &idc, &req);
  if (me == 0) {
    token = 42;
    MPI_Send(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  total = 0;
  MPI_Allreduce(&me, &total, 1, MPI_INT, MPI_SUM, idc);
  CHECK(total == np * (np - 1) / 2 && (me != 1 || token == 42), "idup: allreduce %d", total);
  MPI_Comm_free(&idc);
  say(&lg, "idup ok, time %.9f\n", MPI_Wtime());

  /* ---- alltoallw: to peer j, (me + j) % 3 + 1 elements, ints when me + j is even, doubles otherwise ---- */
  int* scounts = malloc(sizeof(int) * np * 4);
  int *sdispls = scounts + np, *rcounts = scounts + 2 * np, *rdispls = scounts + 3 * np;
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * np);
  char* sbuf = malloc((size_t)np * 3 * sizeof(double));
  char* rbuf = malloc((size_t)np * 3 * sizeof(double));
  int soff = 0;
  for (int j = 0; j < np; ++j) {
    scounts[j] = rcounts[j] = (me + j) % 3 + 1;
    types[j] = (me + j) % 2 ? MPI_DOUBLE : MPI_INT;
    sdispls[j] = rdispls[j] = soff;
    for (int k = 0; k < scounts[j]; ++k) {
      if (types[j] == MPI_INT) ((int*)(sbuf + soff))[k] = me * 1000 + j * 10 + k;
      else ((double*)(sbuf + soff))[k] = me * 1000 + j * 10 + k + 0.5;
    }
    soff += scounts[j] * (types[j] == MPI_INT ? (int)sizeof(int) : (int)sizeof(double));
    soff = (soff + (int)sizeof(double) - 1) / (int)sizeof(double) * (int)sizeof(double);  /* doubles aligned */
  }
  for (int round = 0; round < 2; ++round) {
    memset(rbuf, 0, (size_t)np * 3 * sizeof(double));
    if (round == 0) {
      MPI_Alltoallw(sbuf, scounts, sdispls, types, rbuf, rcounts, rdispls, types, MPI_COMM_WORLD);
    } else {
      MPI_Ialltoallw(sbuf, scounts, sdispls, types, rbuf, rcounts, rdispls, types, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < np; ++i)
      for (int k = 0; k < rcounts[i]; ++k) {
        double want = i * 1000 + me * 10 + k + (types[i] == MPI_INT ? 0 : 0.5);
        double have = types[i] == MPI_INT ? ((int*)(rbuf + rdispls[i]))[k] : ((double*)(rbuf + rdispls[i]))[k];
        CHECK(have == want, "alltoallw round %d from %d element %d: %g, expected %g", round, i, k, have, want);
      }
    say(&lg, "%s ok, time %.9f\n", round ? "ialltoallw" : "alltoallw", MPI_Wtime());
  }
  free(rbuf);
  free(sbuf);
  free(types);
  free(scounts);

  /* ---- environment queries ---- */
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int provided, is_main, commute;
  MPI_Get_library_version(lib, &len);
  CHECK(strncmp(lib, "xsim ", 5) == 0 && (strstr(lib, "MPICH") != NULL || strstr(lib, "Open MPI") != NULL),
        "library version '%s'", lib);
  MPI_Query_thread(&provided);
  MPI_Is_thread_main(&is_main);
  CHECK(is_main == 1, "MPI_Is_thread_main %d", is_main);
  MPI_Op myop;
  MPI_Op_create(sum_op, 0, &myop);
  MPI_Op_commutative(myop, &commute);
  CHECK(commute == 0, "user op commutative %d", commute);
  MPI_Op_commutative(MPI_SUM, &commute);
  CHECK(commute == 1, "MPI_SUM commutative %d", commute);
  int a[2] = {1, 2}, b[2] = {10, 20};
  MPI_Reduce_local(a, b, 2, MPI_INT, myop);
  CHECK(b[0] == 11 && b[1] == 22, "reduce_local %d %d", b[0], b[1]);
  MPI_Op_free(&myop);
  CHECK(MPI_Pcontrol(1) == MPI_SUCCESS, "MPI_Pcontrol");
  say(&lg, "environment ok, thread level %d, time %.9f\n", provided, MPI_Wtime());

  MPI_Comm_free(&node);
  print_all(&lg, me, np);
  MPI_Finalize();
  CHECK(sc.deletes == 1, "MPI_COMM_SELF attribute deleted %d times at MPI_Finalize", sc.deletes);
  return 0;
}
