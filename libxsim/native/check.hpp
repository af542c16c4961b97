// The native layer's check of a PMPI_* call's return code: anything but MPI_SUCCESS throws MpiError with
// the error class and "native <call> failed: <the native MPI's text>". Layer: libxsim/native (its own .cpp
// files include it; the layers above see MpiError only).
#pragma once
#include <mpi.h>

#include "native/datatype.hpp"

namespace xsim::native {

[[noreturn]] void call_failed(int rc, const char* call);  // flatten.cpp, beside error_text
inline void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) [[unlikely]] call_failed(rc, call);
}

}  // namespace xsim::native
