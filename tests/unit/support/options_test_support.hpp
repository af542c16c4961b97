// Shared by the options unit tests (test_options.cpp, test_options_network.cpp): argv and environment
// built from strings, a temporary TOML file, and parse helpers that return the error message.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "options.hpp"

extern char** environ;

namespace xsim {
namespace {

// argv as the C runtime gives it: char* array with a null terminator; strings owned here.
class Argv {
 public:
  Argv(std::initializer_list<std::string> args) : store_(args) {
    for (auto& s : store_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
    argc = static_cast<int>(store_.size());
  }
  char** argv() { return ptrs_.data(); }
  std::vector<std::string> rest() const {
    std::vector<std::string> v;
    for (int i = 0; i < argc; ++i) v.emplace_back(ptrs_[i]);
    return v;
  }
  char* original(size_t i) { return store_[i].data(); }
  char* at(size_t i) const { return ptrs_[i]; }
  int argc = 0;

 private:
  std::vector<std::string> store_;
  std::vector<char*> ptrs_;
};

class Env {
 public:
  Env(std::initializer_list<std::string> vars = {}) : store_(vars) {
    for (auto& s : store_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
  }
  char** envp() { return ptrs_.data(); }

 private:
  std::vector<std::string> store_;
  std::vector<char*> ptrs_;
};

// A TOML file in the test's temporary directory, removed at the end.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int counter = 0;
    path_ = ::testing::TempDir() + "xsim_options_" + std::to_string(getpid()) + "_" + std::to_string(counter++) +
            ".toml";
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Options parse(std::initializer_list<std::string> args, std::initializer_list<std::string> env = {}) {
  Argv a(args);
  Env e(env);
  return parse_options(a.argc, a.argv(), e.envp());
}

// The ConfigError message of parsing these arguments, or "" when it succeeds.
std::string error_of(std::initializer_list<std::string> args, std::initializer_list<std::string> env = {}) {
  try {
    parse(args, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

std::string file_error(const std::string& toml) {
  TempFile f(toml);
  std::string m = error_of({"app", "-xsim-config", f.path()});
  // Replace the temporary path with "F" so that tests can compare whole positions.
  for (size_t p; (p = m.find(f.path())) != std::string::npos;) m.replace(p, f.path().size(), "F");
  return m;
}

}  // namespace
}  // namespace xsim
