# Sanitizer settings for xsim's tests under build-asan (sourced by scripts/test-sanitize.sh; source it
# yourself before running ctest or an MPI program from an ASan build by hand). Every native process
# inherits them through ctest and mpiexec.
_xsim_san_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Leaks are reported (xsim's own must be fixed); lsan.supp names the native MPI's and its libraries'
# allocations that live until exit. Reports go to stderr, where tests/mpi/run.sh looks for them.
export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1
export LSAN_OPTIONS=suppressions=$_xsim_san_dir/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=$_xsim_san_dir/ubsan.supp
unset _xsim_san_dir
# MPICH's hwloc dlopens its plugins (opencl, gl, pci, xml_libxml) at MPI_Init and dlcloses them at
# MPI_Finalize; their allocations then show up as leaks from "<unknown module>", which no suppression can
# name. xsim never uses what they find: keep hwloc from loading them.
export HWLOC_PLUGINS_PATH=/nonexistent-xsim-sanitize
