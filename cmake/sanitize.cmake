# XSIM_SANITIZE: build everything (libxsim, tools, tests, examples) with GCC/Clang sanitizers.
#   cmake -S . -B build-asan -DXSIM_SANITIZE=address,undefined     (scripts/test-sanitize.sh does this)
# Sets XSIM_ASAN (ON when AddressSanitizer is in) and XSIM_PRELOAD_PREFIX: what LD_PRELOAD must name before
# libxsim.so (the ASan runtime has to be the first library of a process). docs/testing.md.
set(XSIM_SANITIZE "" CACHE STRING
    "Sanitizers to build with, comma-separated: address, undefined, leak (e.g. address,undefined); empty: none")
set(XSIM_ASAN OFF)
set(XSIM_PRELOAD_PREFIX "")
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
  # -O1 -g whatever CMAKE_BUILD_TYPE says (compile options come after the build type's -O2 and win):
  # instrumented code at -O2 compiles much more slowly and finds nothing more; -g keeps the reports' lines.
  add_compile_options(-O1 -g)
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
