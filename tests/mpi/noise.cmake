# Noise and node speeds (docs/noise.md): exact virtual times under -xsim-cpu none, and the same times for
# any number of native processes. Included from tests/mpi/CMakeLists.txt (RUN, NONE, xsim_mpi_test).
# noise/noise.c says which time each step must print and why.
add_executable(noise_steps noise/noise.c)
target_link_libraries(noise_steps PRIVATE xsim MPI::MPI_C)
set(NOISE_PROG $<TARGET_FILE:noise_steps>)
set(NOISE_EXPECT ${CMAKE_CURRENT_SOURCE_DIR}/expected)
set(NOISE_DATA ${CMAKE_CURRENT_SOURCE_DIR}/noise)

# A periodic detour inside, before and after a computation and across an MPI call: exact, N = 1 and 2.
xsim_mpi_test(noise_periodic_times ${RUN} expect-lines "1 2" ${NOISE_EXPECT}/noise_periodic.txt --
  ${NOISE_PROG} -xsim-np 2 ${NONE} -xsim-noise periodic:1ms:10us)
# The same through the environment and through TOML.
xsim_mpi_test(noise_periodic_env ${RUN} expect-lines 1 ${NOISE_EXPECT}/noise_periodic.txt --
  env XSIM_NOISE=periodic:1ms:10us ${NOISE_PROG} -xsim-np 2 ${NONE})
xsim_mpi_test(noise_periodic_toml ${RUN} expect-lines 1 ${NOISE_EXPECT}/noise_periodic.txt --
  ${NOISE_PROG} -xsim-np 2 ${NONE} -xsim-config ${NOISE_DATA}/periodic.toml)
# Zero noise changes nothing: the times of a run without noise.
xsim_mpi_test(noise_zero_times ${RUN} expect-lines "1 2" ${NOISE_EXPECT}/noise_none.txt --
  ${NOISE_PROG} -xsim-np 2 ${NONE} -xsim-noise periodic:1ms:0us)
xsim_mpi_test(noise_none_times ${RUN} expect-lines 1 ${NOISE_EXPECT}/noise_none.txt --
  ${NOISE_PROG} -xsim-np 2 ${NONE})
# Node speed factors from a file (node 1 takes 1.5 x): exact.
xsim_mpi_test(noise_node_speed_file ${RUN} expect-lines "1 2" ${NOISE_EXPECT}/noise_speed.txt --
  ${NOISE_PROG} -xsim-np 2 ${NONE} -xsim-node-speed file:${NOISE_DATA}/speeds.txt)
# Poisson noise, random phases, a trace replayed and drawn node speeds: reproducible from the seed and the
# same for N = 1, 2, 3 (and a different seed gives other times: noise_poisson_seed).
xsim_mpi_test(noise_poisson_same ${RUN} same "1 2 3" --
  ${NOISE_PROG} -xsim-np 11 ${NONE} -xsim-noise poisson:10kHz:20us -xsim-seed 5)
xsim_mpi_test(noise_random_phase_same ${RUN} same "1 2 3" --
  ${NOISE_PROG} -xsim-np 11 ${NONE} -xsim-noise periodic:1ms:25us:random)
xsim_mpi_test(noise_trace_same ${RUN} same "1 2 3" --
  ${NOISE_PROG} -xsim-np 11 ${NONE} -xsim-noise trace:${NOISE_DATA}/trace.txt)
xsim_mpi_test(noise_node_speed_normal_same ${RUN} same "1 2 3" --
  ${NOISE_PROG} -xsim-np 11 ${NONE} -xsim-node-speed normal:0.05 -xsim-noise poisson:2kHz:100us)
xsim_mpi_test(noise_poisson_seed ${CMAKE_CURRENT_SOURCE_DIR}/noise/seed_differs.sh ${NOISE_PROG})
# The report gives the noise injected.
xsim_mpi_test(noise_report ${RUN} expect-stderr 2
  "xsim: noise +periodic: 10 us every 1 ms, from time 0. injected 0.000190000 s in all, per rank min 0.000090000 s  avg 0.000095000 s  max 0.000100000 s"
  -- ${NOISE_PROG} -xsim-np 2 ${NONE} -xsim-noise periodic:1ms:10us)
# Detours are regions of their own in the Chrome trace and the OTF2 archive, for 1 and 2 native processes.
foreach(n 1 2)
  xsim_mpi_test(noise_trace_detours_n${n} ${NOISE_DATA}/trace_detours.sh ${NOISE_PROG}
    ${CMAKE_CURRENT_BINARY_DIR}/noise_trace_detours_n${n} ${n})
endforeach()
# Node speed drift (docs/noise.md, node drift): a drift of zero spread changes nothing (exact, N = 1 and 2);
# drawn drift with noise and node factors is the same for N = 1, 2, 3; the report names it. The exact walk
# over windows of given factors is tests/unit/models/test_node_drift.cpp.
xsim_mpi_test(noise_node_drift_zero ${RUN} expect-lines "1 2" ${NOISE_EXPECT}/noise_none.txt --
  ${NOISE_PROG} -xsim-np 2 ${NONE} -xsim-node-drift 0:1ms)
xsim_mpi_test(noise_node_drift_same ${RUN} same "1 2 3" --
  ${NOISE_PROG} -xsim-np 11 ${NONE} -xsim-node-drift 0.05:300us -xsim-node-speed normal:0.05 -xsim-noise poisson:2kHz:100us)
xsim_mpi_test(noise_node_drift_report ${RUN} expect-stderr 2
  "xsim: node drift +0.05:1ms: each node's time factor x \\(1 \\+ 0.05 x Z\\), a new Z every 1 ms"
  -- ${NOISE_PROG} -xsim-np 2 ${NONE} -xsim-node-drift 0.05:1ms)
