/* xsim.h: the public C API of the xsim MPI simulator, for applications that want to talk to it.
 * An application never needs this header to run under xsim; it is for explicit compute charges, for
 * asking whether it runs simulated, and for sampling annotated regions. Every function is safe to call
 * when not simulated (it then does nothing and says so). Callable only from a virtual rank's own thread. */
#ifndef XSIM_H
#define XSIM_H

#define XSIM_VERSION_MAJOR 0
#define XSIM_VERSION_MINOR 1
#define XSIM_VERSION_PATCH 0
#define XSIM_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0". */
const char* xsim_version(void);
/* 1 when called from a virtual rank of a running simulation, else 0. */
int xsim_is_simulated(void);
/* Charges `seconds` of computation to the calling rank's virtual clock (on top of the processor
 * model's measured time). Returns 0, or -1 when not simulated or seconds is negative/NaN. */
int xsim_compute(double seconds);
/* The calling rank's virtual time in seconds (same as MPI_Wtime under xsim). */
double xsim_time(void);

/* Sampling (docs/real-programs.md, "Sampling"): a region of computation that runs the same way many times
 * is run and measured a few times, then skipped, its measured mean charged instead.
 *
 *     XSIM_SAMPLE_LOCAL(3) {            // or XSIM_SAMPLE_GLOBAL(3)
 *       dgemm_(...);                    // the region
 *     }
 *
 * A region is known by its call site (file and line). Its cost is the virtual time from its start to its
 * end: the computation timed on the host under -xsim-cpu scaled, plus what xsim_compute and modelled
 * kernels charge inside it. LOCAL(n): each rank runs the region until it has n samples of its own, then
 * every later execution on that rank is skipped and charged the mean of its samples. GLOBAL(n): the
 * samples are pooled over the virtual ranks of one native process: the first n executions there (by
 * any of its ranks) run, then every execution on any of them charges their mean; each native process
 * takes its own samples, without communication, so the result is the same for any number of native
 * processes when every execution costs the same, and otherwise may differ with it.
 * The region must be entered and left through the macro: no break, goto or return out of it (the run
 * ends with a message at the region's next start or an enclosing region's end), and a region may not
 * contain itself (recursion). A skipped region's side effects do not
 * happen: keep MPI calls and results that later code reads out of it. Without xsim (not simulated) the
 * region always runs. */
#define XSIM_SAMPLE_LOCAL(n) XSIM_SAMPLE_AT_(n, 0)
#define XSIM_SAMPLE_GLOBAL(n) XSIM_SAMPLE_AT_(n, 1)
#define XSIM_SAMPLE_AT_(n, global)                                                                       \
  for (int xsim_sample_run_ = xsim_sample_begin(__FILE__, __LINE__, (n), (global)); xsim_sample_run_; \
       xsim_sample_run_ = xsim_sample_end(__FILE__, __LINE__))
/* The functions behind the macros: begin returns 1 when the region must run now (then call end after
 * it), 0 when it was skipped and its mean charged; end returns 0. n must be at least 1. Fortran:
 * INTEGER FUNCTION XSIM_SAMPLE_BEGIN(SITE, N, GLOBAL) and SUBROUTINE XSIM_SAMPLE_END(SITE), with SITE an
 * integer that names the region: IF (XSIM_SAMPLE_BEGIN(1, 3, 0) /= 0) THEN ... CALL XSIM_SAMPLE_END(1). */
int xsim_sample_begin(const char* file, int line, int n, int global);
int xsim_sample_end(const char* file, int line);

#ifdef __cplusplus
}
#endif

#endif /* XSIM_H */
