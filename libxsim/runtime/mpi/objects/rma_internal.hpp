// What the two halves of one-sided communication share (rma.cpp, the origin's side and the windows;
// rma_target.cpp, what the target applies): the message header, the origin's pending replies, the windows
// by id, and the helpers both use. Layer: libxsim/runtime/mpi/objects (xsim_mpi), private to rma*.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "api_support.hpp"
#include "native/flatten.hpp"
#include "rma.hpp"

namespace xsim::rma::detail {

using native::Run;

// Payload header of every RMA message; the target layout's runs and the data follow it.
struct Hdr {
  int32_t origin = -1;  // origin's rank in the window group
  int32_t target = -1;  // target's rank in the window group
  int32_t lock_type = 0;
  int32_t pad = 0;
  int64_t disp = 0;     // target bytes from the window base (dynamic windows: an absolute address)
  uint64_t nruns = 0;
  uint64_t data = 0;    // data bytes after the runs
  uint64_t token = 0;   // the origin's pending operation (replies)
  int32_t basic = 0;  // accumulates: the element type (native::type_to_wire: the same in every process)
  int32_t mop = 0;    // the operation (native::op_to_wire)
};
static_assert(sizeof(Hdr) % 8 == 0);

// Operations whose data comes back (get-like), by token: where the data goes at the origin.
struct Pending {
  uint32_t gen = 0;
  bool live = false;
  char* addr = nullptr;
  std::vector<Run> runs;
  int request = -1;
  uint32_t request_gen = 0;
};
extern std::vector<Window*> g_wins;  // by handle index
extern std::vector<uint32_t> g_free_wins;
extern std::unordered_map<uint64_t, Window*> g_by_id;
extern std::vector<Pending> g_pending;  // by token (low 32 bits; the high ones are its generation)
extern std::vector<uint32_t> g_pending_free;

inline Engine& E() { return *g_engine; }
inline int32_t world_of(const Window& w, int rank) { return w.comm->world_of(rank); }
std::string win_name(const Window& w);
// A message of `op` on window `win` with header h, the target layout's runs and room for `data` bytes
// (*data_at: where they go).
Message* make(Op op, uint64_t win, const Hdr& h, const std::vector<Run>* runs, uint64_t data, char** data_at);
void check_rank(const Window& w, int rank);
bool predefined_op(MPI_Op op);
// Counts by rank: m[k] += d (an entry that reaches zero goes); get: m[k], zero when absent.
void add(std::unordered_map<int32_t, int64_t>& m, int32_t k, int64_t d);
int64_t get(const std::unordered_map<int32_t, int64_t>& m, int32_t k);
// The engine-applied hook of every RMA message, at its destination's native process (rma_target.cpp).
void hook(Message* m);

}  // namespace xsim::rma::detail
