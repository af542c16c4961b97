# Observation (docs/observability.md): traces, statistics, pictures, progress line, xsimrun. Included by
# tests/mpi/CMakeLists.txt; each test is one subcommand of observe.py.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(OBSERVE ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/observe.py)
set(OBS_OUT ${CMAKE_CURRENT_BINARY_DIR}/observe)
set(TOOLS ${PROJECT_BINARY_DIR}/tools)
add_executable(observe_imbalance observe_imbalance.c)
target_link_libraries(observe_imbalance PRIVATE xsim MPI::MPI_C)

if(OTF2_FOUND)
  # ring, 8 ranks, N = 1 and 2: OTF2 (otf2-print) and Chrome JSON event counts, statistics against each other,
  # the report and exact times; identical statistics and OTF2 events for N = 1 and 2
  xsim_mpi_test(observe_trace_stats ${OBSERVE} trace-stats ${EX} ${OBS_OUT}/trace)
  # 4 KiB trace buffers: hundreds of spills, the trace still complete
  xsim_mpi_test(observe_trace_spill ${OBSERVE} spill ${EX} ${OBS_OUT}/spill)
endif()
xsim_mpi_test(observe_stats_matrix ${OBSERVE} matrix ${EX} ${OBS_OUT}/matrix)
xsim_mpi_test(observe_stats_wait ${OBSERVE} wait $<TARGET_FILE:observe_imbalance> ${OBS_OUT}/wait)
xsim_mpi_test(observe_plots ${OBSERVE} plots ${EX} ${TOOLS} ${OBS_OUT}/plots)
xsim_mpi_test(observe_progress ${OBSERVE} progress ${EX} ${OBS_OUT}/progress)
xsim_mpi_test(xsimrun ${OBSERVE} xsimrun ${EX} ${TOOLS} ${OBS_OUT}/xsimrun)
# bad paths stop the run before it starts, naming the option
xsim_mpi_test(observe_bad_path ${RUN} expect-fail 1 2 "-xsim-trace: directory \"/nonexistent-xsim\" of \"/nonexistent-xsim/t\" does not exist" --
  ${EX}/ring 2 -xsim-np 4 -xsim-trace /nonexistent-xsim/t)

# --- diagnostics name the virtual rank (the deadlock, SIGSEGV, SIGFPE and stack overflow tests are in
# CMakeLists.txt): SIGBUS and abort() inside a rank, and the stacks (libunwind) in the reports
xsim_mpi_test(sigbus_named ${RUN} expect-fail 2 nonzero "rank 3 crashed with SIGBUS .* at virtual time" --
  $<TARGET_FILE:crash> bus -xsim-np 4 ${NONE})
xsim_mpi_test(abort_named ${RUN} expect-fail 1 nonzero "rank 1 crashed with SIGABRT .* at virtual time" --
  $<TARGET_FILE:crash> abort -xsim-np 4 ${NONE})
xsim_mpi_test(crash_stack_shown ${RUN} expect-fail 1 nonzero "#[0-9]+ 0x[0-9a-f]+ main\\+0x" --
  $<TARGET_FILE:crash> segv -xsim-np 4 ${NONE})
xsim_mpi_test(deadlock_stack_shown ${RUN} expect-fail 2 3 "#1 0x[0-9a-f]+ main\\+0x" --
  $<TARGET_FILE:deadlock> -xsim-np 4 ${NONE})
