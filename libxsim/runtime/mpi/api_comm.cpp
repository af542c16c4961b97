// MPI communicator and group entry points. Creating a communicator costs what MPICH's context-id
// agreement costs (an allreduce over the parent), or the allgather of (color, key) for MPI_Comm_split.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "native/datatype.hpp"
#include "coll/collectives.hpp"
#include "sim_transport.hpp"

using namespace xsim;

namespace {

Engine& E() { return *g_engine; }

Group& check_group(MPI_Group g) {
  if (g == MPI_GROUP_NULL) fail(MPI_ERR_GROUP, "the group is MPI_GROUP_NULL");
  Group* p = group_lookup(g);
  if (!p) fail(MPI_ERR_GROUP, "invalid group handle");
  return *p;
}

Group group_of(const std::vector<int32_t>& members) {
  Group g;
  g.size = static_cast<int>(members.size());
  g.members = members;
  return g;
}

std::vector<int32_t> members_of(const Group& g) {
  std::vector<int32_t> m(static_cast<size_t>(g.size));
  for (int i = 0; i < g.size; ++i) m[static_cast<size_t>(i)] = g.world_of(i);
  return m;
}

// The members of `a` that are (in_b) or are not in `b`, in a's order.
MPI_Group group_filter(const Group& a, const Group& b, bool in_b) {
  std::vector<int32_t> m;
  for (int i = 0; i < a.size; ++i)
    if ((b.rank_of_world(a.world_of(i)) >= 0) == in_b) m.push_back(a.world_of(i));
  return group_create(group_of(m));
}

}  // namespace

namespace xsim {

void agree_on_context(coll::Transport& t) {
  int v = 0, out = 0;
  coll::allreduce(t, &v, &out, 1, MPI_INT, MPI_MAX);
}
void agree_on_context(Comm& parent, const char* call) {
  SimTransport t(parent, call);
  agree_on_context(t);
}

std::vector<int> exchange_color_key(coll::Transport& t, int color, int key) {
  int mine[2] = {color, key};
  std::vector<int> all(static_cast<size_t>(t.size()) * 2);
  coll::allgather(t, mine, 2, MPI_INT, all.data(), 2, MPI_INT);
  return all;
}

std::vector<int32_t> of_color(const std::vector<int32_t>& members, const std::vector<int>& ck, int color) {
  std::vector<int> idx;
  for (size_t i = 0; i < members.size(); ++i)
    if (ck[i * 2] == color) idx.push_back(static_cast<int>(i));
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return ck[static_cast<size_t>(a) * 2 + 1] < ck[static_cast<size_t>(b) * 2 + 1];
  });
  std::vector<int32_t> out(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) out[i] = members[static_cast<size_t>(idx[i])];
  return out;
}

uint64_t split_id(uint64_t next, int color) {
  return as_context_id(next ^ (static_cast<uint64_t>(static_cast<uint32_t>(color)) * 0x9e3779b97f4a7c15ull));
}

int compare_members(std::vector<int32_t> a, std::vector<int32_t> b) {
  if (a == b) return MPI_IDENT;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b ? MPI_SIMILAR : MPI_UNEQUAL;
}
MPI_Comm comm_dup_impl(MPI_Comm comm, const char* call, bool agree, bool copy_info) {
  Comm& c = check_comm(comm);
  MPI_Comm h;
  if (c.is_inter) {
    h = inter_dup(c, call, agree);
  } else {
    if (agree) agree_on_context(c, call);
    uint64_t id = comm_next_id(c, 0xd0);
    Comm* n = comm_join(id, members_of(c));
    n->name = "";
    n->topo = c.topo;  // a duplicate keeps the process topology (api_topo.cpp)
    h = n->handle;
  }
  comm_local_dup(comm, h, copy_info);  // error handler, attributes (copy callbacks), info (api_attr.cpp)
  return h;
}
}  // namespace xsim

XSIM_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_dup", comm, [&] { *newcomm = comm_dup_impl(comm, "MPI_Comm_dup", true, true); });
}

XSIM_API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_split", comm, [&] {
    Comm& c = check_comm(comm);
    if (color < 0 && color != MPI_UNDEFINED) fail(MPI_ERR_ARG, "negative color " + std::to_string(color));
    if (c.is_inter) {
      *newcomm = inter_split(c, color, key, "MPI_Comm_split");
      comm_inherit_errhandler(comm, *newcomm);
      return;
    }
    SimTransport t(c, "MPI_Comm_split");
    const std::vector<int> all = exchange_color_key(t, color, key);
    uint64_t id = comm_next_id(c, 0x5b);
    if (color == MPI_UNDEFINED) {
      *newcomm = MPI_COMM_NULL;
      return;
    }
    *newcomm = comm_join(split_id(id, color), of_color(members_of(c), all, color))->handle;
    comm_inherit_errhandler(comm, *newcomm);
  });
}

XSIM_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return guarded("MPI_Comm_create", comm, [&] {
    Comm& c = check_comm(comm);
    Group& g = check_group(group);
    if (c.is_inter) fail(MPI_ERR_COMM, "MPI_Comm_create on an intercommunicator is not supported by xsim yet");
    agree_on_context(c, "MPI_Comm_create");
    uint64_t id = comm_next_id(c, 0xc7);
    int32_t me = E().current().world;
    std::vector<int32_t> members = members_of(g);
    for (int32_t w : members)
      if (c.rank_of_world(w) < 0) fail(MPI_ERR_GROUP, "the group holds a rank that is not in the communicator");
    if (std::find(members.begin(), members.end(), me) == members.end()) {
      *newcomm = MPI_COMM_NULL;
      return;
    }
    *newcomm = comm_join(id, std::move(members))->handle;
    comm_inherit_errhandler(comm, *newcomm);
  });
}

XSIM_API int MPI_Comm_free(MPI_Comm* comm) {
  return guarded("MPI_Comm_free", *comm, [&] {
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
      fail(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
    Comm& c = check_comm(*comm);
    comm_local_free(*comm);  // attribute delete callbacks, name, info, error handler (api_attr.cpp)
    comm_release(&c);
    *comm = MPI_COMM_NULL;
  });
}

XSIM_API int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int* result) {
  return guarded("MPI_Comm_compare", a, [&] {
    Comm& ca = check_comm(a);
    Comm& cb = check_comm(b);
    if (&ca == &cb) {
      *result = MPI_IDENT;
      return;
    }
    if (ca.is_inter || cb.is_inter) {
      *result = inter_compare(ca, cb);
      return;
    }
    const int same = compare_members(members_of(ca), members_of(cb));
    *result = same == MPI_IDENT ? MPI_CONGRUENT : same;  // the same group, another context
  });
}

XSIM_API int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return guarded("MPI_Comm_group", comm, [&] {
    Comm& c = check_comm(comm);
    if (c.members.empty()) {
      Group g;
      g.identity = true;
      g.size = c.size;
      *group = group_create(std::move(g));
    } else {
      *group = group_create(group_of(c.members));
    }
  });
}

XSIM_API int MPI_Group_size(MPI_Group group, int* size) {
  return guarded("MPI_Group_size", MPI_COMM_WORLD, [&] { *size = check_group(group).size; });
}

XSIM_API int MPI_Group_rank(MPI_Group group, int* rank) {
  return guarded("MPI_Group_rank", MPI_COMM_WORLD, [&] {
    int r = check_group(group).rank_of_world(E().current().world);
    *rank = r < 0 ? MPI_UNDEFINED : r;
  });
}

// The group of g's ranks listed (in that order), or of the others (in g's order).
static MPI_Group group_incl(Group& g, int n, const int ranks[]) {
  check_count(n);
  std::vector<int32_t> m(static_cast<size_t>(n));
  std::vector<char> seen(static_cast<size_t>(g.size), 0);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= g.size) fail(MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " is not in the group");
    if (seen[static_cast<size_t>(ranks[i])]++) fail(MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " listed twice");
    m[static_cast<size_t>(i)] = g.world_of(ranks[i]);
  }
  return group_create(group_of(m));
}

static MPI_Group group_excl(Group& g, int n, const int ranks[]) {
  check_count(n);
  std::vector<char> drop(static_cast<size_t>(g.size), 0);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= g.size) fail(MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " is not in the group");
    if (drop[static_cast<size_t>(ranks[i])]++) fail(MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " listed twice");
  }
  std::vector<int32_t> m;
  for (int i = 0; i < g.size; ++i)
    if (!drop[static_cast<size_t>(i)]) m.push_back(g.world_of(i));
  return group_create(group_of(m));
}

XSIM_API int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return guarded("MPI_Group_incl", MPI_COMM_WORLD,
                 [&] { *newgroup = group_incl(check_group(group), n, ranks); });
}

XSIM_API int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return guarded("MPI_Group_excl", MPI_COMM_WORLD,
                 [&] { *newgroup = group_excl(check_group(group), n, ranks); });
}

// The ranks (first, last, stride) triplets name, in order: first, first + stride, ... up to last
// (MPI-3.1 §6.3.2; first > last goes with a negative stride; an empty triplet names none).
static std::vector<int> range_ranks(const Group& g, int n, const int ranges[][3]) {
  check_count(n);
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    const std::string which = "range " + std::to_string(i) + " (" + std::to_string(first) + ", " +
                              std::to_string(last) + ", " + std::to_string(stride) + ")";
    if (stride == 0) fail(MPI_ERR_ARG, which + " has stride 0");
    if (first < 0 || first >= g.size || last < 0 || last >= g.size)
      fail(MPI_ERR_RANK, which + " names a rank outside the group of " + std::to_string(g.size));
    for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push_back(static_cast<int>(r));
  }
  return out;
}

XSIM_API int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return guarded("MPI_Group_range_incl", MPI_COMM_WORLD, [&] {
    Group& g = check_group(group);
    std::vector<int> r = range_ranks(g, n, ranges);
    *newgroup = group_incl(g, static_cast<int>(r.size()), r.data());
  });
}

XSIM_API int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return guarded("MPI_Group_range_excl", MPI_COMM_WORLD, [&] {
    Group& g = check_group(group);
    std::vector<int> r = range_ranks(g, n, ranges);
    *newgroup = group_excl(g, static_cast<int>(r.size()), r.data());
  });
}

XSIM_API int MPI_Group_translate_ranks(MPI_Group a, int n, const int ranks_a[], MPI_Group b, int ranks_b[]) {
  return guarded("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&] {
    Group& ga = check_group(a);
    Group& gb = check_group(b);
    check_count(n);
    for (int i = 0; i < n; ++i) {
      if (ranks_a[i] == MPI_PROC_NULL) {
        ranks_b[i] = MPI_PROC_NULL;
        continue;
      }
      if (ranks_a[i] < 0 || ranks_a[i] >= ga.size) fail(MPI_ERR_RANK, "rank " + std::to_string(ranks_a[i]) + " is not in the first group");
      int r = gb.rank_of_world(ga.world_of(ranks_a[i]));
      ranks_b[i] = r < 0 ? MPI_UNDEFINED : r;
    }
  });
}

XSIM_API int MPI_Group_compare(MPI_Group a, MPI_Group b, int* result) {
  return guarded("MPI_Group_compare", MPI_COMM_WORLD, [&] {
    *result = compare_members(members_of(check_group(a)), members_of(check_group(b)));
  });
}

XSIM_API int MPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return guarded("MPI_Group_union", MPI_COMM_WORLD, [&] {
    Group& gb = check_group(b);
    std::vector<int32_t> m = members_of(check_group(a));
    Group ga_copy = group_of(m);
    for (int i = 0; i < gb.size; ++i)
      if (ga_copy.rank_of_world(gb.world_of(i)) < 0) m.push_back(gb.world_of(i));
    *out = group_create(group_of(m));
  });
}

XSIM_API int MPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return guarded("MPI_Group_intersection", MPI_COMM_WORLD, [&] {
    Group& ga = check_group(a);
    *out = group_filter(ga, check_group(b), true);
  });
}

XSIM_API int MPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group* out) {
  return guarded("MPI_Group_difference", MPI_COMM_WORLD, [&] {
    Group& ga = check_group(a);
    *out = group_filter(ga, check_group(b), false);
  });
}

XSIM_API int MPI_Group_free(MPI_Group* group) {
  return guarded("MPI_Group_free", MPI_COMM_WORLD, [&] {
    check_group(*group);
    group_free(*group);
    *group = MPI_GROUP_NULL;
  });
}

// Packing needs no communicator in practice; the native MPI packs with MPI_COMM_SELF.
XSIM_API int MPI_Pack(const void* in, int count, MPI_Datatype type, void* out, int outsize, int* pos, MPI_Comm comm) {
  return guarded("MPI_Pack", comm, [&] {
    check_comm(comm);
    int rc = MPI_SUCCESS;
    native::on_deep_stack([&] { rc = PMPI_Pack(in, count, type, out, outsize, pos, MPI_COMM_SELF); });
    if (rc != MPI_SUCCESS) fail(rc, "packing failed");
  });
}

XSIM_API int MPI_Unpack(const void* in, int insize, int* pos, void* out, int count, MPI_Datatype type, MPI_Comm comm) {
  return guarded("MPI_Unpack", comm, [&] {
    check_comm(comm);
    int rc = MPI_SUCCESS;
    native::on_deep_stack([&] { rc = PMPI_Unpack(in, insize, pos, out, count, type, MPI_COMM_SELF); });
    if (rc != MPI_SUCCESS) fail(rc, "unpacking failed");
  });
}

XSIM_API int MPI_Pack_size(int count, MPI_Datatype type, MPI_Comm comm, int* size) {
  return guarded("MPI_Pack_size", comm, [&] {
    check_comm(comm);
    int rc = PMPI_Pack_size(count, type, MPI_COMM_SELF, size);
    if (rc != MPI_SUCCESS) fail(rc, "MPI_Pack_size failed");
  });
}
