# Kernel models (-xsim-kernels exec|model|audit; docs/real-programs.md "Kernel models"): blas_kernels.c calls the
# BLAS in both spellings (dgemm_, cblas_dgemm, ...). Included from tests/mpi/CMakeLists.txt (RUN, NONE,
# PRELOAD, XSIM_LIB and xsim_mpi_test come from there). Without a BLAS library nothing is registered.
#   kernels_model_times      model: each call's exact virtual time (blas_kernels.toml has the arithmetic),
#                            the outputs untouched, N = 1 and 2
#   kernels_model_preload    the same with a binary that knows nothing of xsim, under LD_PRELOAD
#   kernels_model_report(_families)  the run report's counts and times, summed over 2 native processes
#   kernels_exec             exec: every result right through the forwarders (the BLAS -lblas finds:
#                            OpenBLAS's where Debian's alternatives chose it), N = 1 and 2
#   kernels_exec_reference   exec with the reference BLAS (LD_LIBRARY_PATH to Debian's netlib libblas.so.3)
#   kernels_exec_preload     exec under LD_PRELOAD
#   kernels_audit_1, _2      audit: the calls run, and the report sums the model's time for them, N = 1 and 2
#   kernels_no_blas          a program that calls dgemm_ and links no BLAS: exec fails naming dgemm_
#   kernels_warn_no_blas     model in a program without any BLAS: one warning, the run goes on
#   kernels_model_no_blas    model in a program linked against libxsim alone: no warning, the calls modelled
find_library(XSIM_BLAS_LIBRARY NAMES blas openblas blis)
if(NOT XSIM_BLAS_LIBRARY)
  message(STATUS "no BLAS library (Debian: libopenblas-dev or libblas-dev): the kernel model tests are not registered")
  return()
endif()
# libxsim defines every BLAS function the program calls, so a linker that drops unneeded libraries (gcc's
# --as-needed, Debian's default here) would drop the BLAS: the program keeps it with --no-as-needed.
set(_kblas -Wl,--push-state,--no-as-needed ${XSIM_BLAS_LIBRARY} -Wl,--pop-state)
add_executable(blas_kernels blas_kernels.c)
target_link_libraries(blas_kernels PRIVATE xsim MPI::MPI_C ${_kblas} m)
add_executable(blas_kernels_plain blas_kernels.c)  # no -lxsim: for LD_PRELOAD
target_link_libraries(blas_kernels_plain PRIVATE MPI::MPI_C ${XSIM_BLAS_LIBRARY} m)
add_executable(blas_kernels_noblas blas_kernels.c)  # the BLAS names resolve to libxsim's alone
target_link_libraries(blas_kernels_noblas PRIVATE xsim MPI::MPI_C m)

set(_kdir ${CMAKE_CURRENT_SOURCE_DIR})
set(_kmodel -xsim-np 4 ${NONE} -xsim-config ${_kdir}/blas_kernels.toml)
xsim_mpi_test(kernels_model_times ${RUN} expect-lines "1 2" ${_kdir}/blas_kernels.expected --
  $<TARGET_FILE:blas_kernels> model ${_kmodel})
xsim_mpi_test(kernels_model_preload ${RUN} expect-lines "1 2" ${_kdir}/blas_kernels.expected --
  ${PRELOAD} $<TARGET_FILE:blas_kernels_plain> model ${_kmodel})
# 4 ranks x 10 calls; gemm: 4 x (8 + 12 + 4 ms + 3 us); iamax: 8 x 5 us (blas_kernels.toml)
xsim_mpi_test(kernels_model_report ${RUN} expect-stderr 2
  "kernel models +40 BLAS calls modelled, not run: 0\\.097284000 s of virtual time in all ranks"
  -- $<TARGET_FILE:blas_kernels> model ${_kmodel})
xsim_mpi_test(kernels_model_report_families ${RUN} expect-stderr 2
  "^xsim: +gemm 12 \\(0\\.096012000 s\\), trsm 4 \\(0\\.000024000 s\\), syrk 4 \\(0\\.000208000 s\\), gemv 4 \\(0\\.000660000 s\\), axpy 4 \\(0\\.000304000 s\\), dot 4 \\(0\\.000036000 s\\), iamax 8 \\(0\\.000040000 s\\)$"
  -- $<TARGET_FILE:blas_kernels> model ${_kmodel})
set(_kexec_ok "^rank 3 exec: all results correct$")
xsim_mpi_test(kernels_exec ${RUN} expect-stdout "1 2" "${_kexec_ok}" -- $<TARGET_FILE:blas_kernels> exec -xsim-np 4 ${NONE})
xsim_mpi_test(kernels_exec_preload ${RUN} expect-stdout 1 "${_kexec_ok}" --
  ${PRELOAD} $<TARGET_FILE:blas_kernels_plain> exec -xsim-np 4 ${NONE})
set(_netlib /usr/lib/x86_64-linux-gnu/blas)
if(EXISTS ${_netlib}/libblas.so.3)
  xsim_mpi_test(kernels_exec_reference LD_LIBRARY_PATH=${_netlib} ${RUN} expect-stdout "1 2" "${_kexec_ok}" --
    $<TARGET_FILE:blas_kernels> exec -xsim-np 4 ${NONE})
endif()
# audit: the calls run (results right) and are timed; the model's sum for them is model's own (40 calls)
foreach(_np 1 2)
  xsim_mpi_test(kernels_audit_${_np} ${RUN} expect-stderr ${_np}
    "kernel audit +BLAS calls run and timed .* model 0\\.097284 s \\([-+][0-9.]+%\\) in all ranks" --
    $<TARGET_FILE:blas_kernels> exec -xsim-np 4 ${NONE} -xsim-kernels audit -xsim-config ${_kdir}/blas_kernels.toml)
endforeach()
set_tests_properties(kernels_model_times kernels_model_preload kernels_exec kernels_exec_preload kernels_audit_1
  kernels_audit_2 PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL")
xsim_mpi_test(kernels_no_blas ${RUN} expect-fail 1 1
  "the program called the BLAS function dgemm_, but no library loaded after libxsim defines it" --
  $<TARGET_FILE:blas_kernels_noblas> exec -xsim-np 2 ${NONE})
xsim_mpi_test(kernels_warn_no_blas ${RUN} expect-stderr 1
  "warning: -xsim-kernels model, but this process loads no BLAS library.*nothing will be modelled" --
  ${EX}/hello -xsim-np 2 ${NONE} -xsim-kernels model -xsim-kernel-preset frontera)
xsim_mpi_test(kernels_model_no_blas ${RUN} expect-stderr 1
  "kernel models +40 BLAS calls modelled, not run: 0\\.097284000 s" --
  $<TARGET_FILE:blas_kernels_noblas> model ${_kmodel})
set_tests_properties(kernels_model_no_blas PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL|warning")
