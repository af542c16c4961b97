// Fuzz target: the -xsim-* option parser (options.hpp parse_options) over the command line and the XSIM_*
// environment. Input: lines; a line "XSIM_NAME=value" is an environment variable, any other line one
// command-line argument after the program name. Lines naming /dev, /proc or /sys are dropped (a config or
// placement "file" there could block or never end: not a parser property).
// Properties: ConfigError, or options whose printed TOML reads back, with every -xsim-* argument removed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args{"app"}, env;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (line.find('\0') != std::string::npos) return 0;  // argv and environ strings cannot hold NUL
    for (const char* dir : {"/dev", "/proc", "/sys"})
      if (line.find(dir) != std::string::npos) return 0;
    (line.rfind("XSIM_", 0) == 0 ? env : args).push_back(line);
  }
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  xsim::Options o;
  if (!xsim::fuzz::accepted([&] { o = xsim::parse_options(argc, argv.data(), envp.data()); })) return 0;
  if (argc < 1 || argv[static_cast<size_t>(argc)] != nullptr) xsim::fuzz::finding("argv not terminated");
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[static_cast<size_t>(i)]).rfind("-xsim-", 0) == 0)
      xsim::fuzz::finding(std::string("argument left in argv: ") + argv[static_cast<size_t>(i)]);
  const std::string printed = xsim::to_toml(o);
  xsim::Options again;
  if (!xsim::fuzz::accepted([&] { xsim::load_config_text(again, printed, "printed.toml"); }))
    xsim::fuzz::finding("the printed configuration does not read back:\n" + printed);
  return 0;
}
