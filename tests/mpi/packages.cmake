# Real MPI programs that Debian packages, run as a user would: the unmodified binaries under
# LD_PRELOAD=libxsim.so with several ranks per native process and default options (docs/applications.md).
# scripts/install-deps.sh installs them; a build on a machine without them registers nothing here.
#   pkg_scalapack_xdlu  ScaLAPACK's LU tester (BLACS in libscalapack-mpich calls MPI_Init and keeps state:
#                       the takeover and -xsim-privatize-libs auto find it), the shipped LU.dat, 4 ranks on
#                       1 native process: every residual check must pass (on 2 processes it passes too, in
#                       about 50 s of busy-polling here: docs/applications.md)
#   pkg_netpipe         NetPIPE (getopt, gettimeofday timing, deep stack), 2 ranks in one native process
if(NOT XSIM_MPI STREQUAL "mpich")
  return()
endif()
set(_scalapack_tests /usr/lib/x86_64-linux-gnu/scalapack/mpich-tests)
if(EXISTS ${_scalapack_tests}/xdlu AND EXISTS ${_scalapack_tests}/LU.dat)
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/pkg_scalapack.d)
  file(MAKE_DIRECTORY ${_dir})
  configure_file(${_scalapack_tests}/LU.dat ${_dir}/LU.dat COPYONLY)  # a symbolic link there: copy the file
  xsim_mpi_test(pkg_scalapack_xdlu ${RUN} expect-stdout 1
    "^ +0 tests completed and failed residual checks" -- ${PRELOAD} ${_scalapack_tests}/xdlu -xsim-np 4 ${NONE})
  set_tests_properties(pkg_scalapack_xdlu PROPERTIES WORKING_DIRECTORY ${_dir}
    FAIL_REGULAR_EXPRESSION "FAIL")
endif()
find_program(XSIM_NETPIPE NPmpich2)
if(XSIM_NETPIPE)
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/pkg_netpipe.d)
  file(MAKE_DIRECTORY ${_dir})
  # 1 byte: 2 x 25 us + 8 ns of the ethernet star, as NetPIPE's own gettimeofday timer sees it (its stderr)
  xsim_mpi_test(pkg_netpipe ${RUN} expect-stderr 1 "^ *0: +1 bytes .* 50\\.01 usec" --
    ${PRELOAD} ${XSIM_NETPIPE} -u 1024 -o ${_dir}/np.out -xsim-np 2 ${NONE})
  set_tests_properties(pkg_netpipe PROPERTIES WORKING_DIRECTORY ${_dir})
endif()
