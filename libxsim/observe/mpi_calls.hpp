// What the trace writers need to know about an MPI function from its name alone: whether it is a blocking
// collective (and which, numbered as OTF2's collective operations), its role, and whether the communicator
// the call guard records for it is meaningful (request-based calls record MPI_COMM_WORLD).
// Layer: libxsim/observe (pure).
#pragma once
#include <string>
#include <string_view>

namespace xsim::obs {

// The trace region of a noise detour (docs/noise.md): the node's cores were away from the application.
inline constexpr std::string_view kDetourRegion = "xsim: detour (noise)";

// Blocking collectives, numbered as OTF2_CollectiveOp; -1 for anything else.
inline int collective_op(std::string_view f) {
  static constexpr std::string_view kOps[] = {
      "MPI_Barrier",   "MPI_Bcast",      "MPI_Gather",    "MPI_Gatherv",    "MPI_Scatter",   "MPI_Scatterv",
      "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",  "MPI_Alltoallv",  "MPI_Alltoallw", "MPI_Allreduce",
      "MPI_Reduce",    "MPI_Reduce_scatter", "MPI_Scan", "MPI_Exscan",     "MPI_Reduce_scatter_block"};
  for (int i = 0; i < static_cast<int>(sizeof kOps / sizeof kOps[0]); ++i)
    if (f == kOps[i]) return i;
  return -1;
}

// MPI_I<collective>: "MPI_Iallreduce" is "MPI_Allreduce" started nonblocking.
inline bool is_nonblocking_collective(std::string_view f) {
  if (f.size() < 7 || !f.starts_with("MPI_I") || f[5] < 'a' || f[5] > 'z') return false;
  std::string blocking = "MPI_";
  blocking += static_cast<char>(f[5] - 'a' + 'A');
  blocking += f.substr(6);
  return collective_op(blocking) >= 0;
}

enum class CallRole { function, point_to_point, barrier, one_to_all, all_to_one, all_to_all, other_collective };

inline CallRole call_role(std::string_view f) {
  switch (collective_op(f)) {
    case 0: return CallRole::barrier;
    case 1: case 4: case 5: return CallRole::one_to_all;
    case 2: case 3: case 12: return CallRole::all_to_one;
    case -1: break;
    default: return CallRole::all_to_all;
  }
  if (f.starts_with("MPI_Neighbor_") || f.starts_with("MPI_Ineighbor_") || is_nonblocking_collective(f))
    return CallRole::other_collective;
  for (std::string_view p : {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend",
                             "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Sendrecv", "MPI_Probe", "MPI_Iprobe",
                             "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Wait", "MPI_Test"})
    if (f.starts_with(p)) return CallRole::point_to_point;
  return CallRole::function;
}

// False for calls whose communicator argument the guard does not know (requests, environment).
inline bool names_communicator(std::string_view f) {
  for (std::string_view p : {"MPI_Wait", "MPI_Test", "MPI_Start", "MPI_Request", "MPI_Cancel", "MPI_Mrecv", "MPI_Imrecv",
                             "MPI_Buffer", "MPI_Init", "MPI_Finalize", "MPI_Get_processor_name"})
    if (f.starts_with(p)) return false;
  return true;
}

}  // namespace xsim::obs
