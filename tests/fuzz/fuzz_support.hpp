// Shared by the fuzz targets (tests/fuzz/fuzz_*.cpp): what counts as a finding. A parser may only answer a
// bad input with xsim::ConfigError carrying a message; anything else (another exception, a crash, a
// sanitizer report, a hang) is a bug. Layer: tests/fuzz (config layer and netmodel only, no MPI).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "options.hpp"

namespace xsim::fuzz {

// A violated property of a parser: print it and abort, so that libFuzzer (or the corpus replay) stops
// with the input that caused it.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Runs `parse`; a ConfigError must say something. Returns whether the input was accepted.
template <class F>
bool accepted(F&& parse) {
  try {
    parse();
    return true;
  } catch (const ConfigError& e) {
    if (std::strlen(e.what()) == 0) finding("a ConfigError without a message");
    return false;
  }
}

}  // namespace xsim::fuzz
