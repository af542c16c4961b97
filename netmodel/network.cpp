// Shared pieces of every network model (see network.hpp).
#include "xsim/netmodel/network.hpp"

#include "xsim/units.hpp"

namespace xsim::net {

std::string Network::overheads_suffix() const {
  if (overheads_.send == SimTime::zero() && overheads_.recv == SimTime::zero()) return "";
  return ", send overhead " + format_time(overheads_.send) + ", receive overhead " + format_time(overheads_.recv);
}

void Network::throw_out_of_range(const char* network, int src, int dst, int endpoints) {
  throw std::out_of_range(std::string(network) + ": route(" + std::to_string(src) + ", " + std::to_string(dst) +
                          ") outside endpoints 0.." + std::to_string(endpoints - 1));
}

}  // namespace xsim::net
