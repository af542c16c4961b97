// ConfigError: the one exception of the config layer (xsim_config) for bad input. Its message says what was
// wrong, where (file:line or option) and how to fix it; the runtime prints it and exits with status 2 before
// any virtual rank starts. The bottom of the config layer: every config header and the layers above may
// include it; it includes nothing of xsim.
#pragma once
#include <stdexcept>

namespace xsim {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace xsim
