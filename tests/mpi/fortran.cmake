# Fortran MPI test set (included from tests/mpi/CMakeLists.txt). Programs built with MPICH's Fortran
# bindings, which call the C MPI_* entry points that xsim defines; each checks its own data, prints per-rank
# lines with MPI_Wtime, and must print the same for 1 and 2 native processes.
#   fortran_p2p    `use mpi`: send/recv, isend/irecv/waitall (status array, MPI_STATUSES_IGNORE), sendrecv,
#                  probe + get_count, MPI_ANY_SOURCE/MPI_ANY_TAG
#   fortran_coll   `use mpi`: collectives with MPI_IN_PLACE (allreduce, reduce, allgather, gather, scatterv,
#                  scan), alltoall, bcast
#   fortran_types  `include 'mpif.h'`: vector, subarray, contiguous, struct (+ MPI_BOTTOM), pack/unpack
#   fortran_comm   `use mpi` + a C helper: comm_split/dup/compare/free, MPI_Comm_f2c/c2f both ways
#   fortran_abort  MPI_Abort while the other ranks wait for the aborting one
#   fortran_cart   `use mpi`: dims_create, cart_create/coords/rank/get/shift/sub, topo_test, cartdim_get
#   fortran_crash  a fault in a Fortran rank is still named by xsim (libgfortran installs its own handlers)
#   fortran_clock  system_clock reads the rank's virtual time (docs/virtual-clocks.md)
#   fortran_units  each rank's Fortran units are its own: unit 10 on a file per rank, an implicit open, INQUIRE;
#                  one rank's CLOSE(6) leaves stdout to the others (docs/privatization.md)
#   fortran_sample XSIM_SAMPLE_BEGIN / XSIM_SAMPLE_END: a sampled region (docs/real-programs.md "Sampling")
#   fortran_ulfm   mpif.h-style MPIX_COMM_AGREE/FAILURE_ACK/FAILURE_GET_ACKED/SHRINK/REVOKE (docs/resilience.md)
#   fortran_conventions  what xsim's own bindings (fortran/) convert: 1-based Waitany/Waitsome indices, status
#                  arrays, LOGICAL flags, CHARACTER padding, a Fortran error handler, Alltoallw's datatype
#                  arrays, window attributes by value, MPI_UNWEIGHTED; an unsupported function stops by name
# -frecursive keeps every local on the rank's own stack (gfortran may otherwise make large locals static,
# i.e. shared by the virtual ranks); mpif.h has no interfaces, so choice buffers of several types need
# -fallow-argument-mismatch with gfortran >= 10.
set(XSIM_FORTRAN_FLAGS $<$<COMPILE_LANG_AND_ID:Fortran,GNU>:-frecursive -fallow-argument-mismatch>)

foreach(t p2p coll types comm abort cart crash conventions clock units ulfm sample)
  add_executable(fortran_${t} fortran/fortran_${t}.f90)
  target_link_libraries(fortran_${t} PRIVATE xsim MPI::MPI_Fortran)
  target_compile_options(fortran_${t} PRIVATE ${XSIM_FORTRAN_FLAGS})
endforeach()
# fortran_conventions passes an internal procedure as a callback: gfortran builds a trampoline on the stack,
# so the program needs an executable stack; asked for explicitly, the linker does not warn about it
target_link_options(fortran_conventions PRIVATE -Wl,-z,execstack)
# emit_all and check (module fortran_test_util, `use mpi` inside: fortran_types itself stays on mpif.h),
# compiled once, with its .mod in a folder of its own: each program that compiled it wrote the same .mod file
# in one folder, and two of them at once under -j broke the build ("Cannot rename module file")
add_library(fortran_test_util OBJECT fortran/fortran_test_util.f90)
target_link_libraries(fortran_test_util PUBLIC MPI::MPI_Fortran)
target_compile_options(fortran_test_util PRIVATE ${XSIM_FORTRAN_FLAGS})
set_target_properties(fortran_test_util PROPERTIES Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/mod_util)
target_include_directories(fortran_test_util PUBLIC ${CMAKE_CURRENT_BINARY_DIR}/mod_util)
foreach(t p2p coll types comm cart conventions)
  target_link_libraries(fortran_${t} PRIVATE fortran_test_util)
endforeach()
# the C helper is compiled on its own, so that the Fortran wrapper's flags stay off the C compiler
add_library(fortran_comm_helper OBJECT fortran/fortran_comm_helper.c)
target_link_libraries(fortran_comm_helper PRIVATE MPI::MPI_C)
target_sources(fortran_comm PRIVATE $<TARGET_OBJECTS:fortran_comm_helper>)
target_compile_options(fortran_crash PRIVATE -O0)
if(XSIM_SANITIZE)  # its faults are on purpose (see crash in CMakeLists.txt)
  target_compile_options(fortran_crash PRIVATE -fno-sanitize=all)
endif()
# binaries that know nothing of xsim, for LD_PRELOAD runs
foreach(t p2p types units)
  add_executable(fortran_${t}_plain fortran/fortran_${t}.f90)
  target_link_libraries(fortran_${t}_plain PRIVATE fortran_test_util MPI::MPI_Fortran)
  target_compile_options(fortran_${t}_plain PRIVATE ${XSIM_FORTRAN_FLAGS})
endforeach()

xsim_mpi_test(fortran_p2p ${RUN} same "1 2" -- $<TARGET_FILE:fortran_p2p> -xsim-np 12 ${NONE} -xsim-model analytic)
# 100 doubles from rank 0 to rank 1 as the first event: 2 x 25 us + 800 B x 8 ns = 56.4 us
xsim_mpi_test(fortran_p2p_time ${RUN} expect-stdout 2 "^rank 1: recv 100 doubles from 0 at t= 0\\.000056400$" --
  $<TARGET_FILE:fortran_p2p> -xsim-np 5 ${NONE} -xsim-model analytic)
xsim_mpi_test(fortran_p2p_preload ${RUN} expect-stdout 2 "^rank 1: recv 100 doubles from 0 at t= 0\\.000056400$" --
  ${PRELOAD} $<TARGET_FILE:fortran_p2p_plain> -xsim-np 12 ${NONE} -xsim-model analytic)
xsim_mpi_test(fortran_coll ${RUN} same "1 2" -- $<TARGET_FILE:fortran_coll> -xsim-np 12 ${NONE})
xsim_mpi_test(fortran_coll_7ranks ${RUN} same "1 2" -- $<TARGET_FILE:fortran_coll> -xsim-np 7 ${NONE})
xsim_mpi_test(fortran_types ${RUN} same "1 2" -- $<TARGET_FILE:fortran_types> -xsim-np 12 ${NONE})
# two ring exchanges of one 5-double vector row (40 B: 50.32 us each), then one 3x2 subarray (48 B: 50.384 us)
xsim_mpi_test(fortran_types_time ${RUN} expect-stdout 1 "^rank 0: subarray corner +1123\\. t= 0\\.000151024$" --
  $<TARGET_FILE:fortran_types> -xsim-np 12 ${NONE})
xsim_mpi_test(fortran_types_preload ${RUN} same "1 2" --
  ${PRELOAD} $<TARGET_FILE:fortran_types_plain> -xsim-np 12 ${NONE})
xsim_mpi_test(fortran_comm ${RUN} same "1 2" -- $<TARGET_FILE:fortran_comm> -xsim-np 12 ${NONE})
xsim_mpi_test(fortran_comm_odd ${RUN} same "1 2" -- $<TARGET_FILE:fortran_comm> -xsim-np 7 ${NONE})
xsim_mpi_test(fortran_abort_1proc ${RUN} expect-fail 1 5 "MPI_Abort called by rank 1 with error code 5" --
  $<TARGET_FILE:fortran_abort> -xsim-np 6 ${NONE})
xsim_mpi_test(fortran_abort_2procs ${RUN} expect-fail 2 5 "MPI_Abort called by rank 1 with error code 5" --
  $<TARGET_FILE:fortran_abort> -xsim-np 6 ${NONE})
xsim_mpi_test(fortran_cart ${RUN} same "1 2" -- $<TARGET_FILE:fortran_cart> -xsim-np 12 ${NONE})
xsim_mpi_test(fortran_cart_prime ${RUN} same "1 2" -- $<TARGET_FILE:fortran_cart> -xsim-np 7 ${NONE})
xsim_mpi_test(fortran_segv_named ${RUN} expect-fail 2 nonzero "rank 2 crashed with SIGSEGV.* at virtual time" --
  $<TARGET_FILE:fortran_crash> segv -xsim-np 4 ${NONE})
xsim_mpi_test(fortran_stack_overflow_named ${RUN} expect-fail 1 nonzero "stack overflow in rank 1 .*-xsim-stack" --
  $<TARGET_FILE:fortran_crash> overflow -xsim-np 4 -xsim-stack 64K ${NONE})
xsim_mpi_test(fortran_conventions ${RUN} same "1 2" -- $<TARGET_FILE:fortran_conventions> -xsim-np 5 ${NONE})
xsim_mpi_test(fortran_conventions_ok ${RUN} expect-stdout 2 "^fortran_conventions: ok$" --
  $<TARGET_FILE:fortran_conventions> -xsim-np 7 ${NONE})
xsim_mpi_test(fortran_unsupported_named ${RUN} expect-fail 2 nonzero
  "MPI_Comm_join is not supported by xsim yet \\(called by rank 1" --
  $<TARGET_FILE:fortran_conventions> unsupported -xsim-np 4 ${NONE})
# system_clock against MPI_Wtime around a barrier (8 ranks: 3 rounds of empty messages, 50 us each)
xsim_mpi_test(fortran_clock ${RUN} expect-stdout 1 "^rank 7: system_clock +0\\.000150000 s, MPI_Wtime +0\\.000150000 s: the same" --
  $<TARGET_FILE:fortran_clock> -xsim-np 8 ${NONE})
# Each rank's own units (fortran_units.cpp), 4 ranks in one, two or four native processes (one rank alone in its
# process gets libgfortran's numbers as they are; its CLOSE(6) does nothing all the same). Each test runs in a
# folder of its own in the build tree (the program writes and deletes its files in the current directory).
xsim_mpi_test(fortran_units ${RUN} same "1 2 4" -- $<TARGET_FILE:fortran_units> -xsim-np 4 ${NONE})
# rank 0 prints last, after the other three ranks' CLOSE(6), and finds no fort.6 (where their lines would be)
xsim_mpi_test(fortran_units_stdout ${RUN} expect-stdout 1
  "^rank 0: final line, after 3 CLOSE\\(6\\) by other ranks, no fort\\.6$" --
  $<TARGET_FILE:fortran_units> -xsim-np 4 ${NONE})
xsim_mpi_test(fortran_units_preload ${RUN} expect-stdout 2
  "^rank 0: final line, after 3 CLOSE\\(6\\) by other ranks, no fort\\.6$" --
  ${PRELOAD} $<TARGET_FILE:fortran_units_plain> -xsim-np 4 ${NONE})
foreach(t fortran_units fortran_units_stdout fortran_units_preload)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${t}.d)
  set_tests_properties(${t} PROPERTIES WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${t}.d)
endforeach()
# ULFM from Fortran: rank 1 fails at 1 ms; agreement at 2,050.064 us, shrink done 50.064 us later
xsim_mpi_test(fortran_ulfm ${RUN} expect-lines "1 2" ${CMAKE_CURRENT_SOURCE_DIR}/resilience/expected/fortran_ulfm.txt --
  $<TARGET_FILE:fortran_ulfm> -xsim-np 4 -xsim-fault 1@1ms ${NONE})
# 2 of 6 executions run (1 ms, 2 ms), 4 charge their mean: 3 + 4 x 1.5 = 9 ms on every rank
xsim_mpi_test(fortran_sample ${RUN} expect-stdout "1 2" "^rank 2: region ran 2 times, took  0\\.009000000$" --
  $<TARGET_FILE:fortran_sample> -xsim-np 3 ${NONE})
