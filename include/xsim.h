/* xsim.h: the public C API of the xsim MPI simulator, for applications that want to talk to it.
 * An application never needs this header to run under xsim; it is for explicit compute charges and
 * for asking whether it runs simulated. Every function is safe to call when not simulated (it then
 * does nothing and says so). Callable only from a virtual rank's own thread. */
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

#ifdef __cplusplus
}
#endif

#endif /* XSIM_H */
