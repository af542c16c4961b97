# Application kernels (examples/cg.c, examples/jacobi3d.f90; included from tests/mpi/CMakeLists.txt): each
# verifies its own numerical answer (see the sources) and must print the same for 1 and 2 native processes.

# conjugate gradients, block rows of a 12x10x9 7-point Laplacian, converged to 1e-10 and checked against x*
xsim_mpi_test(cg_converged ${RUN} same "1 2" -- ${EX}/cg 12 10 9 500 1e-10 -xsim-np 12 ${NONE})
# 37 ranks on 1000 rows: uneven blocks, each rank exchanging halos with many ranks
xsim_mpi_test(cg_uneven ${RUN} same "1 2" -- ${EX}/cg 10 10 10 300 1e-9 -xsim-np 37 ${NONE})
# exact: 2 ranks, 4x4x4; per iteration one halo of 16 doubles (2 x 25 us + 1024 bits / 1 Gbps = 51.024 us)
# and two allreduces of one double between 2 ranks (50.064 us each): 10 x 151.152 us = 1511.52 us
xsim_mpi_test(cg_time ${RUN} expect-stdout 2 "^cg: virtual time 0\\.001511520$" --
  ${EX}/cg 4 4 4 10 0 -xsim-np 2 ${NONE})
xsim_mpi_test(cg_preload ${RUN} expect-stdout 2 "^cg: 12 ranks, grid 12x10x9 \\(1080 rows\\), 43 iterations, .* ok$" --
  ${PRELOAD} ${EX}/cg_plain 12 10 9 500 1e-10 -xsim-np 12 ${NONE})

# 3-D Jacobi on a 3x2x2 Cartesian grid, converged to 1e-8 and checked against u*
xsim_mpi_test(jacobi3d_converged ${RUN} same "1 2" -- ${EX}/jacobi3d 12 10 9 3000 1e-8 -xsim-np 12 ${NONE})
# weak-scaling form (cells per rank), 7 ranks: a 7x1x1 grid
xsim_mpi_test(jacobi3d_per_rank ${RUN} same "1 2" -- ${EX}/jacobi3d -l 2 6 5 2000 1e-6 -xsim-np 7 ${NONE})
# exact: 2 ranks (2x1x1) on 4x4x4, 20 iterations: 21 halo exchanges of one 4x4 face (128 B: 51.024 us, both
# directions at once) and residual allreduces at iterations 0, 10 and 20 (8 B: 50.064 us): 1221.696 us
xsim_mpi_test(jacobi3d_time ${RUN} expect-stdout 2 "^jacobi3d: virtual time 0\\.001221696$" --
  ${EX}/jacobi3d 4 4 4 20 0 -xsim-np 2 ${NONE})
xsim_mpi_test(jacobi3d_preload ${RUN} expect-stdout 2 "^jacobi3d: 12 ranks \\(3x2x2\\), grid 12x10x9, 460 iterations.* ok$" --
  ${PRELOAD} ${EX}/jacobi3d_plain 12 10 9 3000 1e-8 -xsim-np 12 ${NONE})

# examples/resilient.c (docs/resilience.md): the ULFM Jacobi solver ends with the same iterate with and
# without failures, shrinking once per failure; identical for 1 and 2 native processes
xsim_mpi_test(resilient_no_failure ${RUN} expect-stdout "1 2"
  "^resilient: 16 ranks, 16 survivors, 0 shrinks, n 1024, 120 sweeps \\(0 redone\\), error 3\\.636e-12 ok$" --
  ${EX}/resilient -xsim-np 16 ${NONE})
# (the failed ranks' heap allocations stay behind: no leak check under the sanitizers)
xsim_mpi_test(resilient_two_failures LEAKS_OK=1 ${RUN} expect-stdout "1 2"
  "^resilient: 16 ranks, 14 survivors, 2 shrinks, n 1024, 120 sweeps \\(11 redone\\), error 3\\.636e-12 ok$" --
  ${EX}/resilient -xsim-np 16 -xsim-fault 3@2ms,9@5ms ${NONE})
