// Chrome trace JSON (the Trace Event Format read by Perfetto and chrome://tracing) from trace events.
// Layout: one "process" per simulated node (pid = node), one "thread" per virtual rank (tid = rank); each
// outermost MPI call is a complete event ("X", name = the MPI function, args: communicator, messages and
// bytes sent and received inside the call); each message is a flow from the sender's call ("s") to the
// receiver's call ("f"), id = sender rank and send sequence; a noise detour between two calls (region
// kDetourRegion) is a complete event of category "noise". Timestamps are virtual microseconds with
// picosecond digits. The file is: chrome_head(), then any number of event texts (each starts with a comma),
// then chrome_tail(). Layer: libxsim/observe (pure text formatting).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "observe/events.hpp"

namespace xsim::obs {

// "{"traceEvents": [" and a first metadata event, so every later event can start with ",".
std::string chrome_head(const std::string& title);
// `other` is a JSON object body ("\"key\": value, ...") for "otherData"; may be empty.
std::string chrome_tail(const std::string& other);
// Names of the node (process) and of the rank (thread).
void chrome_rank_metadata(std::string& out, int64_t rank, int64_t node);
// Every event of one rank. `regions`: region index -> function name; `contexts`: message context -> name of
// the communicator (a context missing from the map is shown as a number).
void chrome_rank_events(std::string& out, int64_t rank, int64_t node, const std::vector<TraceEvent>& events,
                        const std::vector<std::string>& regions, const std::map<uint64_t, std::string>& contexts);
// Microseconds with six decimals from picoseconds, exactly.
std::string micros_text(int64_t ps);

}  // namespace xsim::obs
