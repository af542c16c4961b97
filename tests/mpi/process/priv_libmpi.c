/* priv_libmpi.c - a shared library that calls MPI itself and keeps state, as BLACS (ScaLAPACK) does: it
 * caches the caller's rank on first use and counts its calls. With -xsim-privatize-libs auto (the default)
 * xsim privatizes it without being told (docs/privatization.md), so each rank sees its own cache. */
#include <mpi.h>

static int cached_rank = -1;
static int calls = 0;

/* rank * 1000 + the number of calls so far, from the library's own state */
int priv_libmpi_step(void) {
  if (cached_rank < 0) MPI_Comm_rank(MPI_COMM_WORLD, &cached_rank);
  return cached_rank * 1000 + ++calls;
}
