/* xsim's Fortran bindings: the conventions every entry point shares (generated bindings.c, special.c).
 * Contract: entry points take Fortran's arguments (every argument by reference, handles as MPI_Fint, a
 * trailing MPI_Fint* ierr, then one hidden size_t length per CHARACTER argument, as gfortran passes them),
 * convert them with the standard C API only (MPI_*_f2c/c2f, MPI_Status_f2c/c2f), and call the C MPI_*
 * functions, i.e. xsim's. The only ABI-specific knowledge is where each MPI keeps the Fortran sentinels
 * (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY): common blocks whose
 * addresses the application passes, read here through weak references (fortran/README.md). */
#ifndef XSIM_FORTRAN_SUPPORT_H
#define XSIM_FORTRAN_SUPPORT_H

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#if !defined(OPEN_MPI) && !defined(MPICH_VERSION)
#error "xsim's Fortran bindings know the Fortran sentinels of MPICH and Open MPI only"
#endif

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed to C as int arrays");

/* one entry point, exported; XF_ALIASES adds the other manglings of the same function */
#define XF_ENTRY __attribute__((visibility("default")))
#define XF_ALIAS1(f, a) extern __typeof(f) a __attribute__((alias(#f), visibility("default")));
#define XF_ALIASES(f, a, b, c) XF_ALIAS1(f, a) XF_ALIAS1(f, b) XF_ALIAS1(f, c)

/* INTEGER elements of a Fortran status (MPI_STATUS_SIZE): the C status's size in Fortran integers */
#define XF_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

__attribute__((noreturn)) void xsim_unsupported(const char* name);
/* libxsim (api_attr.cpp): calls release(extra) once the keyval is gone (freed, and no attribute left set with
 * it); returns 0 for a keyval that is not xsim's */
int xsim_keyval_set_release(int keyval, void (*release)(void* extra));

/* the application's Fortran sentinels (addresses; null when the program has no Fortran MPI) */
void* xf_bottom_addr(void);
void* xf_in_place_addr(void);
void* xf_status_ignore_addr(void);
void* xf_statuses_ignore_addr(void);
void* xf_unweighted_addr(void);
void* xf_weights_empty_addr(void);

/* a choice buffer: Fortran's MPI_BOTTOM and MPI_IN_PLACE become C's */
static inline void* xf_buf(void* p) {
  if (p && p == xf_bottom_addr()) return MPI_BOTTOM;
  if (p && p == xf_in_place_addr()) return MPI_IN_PLACE;
  return p;
}
/* a weights array: Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become C's */
static inline int* xf_weights(MPI_Fint* p) {
  if (p && (void*)p == xf_unweighted_addr()) return MPI_UNWEIGHTED;
  if (p && (void*)p == xf_weights_empty_addr()) return MPI_WEIGHTS_EMPTY;
  return p;
}
static inline int xf_status_ignored(MPI_Fint* s) { return (void*)s == xf_status_ignore_addr(); }
static inline int xf_statuses_ignored(MPI_Fint* s) { return (void*)s == xf_statuses_ignore_addr(); }
/* gfortran's LOGICAL values */
static inline MPI_Fint xf_logical(int c) { return c ? 1 : 0; }
/* an outcount of Waitsome/Testsome as a loop bound */
static inline int xf_some(MPI_Fint outcount) { return outcount == MPI_UNDEFINED || outcount < 0 ? 0 : outcount; }

/* arrays of up to XF_SMALL converted handles or statuses live on the caller's (the rank's) stack */
#define XF_SMALL 8
/* n elements of `size` bytes (at least one element, so that the result is never null); stops the run when
 * memory is exhausted */
void* xf_alloc(int n, size_t size);
/* a CHARACTER argument as a C string: trailing blanks dropped (free it) */
char* xf_string_in(const char* f, size_t len);
/* a C buffer large enough for any string an MPI function returns into a CHARACTER of length len */
char* xf_string_buffer(size_t len);
/* copies the C string into the CHARACTER argument, blank-padded, and frees the buffer */
void xf_string_out(char* c, char* f, size_t len);

/* the number of entries of an MPI_Alltoallw type array: the communicator's size (remote size for an
 * intercommunicator) */
int xf_comm_peers(MPI_Comm comm);
/* the in- (out = 0) or out-degree (out = 1) of a communicator with a process topology */
int xf_neighbors(MPI_Comm comm, int out);

#endif
