// The model xsim-calibrate fits to a machine's measurements (docs/validation.md), without MPI: what was
// measured, the loggp parameters that reproduce it on a star network (every rank its own node), the
// one-way time the simulator predicts for a ping-pong of each size with them, and the TOML configuration
// that -xsim-config loads. Pure functions; tests/unit/config/test_calibrate_fit.cpp checks them on synthetic
// measurements (known parameters in, the same parameters out).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "xsim/netmodel/network.hpp"

namespace xsim::calibrate {

// What xsim-calibrate measured (times in seconds, medians of repeated runs).
struct Measurements {
  std::vector<uint64_t> sizes;      // ping-pong message sizes in bytes, increasing
  std::vector<double> one_way;      // half the round trip of MPI_Send/MPI_Recv ping-pong, per size
  double send_overhead = 0;         // time inside MPI_Send of 8 bytes to a posted receive
  double recv_overhead = 0;         // time inside MPI_Recv of 8 bytes that have already arrived
  double burst_interval = 0;        // per-message time of a burst of 8-byte MPI_Isends (sender side)
  uint64_t eager_limit = 0;         // largest size whose MPI_Send returned before a late receiver posted
  std::string host;                 // where it was measured (for the file's comments)
  int processes = 2;
};

// The fitted model: a star of `link_latency` links (two per message) and `bandwidth_bps`, loggp endpoint
// terms, the eager limit, and size bands where one line misses a measured size by more than `tolerance`.
struct Model {
  double link_latency = 0;   // seconds per link (a message crosses two)
  double bandwidth_bps = 0;  // bits per second
  double send_overhead = 0, recv_overhead = 0, gap = 0;
  uint64_t eager_limit = 0;
  std::vector<net::SizeBand> bands;
};

// The simulator's one-way time of a ping-pong message of `bytes` under `m` (loggp, star): eager
// o_s + 2l + 8s/B + o_r; rendezvous (above the eager limit) 6l instead of 2l (request, clear-to-send,
// data); each with the size band's factors.
double predict_one_way(const Model& m, uint64_t bytes);

// Fits the model to the measurements: overheads and eager limit as measured (the overheads scaled down to
// half the smallest one-way time when they add up to more: they overlap the transfer; the gap capped at the
// shortest round trip, which a ping-pong could not have had otherwise), link latency and bandwidth
// by least squares on the relative error over every size (on the measurements' monotone envelope: a size
// measured slower than a larger one is capped at the larger one's time), the latency lowered where needed so that every
// band's latency factor is at least 1, then a band from each size whose prediction is off by more than
// `tolerance` (neighbouring bands with the same factors merged). Throws std::invalid_argument on
// measurements it cannot use (fewer than two sizes, sizes not increasing, non-positive times).
Model fit(const Measurements& meas, double tolerance = 0.05);

// The TOML configuration (-xsim-config) of the model, commented: where and when it was measured, each
// measured size with the model's prediction and error.
std::string to_toml(const Model& m, const Measurements& meas);

}  // namespace xsim::calibrate
