// getopt, getopt_long and getopt_long_only with their scan state made explicit, so that every virtual rank
// can have its own (libc_getopt.cpp, docs/privatization.md). Behaves as glibc's (2.36): the same results,
// the same permutation of argv, the same messages on stderr (translated through libc's message catalogue),
// and, like glibc, keeps optopt and optarg in the state and copies them to the public variables after each
// call. Written from the documented behaviour, checked against glibc case by case (tests/unit/runtime/test_getopt.cpp).
// Pure: no globals, no xsim dependencies. Layer: libxsim/runtime/process (xsim_getopt).
#pragma once
#include <getopt.h>

#include <cstdint>

namespace xsim {

// How options and operands (non-option arguments) may mix.
enum class GetoptOrder : uint8_t {
  permute,          // the default: operands are skipped and moved behind the options
  require_order,    // leading '+', POSIXLY_CORRECT or __posix_getopt: the first operand ends the options
  return_in_order,  // leading '-': each operand is returned as the argument of option 1
};

// Everything glibc keeps between calls in its one hidden static (struct _getopt_data).
struct GetoptState {
  char* next = nullptr;    // the rest of the argument being scanned ("bc" of "-abc"); null or "" when done
  int first_nonopt = 1;    // argv[first_nonopt..last_nonopt): the operands skipped so far (permute)
  int last_nonopt = 1;
  bool initialized = false;  // false, or optind == 0 at a call, starts a new scan
  GetoptOrder order = GetoptOrder::permute;
  int optopt = 0;          // what the next call copies to the public optopt and optarg
  char* optarg = nullptr;
};

// The public variables one call reads (optind, opterr) and writes (optind, optarg, optopt).
struct GetoptVars {
  int& optind;
  char*& optarg;
  int& optopt;
  int& opterr;
};

// What is being called.
struct GetoptCall {
  const char* optstring;
  const option* longopts = nullptr;  // null: getopt
  int* longindex = nullptr;
  bool long_only = false;            // getopt_long_only
  bool posix = false;                // __posix_getopt: as if POSIXLY_CORRECT were set
};

// One call of getopt/getopt_long/getopt_long_only on `state` and the public variables `vars`: returns what
// glibc's would and permutes argv as glibc's does.
int getopt_scan(GetoptState& state, GetoptVars vars, int argc, char** argv, const GetoptCall& call);

}  // namespace xsim
