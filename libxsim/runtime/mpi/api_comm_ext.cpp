// Communicator constructors beyond split/dup/create: MPI_Comm_split_type, MPI_Comm_create_group,
// MPI_Comm_dup_with_info, MPI_Comm_idup(_with_info). Layer: libxsim/runtime/mpi (xsim_mpi).
// Contract: as everywhere in xsim, a new communicator's context id is derived from its parent's without
// talking (comm_next_id); the messages these calls send model MPICH's cost only:
//  - split_type: the allgather of (color, key) of MPI_Comm_split; the colour of MPI_COMM_TYPE_SHARED is the
//    rank's simulated node (Engine::node_of), so a node is what shares memory;
//  - create_group: an allreduce among the group's members only (MPICH's group-collective context-id
//    agreement), on a context derived from (parent, group, tag), so only members take part;
//  - idup: the dup happens at once (every member derives the same id on its own, so this is safe whatever
//    the others are doing); the allreduce that models the agreement runs as a nonblocking collective, and
//    the request completes with it.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "coll/collectives.hpp"
#include "sim_transport.hpp"

using namespace xsim;

namespace {

Engine& E() { return *g_engine; }

// MPI_Comm_split's algorithm with the colours given: allgather of (color, key), members of my colour
// ordered by key then parent rank.
MPI_Comm split_with(Comm& c, int color, int key, uint64_t salt, const char* call) {
  SimTransport t(c, call);
  const std::vector<int> all = exchange_color_key(t, color, key);
  uint64_t id = comm_next_id(c, salt);
  if (color == MPI_UNDEFINED) return MPI_COMM_NULL;
  const uint64_t cid = as_context_id(id ^ context_mix(static_cast<uint32_t>(color)));
  return comm_join(cid, of_color(members_of(c), all, color))->handle;
}

// The info value of `key`, or "" when absent (or info is MPI_INFO_NULL).
std::string info_value(MPI_Info info, const char* key) {
  if (info == MPI_INFO_NULL) return "";
  int len = 0, flag = 0;
  if (PMPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS || !flag) return "";
  std::vector<char> v(static_cast<size_t>(len) + 1, '\0');
  native::info_get_value(info, key, len, v.data(), &flag);
  return v.data();
}

// True when the ranks of `c` do not all share one value of `level(world rank)`.
template <class F>
bool spans(const Comm& c, F level) {
  for (int i = 1; i < c.size; ++i)
    if (level(c.world_of(i)) != level(c.world_of(0))) return true;
  return false;
}

}  // namespace

XSIM_API int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_split_type", comm, [&] {
    Comm& c = check_comm(comm);
    if (c.is_inter) fail(MPI_ERR_COMM, "MPI_Comm_split_type needs an intracommunicator");
    const int32_t me = E().current().world;
    auto node = [](int32_t w) { return E().node_of(w); };
    auto core = [](int32_t w) { return static_cast<int64_t>(E().core_of(w)); };
    int color;
    switch (split_type) {
      case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
      case MPI_COMM_TYPE_SHARED: color = static_cast<int>(node(me)); break;
#if MPI_VERSION >= 4  // MPI-4 split types (Open MPI 4's mpi.h has neither)
      case MPI_COMM_TYPE_HW_GUIDED: {
        // The standard's required value; any other (or none) is "not recognized": MPI_COMM_NULL.
        const std::string v = info_value(info, "mpi_hw_resource_type");
        color = v == "mpi_shared_memory" ? static_cast<int>(node(me)) : MPI_UNDEFINED;
        break;
      }
      case MPI_COMM_TYPE_HW_UNGUIDED:
        // The outermost hardware level that cuts `comm` into strictly smaller parts: simulated nodes, then
        // cores; none (everything on one core): MPI_COMM_NULL.
        if (spans(c, node)) color = static_cast<int>(node(me));
        else if (spans(c, core)) color = static_cast<int>(core(me));
        else color = MPI_UNDEFINED;
        break;
#endif
      default:
        fail(MPI_ERR_ARG, "unknown split_type " + std::to_string(split_type) +
                              " (MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED or "
                              "MPI_UNDEFINED)");
    }
    *newcomm = split_with(c, color, key, 0x57, "MPI_Comm_split_type");
    comm_inherit_errhandler(comm, *newcomm);
  });
}

XSIM_API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_create_group", comm, [&] {
    Comm& c = check_comm(comm);
    if (c.is_inter) fail(MPI_ERR_COMM, "MPI_Comm_create_group needs an intracommunicator");
    if (group == MPI_GROUP_NULL) fail(MPI_ERR_GROUP, "the group is MPI_GROUP_NULL");
    Group* g = group_lookup(group);
    if (!g) fail(MPI_ERR_GROUP, "invalid group handle");
    check_send_tag(tag);
    std::vector<int32_t> members(static_cast<size_t>(g->size));
    uint64_t h = context_mix(c.id ^ 0xc9);
    for (int i = 0; i < g->size; ++i) {
      members[static_cast<size_t>(i)] = g->world_of(i);
      if (c.rank_of_world(members[static_cast<size_t>(i)]) < 0)
        fail(MPI_ERR_GROUP, "the group holds a rank that is not in the communicator");
      h = context_mix(h ^ static_cast<uint32_t>(members[static_cast<size_t>(i)]));
    }
    const int32_t me = E().current().world;
    if (std::find(members.begin(), members.end(), me) == members.end()) {
      *newcomm = MPI_COMM_NULL;  // as MPICH: a non-member gets MPI_COMM_NULL without communicating
      return;
    }
    const uint64_t key = context_mix(h ^ static_cast<uint32_t>(tag));
    // The agreement among the members only: an allreduce on a context private to (parent, group, tag).
    Comm among;
    among.id = as_context_id(context_mix(key ^ 0xa6));
    among.handle = comm;  // for deadlock reports
    among.size = g->size;
    among.members = members;
    for (int i = 0; i < g->size; ++i) among.rank_of[members[static_cast<size_t>(i)]] = i;
    agree_on_context(among, "MPI_Comm_create_group");
    *newcomm = comm_join(comm_next_id(key, 0xc6), std::move(members))->handle;
    comm_inherit_errhandler(comm, *newcomm);
  });
}

XSIM_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_dup_with_info", comm, [&] {
    MPI_Comm h = comm_dup_impl(comm, "MPI_Comm_dup_with_info", true, false);
    comm_local_set_info(h, info);
    *newcomm = h;
  });
}

namespace {
void idup(MPI_Comm comm, MPI_Info info, bool with_info, MPI_Comm* newcomm, MPI_Request* req, const char* call) {
  Comm& c = check_comm(comm);
  MPI_Comm h = comm_dup_impl(comm, call, false, !with_info);
  if (with_info) comm_local_set_info(h, info);
  if (c.is_inter) {
    *req = to_handle(completed_null_request(false));  // nothing to model on the intercommunicator's side
  } else {
    *req = start_nbc(c, call, [](coll::Transport& t) { agree_on_context(t); });
  }
  *newcomm = h;
}
}  // namespace

XSIM_API int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* req) {
  return guarded("MPI_Comm_idup", comm,
                 [&] { idup(comm, MPI_INFO_NULL, false, newcomm, req, "MPI_Comm_idup"); });
}

XSIM_API int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* req) {
  return guarded("MPI_Comm_idup_with_info", comm,
                 [&] { idup(comm, info, true, newcomm, req, "MPI_Comm_idup_with_info"); });
}
