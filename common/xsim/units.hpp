// Parsing and printing of physical quantities used in options and configuration files:
// times ("25us", "1.5 ms", "100ns", "2s", "7e-6"), bandwidths ("1Gbps", "8.8 Gbit/s", "1.25 GB/s")
// and sizes ("256K", "1MiB", "4096"). Layer: common; pure functions, no global state.
// Every parser throws std::invalid_argument whose message names the bad text and the accepted forms.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "xsim/simtime.hpp"

namespace xsim {

// Time: number with unit s, ms, us (or µs), ns, ps; a bare number means seconds. Must be >= 0.
SimTime parse_time(std::string_view text);
// Bandwidth in bits per second: units bps, Kbps, Mbps, Gbps, Tbps (also "bit/s" spellings; powers of 10)
// and bytes per second B/s, KB/s, MB/s, GB/s, TB/s (x8, powers of 10). A bare number means bit/s. Must be > 0.
uint64_t parse_bandwidth_bps(std::string_view text);
// Size in bytes: bare number, or suffix K/KB/KiB, M/MB/MiB, G/GB/GiB (all powers of 1024 for sizes).
uint64_t parse_size(std::string_view text);

std::string format_time(SimTime t);               // e.g. "50.032 us"
std::string format_bandwidth(uint64_t bits_per_s);  // e.g. "1 Gbps"
std::string format_size(uint64_t bytes);            // e.g. "256 KiB"
// Equal ignoring ASCII case (unit and keyword names).
bool iequals(std::string_view a, std::string_view b);

}  // namespace xsim
