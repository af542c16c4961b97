// Shared pieces of every network model (see network.hpp).
#include "xsim/netmodel/network.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "xsim/units.hpp"

namespace xsim::net {

std::string Network::overheads_suffix() const {
  if (overheads_.send == SimTime::zero() && overheads_.recv == SimTime::zero()) return "";
  return ", send overhead " + format_time(overheads_.send) + ", receive overhead " + format_time(overheads_.recv);
}

void Network::set_size_bands(std::vector<SizeBand> bands) {
  for (size_t i = 0; i < bands.size(); ++i) {
    const SizeBand& b = bands[i];
    if (i > 0 && b.from <= bands[i - 1].from)
      throw std::invalid_argument("size bands must start at increasing sizes (band " + std::to_string(i) + " starts at " +
                                  std::to_string(b.from) + " bytes, the one before at " +
                                  std::to_string(bands[i - 1].from) + ")");
    if (!(b.latency >= 1.0) || !std::isfinite(b.latency) || b.latency > 1e6)
      throw std::invalid_argument("a size band's latency factor must be between 1 and 1e6 (got " +
                                  std::to_string(b.latency) +
                                  "): the network's smallest latency is the simulator's lookahead; lower the "
                                  "latency of the level instead");
    if (!(b.bandwidth > 0.0) || !std::isfinite(b.bandwidth) || b.bandwidth > 1e6)
      throw std::invalid_argument("a size band's bandwidth factor must be above 0 and at most 1e6 (got " +
                                  std::to_string(b.bandwidth) + ")");
  }
  bands_ = std::move(bands);
}

SimTime Network::banded_latency(const Route& r, uint64_t bytes, SimTime* transfer) const {
  auto it = std::upper_bound(bands_.begin(), bands_.end(), bytes,
                             [](uint64_t v, const SizeBand& b) { return v < b.from; });
  if (it == bands_.begin()) {  // below the first band: no correction
    *transfer = transfer_time(bytes, r.min_bandwidth_bps);
    return r.latency + *transfer;
  }
  const SizeBand& b = *(it - 1);
  const double bps = std::max(1.0, std::round(static_cast<double>(r.min_bandwidth_bps) * b.bandwidth));
  *transfer = transfer_time(bytes, static_cast<uint64_t>(std::min(bps, 1.8e19)));
  return SimTime::from_ps(static_cast<int64_t>(std::llround(static_cast<double>(r.latency.ps()) * b.latency))) +
         *transfer;
}

void Network::throw_out_of_range(const char* network, int src, int dst, int endpoints) {
  throw std::out_of_range(std::string(network) + ": route(" + std::to_string(src) + ", " + std::to_string(dst) +
                          ") outside endpoints 0.." + std::to_string(endpoints - 1));
}

}  // namespace xsim::net
