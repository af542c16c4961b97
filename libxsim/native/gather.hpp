// Gathering observation data (traces, statistics) from every native process at native process 0, after
// the simulation has run. Every function here is collective over the native processes (MPI_COMM_WORLD of
// the native MPI): all processes call it, in the same order. Data moves over a private duplicate of the
// native world communicator, so it never mixes with the window exchange.
// Layer: libxsim/native (PMPI_* only here). Called from the native thread, never from a rank fiber.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xsim::native {

// Each process's `mine`, at process 0 (index = process); empty elsewhere.
std::vector<std::string> gather_strings(const std::string& mine);
// Process 0's `s`, at every process.
std::string bcast_string(const std::string& s);
// Element-wise sum over the processes, at process 0 only (others' `v` is left unspecified).
void reduce_sum_to_root(uint64_t* v, size_t n);
// Each process's `mine`, concatenated in process order, at process 0; empty elsewhere.
std::vector<uint64_t> gather_u64(const std::vector<uint64_t>& mine);

// Streams bytes to process 0 in process order without holding everything in memory: process 0 calls
// `consume` first with its own chunks, then with those of process 1, 2, ... Each process's `produce`
// fills `chunk` (already cleared) and returns false when it has nothing more.
void stream_to_root(const std::function<bool(std::string& chunk)>& produce,
                    const std::function<void(const std::string& chunk)>& consume);

// Logical OR / minimum over the processes, at every process.
bool any_true(bool mine);
int64_t min_all(int64_t mine);

}  // namespace xsim::native
