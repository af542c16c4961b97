/* priv_libcounter.c - a shared library that keeps a counter in a static variable, for the test of
 * -xsim-privatize-libs (priv_lib.c). */
static int counter;

int priv_libcounter_bump(void) { return ++counter; }
