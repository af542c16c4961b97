/* xsim's Fortran bindings written by hand: the sentinels and helpers support.h declares, and the entry points
 * gen_bindings.py's rules cannot express (gen_bindings.py's SPECIAL): MPI_Init/MPI_Init_thread, MPI_Wtime,
 * MPI_Pcontrol, attributes (predefined attributes come back by value) and keyvals with Fortran copy/delete
 * functions, error handlers that are Fortran subroutines. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

/* ---- the Fortran sentinels: common blocks of the application (or of the MPI's Fortran library) ---------- */
#define XF_WEAK extern char __attribute__((weak, visibility("default")))
#if defined(OPEN_MPI)
/* Open MPI's mpif-sentinels.h: one common block per sentinel */
XF_WEAK mpi_fortran_bottom_[];
XF_WEAK mpi_fortran_in_place_[];
XF_WEAK mpi_fortran_status_ignore_[];
XF_WEAK mpi_fortran_statuses_ignore_[];
XF_WEAK mpi_fortran_unweighted_[];
XF_WEAK mpi_fortran_weights_empty_[];
void* xf_bottom_addr(void) { return mpi_fortran_bottom_; }
void* xf_in_place_addr(void) { return mpi_fortran_in_place_; }
void* xf_status_ignore_addr(void) { return mpi_fortran_status_ignore_; }
void* xf_statuses_ignore_addr(void) { return mpi_fortran_statuses_ignore_; }
void* xf_unweighted_addr(void) { return mpi_fortran_unweighted_; }
void* xf_weights_empty_addr(void) { return mpi_fortran_weights_empty_; }
#else
/* MPICH's mpif.h: COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE(MPI_STATUS_SIZE);
 * /MPIPRIV2/ MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1), MPI_ERRCODES_IGNORE(1); /MPIFCMB5/ MPI_UNWEIGHTED;
 * /MPIFCMB9/ MPI_WEIGHTS_EMPTY (the `mpi` module uses the same blocks) */
XF_WEAK mpipriv1_[];
XF_WEAK mpipriv2_[];
XF_WEAK mpifcmb5_[];
XF_WEAK mpifcmb9_[];
static void* at(char* block, size_t offset) { return block ? block + offset : NULL; }
void* xf_bottom_addr(void) { return at(mpipriv1_, 0); }
void* xf_in_place_addr(void) { return at(mpipriv1_, sizeof(MPI_Fint)); }
void* xf_status_ignore_addr(void) { return at(mpipriv1_, 2 * sizeof(MPI_Fint)); }
void* xf_statuses_ignore_addr(void) { return at(mpipriv2_, 0); }
void* xf_unweighted_addr(void) { return mpifcmb5_; }
void* xf_weights_empty_addr(void) { return mpifcmb9_; }
#endif

/* ---- helpers -------------------------------------------------------------------------------------------- */
void* xf_alloc(int n, size_t size) {
  void* p = malloc((n > 0 ? (size_t)n : 1) * size);
  if (!p) {
    fprintf(stderr, "xsim: out of memory converting %d Fortran handles or statuses\n", n);
    abort();
  }
  return p;
}

char* xf_string_in(const char* f, size_t len) {
  while (len > 0 && f[len - 1] == ' ') --len;
  char* c = xf_alloc((int)len + 1, 1);
  memcpy(c, f, len);
  c[len] = '\0';
  return c;
}

/* the longest string an MPI function may write, whatever the CHARACTER length the application gave */
enum { kLongest = 8192 };
_Static_assert(kLongest >= MPI_MAX_LIBRARY_VERSION_STRING && kLongest >= MPI_MAX_PROCESSOR_NAME &&
                   kLongest >= MPI_MAX_OBJECT_NAME && kLongest >= MPI_MAX_DATAREP_STRING &&
                   kLongest >= MPI_MAX_ERROR_STRING && kLongest >= MPI_MAX_PORT_NAME,
               "the string buffer must hold every MPI_MAX_* string");

char* xf_string_buffer(size_t len) {
  size_t n = (len > (size_t)kLongest ? len : (size_t)kLongest) + 1;
  char* c = xf_alloc((int)n, 1);
  memset(c, 0, n);
  return c;
}

void xf_string_out(char* c, char* f, size_t len) {
  size_t n = strlen(c);
  if (n > len) n = len;
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
  free(c);
}

int xf_comm_peers(MPI_Comm comm) {
  int inter = 0, n = 0;
  MPI_Comm_test_inter(comm, &inter);
  if (inter)
    MPI_Comm_remote_size(comm, &n);
  else
    MPI_Comm_size(comm, &n);
  return n;
}

int xf_neighbors(MPI_Comm comm, int out) {
  int topo = MPI_UNDEFINED, n = 0;
  MPI_Topo_test(comm, &topo);
  if (topo == MPI_CART) {
    MPI_Cartdim_get(comm, &n);
    return 2 * n;
  }
  if (topo == MPI_GRAPH) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Graph_neighbors_count(comm, rank, &n);
    return n;
  }
  if (topo == MPI_DIST_GRAPH) {
    int in = 0, outd = 0, weighted = 0;
    MPI_Dist_graph_neighbors_count(comm, &in, &outd, &weighted);
    return out ? outd : in;
  }
  return 0;
}

#define XF_NAMES(f, F) XF_ALIASES(f##_, f, f##__, F)

/* ---- start-up, time, profiling -------------------------------------------------------------------------- */
/* The application's arguments reach Fortran through libgfortran (_gfortran_set_args, called by the Fortran
 * main program xsim runs as each rank's main, with the rank's argv: -xsim-* options already removed). */
XF_ENTRY void mpi_init_(MPI_Fint* ierr) { *ierr = MPI_Init(NULL, NULL); }
XF_NAMES(mpi_init, MPI_INIT)

XF_ENTRY void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  int p = 0;
  *ierr = MPI_Init_thread(NULL, NULL, *required, &p);
  *provided = p;
}
XF_NAMES(mpi_init_thread, MPI_INIT_THREAD)

XF_ENTRY double mpi_wtime_(void) { return MPI_Wtime(); }
XF_NAMES(mpi_wtime, MPI_WTIME)
XF_ENTRY double mpi_wtick_(void) { return MPI_Wtick(); }
XF_NAMES(mpi_wtick, MPI_WTICK)

XF_ENTRY void mpi_pcontrol_(MPI_Fint* level) { MPI_Pcontrol(*level); }
XF_NAMES(mpi_pcontrol, MPI_PCONTROL)

/* ---- attributes ----------------------------------------------------------------------------------------- */
/* MPICH numbers a predefined attribute's Fortran keyval one above its C keyval; Open MPI uses one number. */
#if defined(OPEN_MPI)
enum { kFortranKeyvalShift = 0 };
#else
enum { kFortranKeyvalShift = 1 };
#endif
static int is_comm_predefined(int kv) {
  return kv == MPI_TAG_UB || kv == MPI_HOST || kv == MPI_IO || kv == MPI_WTIME_IS_GLOBAL ||
         kv == MPI_UNIVERSE_SIZE || kv == MPI_LASTUSEDCODE || kv == MPI_APPNUM;
}
static int is_win_predefined(int kv) {
  return kv == MPI_WIN_BASE || kv == MPI_WIN_SIZE || kv == MPI_WIN_DISP_UNIT || kv == MPI_WIN_CREATE_FLAVOR ||
         kv == MPI_WIN_MODEL;
}
static int c_keyval(MPI_Fint kv, int (*predefined)(int)) {
  return predefined(kv - kFortranKeyvalShift) ? kv - kFortranKeyvalShift : kv;
}

/* reads an attribute: predefined ones are C pointers to int (MPI_WIN_SIZE: to MPI_Aint; MPI_WIN_BASE: the
 * base itself), user ones are the stored value */
static int comm_attr(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag) {
  const int kv = c_keyval(*keyval, is_comm_predefined);
  void* v = NULL;
  int found = 0;
  int rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), kv, &v, &found);
  if (rc != MPI_SUCCESS) return rc;
  *flag = xf_logical(found);
  if (found) *value = is_comm_predefined(kv) ? (MPI_Aint) * (int*)v : (MPI_Aint)(intptr_t)v;
  return rc;
}

XF_ENTRY void mpi_comm_get_attr_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                                 MPI_Fint* ierr) {
  *ierr = comm_attr(comm, keyval, value, flag);
}
XF_NAMES(mpi_comm_get_attr, MPI_COMM_GET_ATTR)

XF_ENTRY void mpi_attr_get_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag, MPI_Fint* ierr) {
  MPI_Aint v = 0;
  *ierr = comm_attr(comm, keyval, &v, flag);
  if (*ierr == MPI_SUCCESS && *flag) *value = (MPI_Fint)v;
}
XF_NAMES(mpi_attr_get, MPI_ATTR_GET)

XF_ENTRY void mpi_comm_set_attr_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* ierr) {
  *ierr = MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, (void*)(intptr_t)*value);
}
XF_NAMES(mpi_comm_set_attr, MPI_COMM_SET_ATTR)

XF_ENTRY void mpi_attr_put_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* ierr) {
  *ierr = MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, (void*)(intptr_t)*value);
}
XF_NAMES(mpi_attr_put, MPI_ATTR_PUT)

XF_ENTRY void mpi_win_get_attr_(MPI_Fint* win, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag, MPI_Fint* ierr) {
  const int kv = c_keyval(*keyval, is_win_predefined);
  void* v = NULL;
  int found = 0;
  *ierr = MPI_Win_get_attr(MPI_Win_f2c(*win), kv, &v, &found);
  if (*ierr != MPI_SUCCESS) return;
  *flag = xf_logical(found);
  if (!found) return;
  if (kv == MPI_WIN_BASE || !is_win_predefined(kv))
    *value = (MPI_Aint)(intptr_t)v;
  else if (kv == MPI_WIN_SIZE)
    *value = *(MPI_Aint*)v;
  else
    *value = *(int*)v;
}
XF_NAMES(mpi_win_get_attr, MPI_WIN_GET_ATTR)

/* Keyvals with Fortran copy/delete subroutines: the C keyval's extra state points to this record, and the C
 * callbacks below call the Fortran ones with Fortran's conventions (everything by reference, LOGICAL flag,
 * attribute values as INTEGER(KIND=MPI_ADDRESS_KIND), or default INTEGER for MPI-1's MPI_KEYVAL_CREATE). The
 * record lives as long as the keyval: a freed keyval may still have attributes whose callbacks need it, so
 * libxsim frees the record when the last of them is gone (xsim_keyval_set_release). */
typedef void xf_copy_aint(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Aint*, MPI_Fint*, MPI_Fint*);
typedef void xf_delete_aint(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Fint*);
typedef void xf_copy_int(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
typedef void xf_delete_int(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
struct xf_keyval {
  int mpi1;  /* MPI_KEYVAL_CREATE: default INTEGER values */
  void (*copy)(void);
  void (*del)(void);
  MPI_Aint extra;
};

static int xf_copy(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  struct xf_keyval* k = extra;
  MPI_Fint fold = MPI_Comm_c2f(old), fkv = keyval, fflag = 0, ierr = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint e = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in, vout = 0;
    ((xf_copy_int*)k->copy)(&fold, &fkv, &e, &vin, &vout, &fflag, &ierr);
    if (fflag) *(void**)out = (void*)(intptr_t)vout;
  } else {
    MPI_Aint e = k->extra, vin = (MPI_Aint)(intptr_t)in, vout = 0;
    ((xf_copy_aint*)k->copy)(&fold, &fkv, &e, &vin, &vout, &fflag, &ierr);
    if (fflag) *(void**)out = (void*)(intptr_t)vout;
  }
  *flag = fflag != 0;
  return ierr;
}

static int xf_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  struct xf_keyval* k = extra;
  MPI_Fint fc = MPI_Comm_c2f(comm), fkv = keyval, ierr = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)value;
    ((xf_delete_int*)k->del)(&fc, &fkv, &v, &e, &ierr);
  } else {
    MPI_Aint e = k->extra, v = (MPI_Aint)(intptr_t)value;
    ((xf_delete_aint*)k->del)(&fc, &fkv, &v, &e, &ierr);
  }
  return ierr;
}

static int create_keyval(int mpi1, void (*copy)(void), void (*del)(void), MPI_Aint extra, MPI_Fint* keyval) {
  struct xf_keyval* k = xf_alloc(1, sizeof *k);
  k->mpi1 = mpi1;
  k->copy = copy;
  k->del = del;
  k->extra = extra;
  int kv = 0;
  int rc = MPI_Comm_create_keyval(xf_copy, xf_delete, &kv, k);
  if (rc == MPI_SUCCESS) {
    *keyval = kv;
    xsim_keyval_set_release(kv, free);
  } else {
    free(k);
  }
  return rc;
}

XF_ENTRY void mpi_comm_create_keyval_(void (*copy)(void), void (*del)(void), MPI_Fint* keyval, MPI_Aint* extra,
                                      MPI_Fint* ierr) {
  *ierr = create_keyval(0, copy, del, *extra, keyval);
}
XF_NAMES(mpi_comm_create_keyval, MPI_COMM_CREATE_KEYVAL)

XF_ENTRY void mpi_keyval_create_(void (*copy)(void), void (*del)(void), MPI_Fint* keyval, MPI_Fint* extra,
                                 MPI_Fint* ierr) {
  *ierr = create_keyval(1, copy, del, *extra, keyval);
}
XF_NAMES(mpi_keyval_create, MPI_KEYVAL_CREATE)

/* ---- error handlers that are Fortran subroutines (COMM, ERROR_CODE) --------------------------------------
 * A C error handler receives no user data, so each Fortran subroutine gets a trampoline of its own from a
 * fixed set; registering the same subroutine again reuses its trampoline. */
typedef void xf_errhandler(MPI_Fint* comm, MPI_Fint* code);
enum { kHandlerSlots = 32 };
static xf_errhandler* g_handlers[kHandlerSlots];
#define XF_TRAMPOLINE(i)                                       \
  static void xf_eh##i(MPI_Comm* comm, int* code, ...) {       \
    MPI_Fint fc = MPI_Comm_c2f(*comm), fe = *code;             \
    g_handlers[i](&fc, &fe);                                   \
  }
XF_TRAMPOLINE(0) XF_TRAMPOLINE(1) XF_TRAMPOLINE(2) XF_TRAMPOLINE(3) XF_TRAMPOLINE(4) XF_TRAMPOLINE(5)
XF_TRAMPOLINE(6) XF_TRAMPOLINE(7) XF_TRAMPOLINE(8) XF_TRAMPOLINE(9) XF_TRAMPOLINE(10) XF_TRAMPOLINE(11)
XF_TRAMPOLINE(12) XF_TRAMPOLINE(13) XF_TRAMPOLINE(14) XF_TRAMPOLINE(15) XF_TRAMPOLINE(16) XF_TRAMPOLINE(17)
XF_TRAMPOLINE(18) XF_TRAMPOLINE(19) XF_TRAMPOLINE(20) XF_TRAMPOLINE(21) XF_TRAMPOLINE(22) XF_TRAMPOLINE(23)
XF_TRAMPOLINE(24) XF_TRAMPOLINE(25) XF_TRAMPOLINE(26) XF_TRAMPOLINE(27) XF_TRAMPOLINE(28) XF_TRAMPOLINE(29)
XF_TRAMPOLINE(30) XF_TRAMPOLINE(31)
static MPI_Comm_errhandler_function* const g_trampolines[kHandlerSlots] = {
    xf_eh0,  xf_eh1,  xf_eh2,  xf_eh3,  xf_eh4,  xf_eh5,  xf_eh6,  xf_eh7,  xf_eh8,  xf_eh9,  xf_eh10,
    xf_eh11, xf_eh12, xf_eh13, xf_eh14, xf_eh15, xf_eh16, xf_eh17, xf_eh18, xf_eh19, xf_eh20, xf_eh21,
    xf_eh22, xf_eh23, xf_eh24, xf_eh25, xf_eh26, xf_eh27, xf_eh28, xf_eh29, xf_eh30, xf_eh31};

static int create_errhandler(xf_errhandler* fn, MPI_Fint* errhandler) {
  int slot = 0;
  while (slot < kHandlerSlots && g_handlers[slot] && g_handlers[slot] != fn) ++slot;
  if (slot == kHandlerSlots) {
    fprintf(stderr,
            "xsim: more than %d different Fortran subroutines given to MPI_COMM_CREATE_ERRHANDLER; xsim's "
            "Fortran bindings hold %d (kHandlerSlots in fortran/special.c)\n",
            kHandlerSlots, kHandlerSlots);
    return MPI_ERR_INTERN;
  }
  g_handlers[slot] = fn;
  MPI_Errhandler e = MPI_ERRHANDLER_NULL;
  int rc = MPI_Comm_create_errhandler(g_trampolines[slot], &e);
  if (rc == MPI_SUCCESS) *errhandler = MPI_Errhandler_c2f(e);
  return rc;
}

XF_ENTRY void mpi_comm_create_errhandler_(xf_errhandler* fn, MPI_Fint* errhandler, MPI_Fint* ierr) {
  *ierr = create_errhandler(fn, errhandler);
}
XF_NAMES(mpi_comm_create_errhandler, MPI_COMM_CREATE_ERRHANDLER)

XF_ENTRY void mpi_errhandler_create_(xf_errhandler* fn, MPI_Fint* errhandler, MPI_Fint* ierr) {
  *ierr = create_errhandler(fn, errhandler);
}
XF_NAMES(mpi_errhandler_create, MPI_ERRHANDLER_CREATE)

/* ---- ULFM (docs/resilience.md): MPICH's Fortran names of the MPIX_Comm_* calls -------------------------- */
/* Declared here (Open MPI 4.1's mpi.h has no ULFM), and weak: these bindings also build against an MPI
 * without them (fortran_bindings_openmpi), where a call reports MPI_ERR_OTHER. libxsim defines them. */
int MPIX_Comm_revoke(MPI_Comm comm) __attribute__((weak));
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) __attribute__((weak));
int MPIX_Comm_agree(MPI_Comm comm, int* flag) __attribute__((weak));
int MPIX_Comm_failure_ack(MPI_Comm comm) __attribute__((weak));
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* failed) __attribute__((weak));
#define XF_ULFM(f) \
  if (!f) {        \
    *ierr = MPI_ERR_OTHER; \
    return;        \
  }

XF_ENTRY void mpix_comm_revoke_(MPI_Fint* comm, MPI_Fint* ierr) {
  XF_ULFM(MPIX_Comm_revoke)
  *ierr = MPIX_Comm_revoke(MPI_Comm_f2c(*comm));
}
XF_NAMES(mpix_comm_revoke, MPIX_COMM_REVOKE)

XF_ENTRY void mpix_comm_shrink_(MPI_Fint* comm, MPI_Fint* newcomm, MPI_Fint* ierr) {
  XF_ULFM(MPIX_Comm_shrink)
  MPI_Comm c_newcomm = MPI_COMM_NULL;
  int rc = MPIX_Comm_shrink(MPI_Comm_f2c(*comm), &c_newcomm);
  if (rc == MPI_SUCCESS) *newcomm = MPI_Comm_c2f(c_newcomm);
  *ierr = rc;
}
XF_NAMES(mpix_comm_shrink, MPIX_COMM_SHRINK)

/* The flag is a Fortran INTEGER (MPICH's binding: bitwise AND, as in C). */
XF_ENTRY void mpix_comm_agree_(MPI_Fint* comm, MPI_Fint* flag, MPI_Fint* ierr) {
  XF_ULFM(MPIX_Comm_agree)
  int c_flag = (int)*flag;
  *ierr = MPIX_Comm_agree(MPI_Comm_f2c(*comm), &c_flag);
  *flag = (MPI_Fint)c_flag;
}
XF_NAMES(mpix_comm_agree, MPIX_COMM_AGREE)

XF_ENTRY void mpix_comm_failure_ack_(MPI_Fint* comm, MPI_Fint* ierr) {
  XF_ULFM(MPIX_Comm_failure_ack)
  *ierr = MPIX_Comm_failure_ack(MPI_Comm_f2c(*comm));
}
XF_NAMES(mpix_comm_failure_ack, MPIX_COMM_FAILURE_ACK)

XF_ENTRY void mpix_comm_failure_get_acked_(MPI_Fint* comm, MPI_Fint* failed, MPI_Fint* ierr) {
  XF_ULFM(MPIX_Comm_failure_get_acked)
  MPI_Group c_failed = MPI_GROUP_NULL;
  int rc = MPIX_Comm_failure_get_acked(MPI_Comm_f2c(*comm), &c_failed);
  if (rc == MPI_SUCCESS) *failed = MPI_Group_c2f(c_failed);
  *ierr = rc;
}
XF_NAMES(mpix_comm_failure_get_acked, MPIX_COMM_FAILURE_GET_ACKED)
