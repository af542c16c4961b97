// Fuzz target: the TOML configuration (-xsim-config FILE; options.hpp load_config_text), then what
// parse_options checks with it (the network must fit the rank count).
// Input: the file's text. Properties: ConfigError, or options whose printed TOML (-xsim-print-config)
// reads back without error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "network_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  xsim::Options o;
  if (!xsim::fuzz::accepted([&] { xsim::load_config_text(o, text, "fuzz.toml"); })) return 0;
  if (o.np != 0 && !xsim::fuzz::accepted([&] { (void)xsim::resolve_network(o.network, o.np); })) return 0;
  const std::string printed = xsim::to_toml(o);
  xsim::Options again;
  if (!xsim::fuzz::accepted([&] { xsim::load_config_text(again, printed, "printed.toml"); }))
    xsim::fuzz::finding("the printed configuration does not read back:\n" + printed);
  return 0;
}
