# XSIM_SANITIZE: build everything (libxsim, tools, tests, examples) with GCC/Clang sanitizers.
#   cmake -S . -B build-asan -DXSIM_SANITIZE=address,undefined     (scripts/test-sanitize.sh does this)
# Sets XSIM_ASAN (ON when AddressSanitizer is in), XSIM_PRELOAD_PREFIX: what LD_PRELOAD must name before
# libxsim.so (the ASan runtime has to be the first library of a process), and XSIM_SANITIZE_TEST_OPTIONS: the
# compile options of the test programs. docs/testing.md.
set(XSIM_SANITIZE "" CACHE STRING
    "Sanitizers to build with, comma-separated: address, undefined, leak (e.g. address,undefined); empty: none")
set(XSIM_ASAN OFF)
set(XSIM_PRELOAD_PREFIX "")
set(XSIM_SANITIZE_TEST_OPTIONS "")
if(XSIM_SANITIZE)
  string(REPLACE "," ";" _xsim_sanitizers "${XSIM_SANITIZE}")
  foreach(_s IN LISTS _xsim_sanitizers)
    if(NOT _s MATCHES "^(address|undefined|leak)$")
      message(FATAL_ERROR "XSIM_SANITIZE=${XSIM_SANITIZE}: unknown sanitizer '${_s}' "
                          "(use a comma-separated list of address, undefined, leak; e.g. address,undefined)")
    endif()
  endforeach()
  if("address" IN_LIST _xsim_sanitizers)
    set(XSIM_ASAN ON)
  endif()
  # Frame pointers for readable reports; UBSan's vptr check needs RTTI (on by default).
  set(_xsim_san_flags -fsanitize=${XSIM_SANITIZE} -fno-omit-frame-pointer)
  add_compile_options(${_xsim_san_flags})
  # -O1 -g1 whatever CMAKE_BUILD_TYPE says (compile options come after the build type's -O2 -g and win):
  # instrumented code at -O2 compiles much more slowly and finds nothing more; -g1 (functions, inlined
  # frames and line tables: all a report shows) compiles ~30% faster than -g.
  add_compile_options(-O1 -g1)
  # The test programs (tests/: GoogleTest units, MPI test programs, corpus replays) at -O0: 3-4x cheaper to
  # compile under the sanitizers than at -O1 (GoogleTest's macros above all); the code they test is in the
  # libraries, at -O1. tests/CMakeLists.txt adds these options.
  set(XSIM_SANITIZE_TEST_OPTIONS -O0)
  add_link_options(-fsanitize=${XSIM_SANITIZE})
  if(XSIM_ASAN)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                    OUTPUT_VARIABLE _xsim_libasan OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(_xsim_libasan "${_xsim_libasan}" REALPATH)
    if(NOT EXISTS "${_xsim_libasan}")
      message(FATAL_ERROR "XSIM_SANITIZE=address: ${CMAKE_CXX_COMPILER} does not name its libasan.so "
                          "(install libasan8 / the compiler's sanitizer runtime)")
    endif()
    set(XSIM_PRELOAD_PREFIX "${_xsim_libasan}:")
  endif()
  message(STATUS "Sanitizers: ${XSIM_SANITIZE} (run the tests with scripts/test-sanitize.sh)")
endif()
