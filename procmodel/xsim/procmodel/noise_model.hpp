// NoiseModel: operating-system noise, detours that take a simulated node's cores away from the application
// for a while (docs/noise.md). Layer: procmodel (pure: no MPI, no fibers). Issue 36.
//
// Every node has a sequence of detours, intervals of virtual time. A computation of c (virtual time after
// the processor and node models) that starts at t on a node ends at the smallest e >= t such that [t, e)
// holds c of time outside the node's detours: detours inside the computation stretch it, and a computation
// that starts inside a detour waits for its end. A charge of 0 ends at t. The sequence of a node depends
// only on the spec, the seed and the node's number, never on the order of the queries, so the times are
// the same for any number of native processes.
//
// Specs (parse_noise_spec):
//   none                          no noise
//   periodic:PERIOD:DURATION      a detour of DURATION every PERIOD, the first at time 0 on every node
//   periodic:PERIOD:DURATION:random   the same, each node at its own phase (uniform, from the seed)
//   poisson:RATE:DURATION         detours of DURATION starting at the arrivals of a Poisson process of RATE
//                                 (e.g. 10kHz) per node; overlapping detours merge (the node is taken away
//                                 while any of them lasts), so the noise fraction is 1 - exp(-RATE x DURATION)
//   trace:FILE                    the detours of FILE (parse_noise_trace), repeated with the file's cycle,
//                                 each node at its own offset (uniform over the cycle, from the seed)
#pragma once
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "xsim/simtime.hpp"

namespace xsim::proc {

struct Detour {
  SimTime start;
  SimTime length;
  SimTime end() const { return start + length; }
};

struct NoiseSpec {
  enum class Kind { none, periodic, poisson, trace };
  Kind kind = Kind::none;
  SimTime period;             // periodic
  SimTime duration;           // periodic, poisson: each detour's length
  bool random_phase = false;  // periodic:...:random
  double rate_hz = 0;         // poisson: arrivals per second per node
  std::string file;           // trace
  std::string text = "none";  // the spec as given, for printing back
};

// Parses a spec (forms above). Throws std::invalid_argument whose message says what is wrong and gives the
// accepted forms (the caller prefixes the option's name). Does not read a trace file.
NoiseSpec parse_noise_spec(std::string_view text);
// A rate: a number with unit Hz, kHz, MHz or GHz (a bare number: Hz), >= 0. Throws std::invalid_argument.
double parse_rate_hz(std::string_view text);

// A noise trace: detours sorted by start, disjoint, inside [0, cycle), together shorter than the cycle.
struct NoiseTrace {
  std::vector<Detour> detours;
  SimTime cycle;
};
// Reads the text format: one detour per line, "START LENGTH" (times with units, a bare number in seconds),
// '#' starts a comment, blank lines are skipped, and an optional line "cycle TIME" gives the length of one
// repetition (default: the end of the last detour). Throws std::invalid_argument naming `name:line`.
NoiseTrace parse_noise_trace(std::istream& in, const std::string& name);
NoiseTrace read_noise_trace(const std::string& path);  // the file, or an error naming it
// Writes `t` in the format parse_noise_trace reads (the recorder's output), times in nanoseconds.
void write_noise_trace(std::ostream& out, const NoiseTrace& t);

class NoiseModel {
 public:
  virtual ~NoiseModel() = default;
  // Where a computation of `c` that starts at `t` on `node` ends (the rule above). Throws
  // std::overflow_error past the virtual clock's range.
  virtual SimTime finish(uint64_t node, SimTime t, SimTime c) = 0;
  // The node's detours that overlap [a, b), clipped to it, in order (for traces and tests).
  virtual std::vector<Detour> detours(uint64_t node, SimTime a, SimTime b) = 0;
  virtual std::string describe() const = 0;
};

// The model of `spec` (reads a trace file; throws std::invalid_argument on a bad one), its random choices
// drawn from `seed`. Null for Kind::none.
std::unique_ptr<NoiseModel> make_noise_model(const NoiseSpec& spec, uint64_t seed);
// A repeating pattern: `t`'s detours every t.cycle, each node shifted by a uniform offset drawn from `seed`
// when `random_offset`, else starting at 0 (the periodic and trace models).
std::unique_ptr<NoiseModel> make_cyclic_noise(NoiseTrace t, bool random_offset, uint64_t seed,
                                              std::string description);

// Counter-based random numbers: a uniform double in (0, 1] from (seed, stream, a, b); the same for the same
// arguments on every process, whatever was drawn before.
double counter_uniform(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b);
uint64_t counter_hash(uint64_t seed, uint64_t stream, uint64_t a, uint64_t b);

}  // namespace xsim::proc
