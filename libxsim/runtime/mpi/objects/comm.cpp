#include "comm.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "engine.hpp"
#include "handles.hpp"

namespace xsim {

Comm g_comm_world;

namespace {

using handles::Kind;

Comm& g_world = g_comm_world;
std::vector<Comm*> g_comms;                   // by handle index
std::vector<uint32_t> g_free_comms;
std::unordered_map<uint64_t, Comm*> g_by_id;  // live communicators by context id
std::vector<std::unique_ptr<Group>> g_groups;
std::vector<uint32_t> g_free_groups;
Group g_empty_group;

}  // namespace

uint64_t context_mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::vector<int32_t> members_of(const Comm& c) {
  std::vector<int32_t> m(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) m[static_cast<size_t>(i)] = c.world_of(i);
  return m;
}

RankExtra& rank_extra() {
  Rank& r = g_engine->current();
  if (!r.extra) r.extra = new RankExtra();
  return *r.extra;
}

// Frees a rank's RankExtra and its MPI_COMM_SELF at teardown (the engine's Hooks::free_rank_state).
void rank_extra_free(Rank& r) {
  if (!r.extra) return;
  delete r.extra->self;  // a rank's MPI_COMM_SELF is its own, never registered nor released
  delete r.extra;
  r.extra = nullptr;
}

int32_t Group::rank_of_world(int32_t w) const {
  if (identity) return w < size ? w : -1;
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] == w) return static_cast<int32_t>(i);
  return -1;
}

void comm_init_world(int64_t world_size) {
  g_world.id = 1;
  g_world.handle = MPI_COMM_WORLD;
  g_world.size = static_cast<int>(world_size);
  g_world.name = "MPI_COMM_WORLD";
  g_by_id[g_world.id] = &g_world;
}

Comm* comm_lookup(MPI_Comm h) {
  if (h == MPI_COMM_WORLD) return &g_world;
  if (h == MPI_COMM_SELF) {
    RankExtra& x = rank_extra();
    if (!x.self) {
      x.self = new Comm();
      int32_t me = g_engine->current().world;
      x.self->id = context_mix(0x5e1f0000ull ^ static_cast<uint64_t>(me)) | (1ull << 62);
      x.self->handle = MPI_COMM_SELF;
      x.self->size = 1;
      x.self->members = {me};
      x.self->rank_of[me] = 0;
      x.self->is_self = true;
      x.self->name = "MPI_COMM_SELF";
    }
    return x.self;
  }
  uint32_t i = 0;
  if (!handles::decode(Kind::Comm, h, &i) || i >= g_comms.size() || !g_comms[i]) return nullptr;
  Comm* c = g_comms[i];
  return c->rank_of_world(g_engine->current().world) >= 0 ? c : nullptr;
}

uint64_t comm_next_id(const Comm& parent, uint64_t salt) { return comm_next_id(parent.id, salt); }

uint64_t comm_next_id(uint64_t parent_key, uint64_t salt) {
  RankExtra& x = rank_extra();
  uint32_t seq = 0;
  auto it = std::find_if(x.created.begin(), x.created.end(), [&](auto& p) { return p.first == parent_key; });
  if (it == x.created.end()) {
    x.created.emplace_back(parent_key, 1);
  } else {
    seq = it->second++;
  }
  return as_context_id(context_mix(parent_key ^ context_mix((static_cast<uint64_t>(seq) << 32) ^ salt)));
}

Comm* comm_join(uint64_t id, std::vector<int32_t> members) {
  auto it = g_by_id.find(id);
  if (it != g_by_id.end()) {
    ++it->second->local_refs;
    return it->second;
  }
  auto* c = new Comm();
  c->id = id;
  c->size = static_cast<int>(members.size());
  for (size_t i = 0; i < members.size(); ++i) c->rank_of[members[i]] = static_cast<int32_t>(i);
  c->members = std::move(members);
  c->local_refs = 1;
  uint32_t idx;
  if (!g_free_comms.empty()) {
    idx = g_free_comms.back();
    g_free_comms.pop_back();
    g_comms[idx] = c;
  } else {
    idx = static_cast<uint32_t>(g_comms.size());
    g_comms.push_back(c);
  }
  c->handle = handles::make<MPI_Comm>(Kind::Comm, idx);
  g_by_id[id] = c;
  return c;
}

void comm_release(Comm* c) {
  if (c == &g_world || c->is_self) return;
  if (--c->local_refs > 0) return;
  if (c->local) comm_release(c->local);  // an intercommunicator's hidden local group
  g_by_id.erase(c->id);
  uint32_t idx = 0;
  handles::decode(Kind::Comm, c->handle, &idx);
  g_comms[idx] = nullptr;
  g_free_comms.push_back(idx);
  delete c;
}

void comm_free_all() {
  for (Comm*& c : g_comms)
    if (c && c != &g_world && !c->is_self) {  // an intercommunicator's hidden local group is an entry too
      delete c;
      c = nullptr;
    }
  g_comms.clear();
  g_free_comms.clear();
  g_by_id.clear();
  g_by_id[g_world.id] = &g_world;
}

MPI_Errhandler comm_errhandler(MPI_Comm h) {
  Rank& r = g_engine->current();
  if (r.extra)
    for (auto& [c, e] : r.extra->errhandlers)
      if (c == h) return e;
  return MPI_ERRORS_ARE_FATAL;
}

void comm_set_errhandler(MPI_Comm h, MPI_Errhandler e) {
  RankExtra& x = rank_extra();
  for (auto& [c, old] : x.errhandlers)
    if (c == h) {
      old = e;
      return;
    }
  x.errhandlers.emplace_back(h, e);
}

std::string describe_comm(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) return "MPI_COMM_WORLD";
  if (c == MPI_COMM_SELF) return "MPI_COMM_SELF";
  if (c == MPI_COMM_NULL) return "no communicator";
  // Named by its MPICH-style number (the Fortran integer), the same text whatever the native MPI.
  char buf[64];
  uint32_t idx = 0;
  const bool ours = handles::decode(Kind::Comm, c, &idx);
  const Comm* known = ours && idx < g_comms.size() ? g_comms[idx] : nullptr;
  if (known && !known->name.empty()) return known->name;
  if (known)
    std::snprintf(buf, sizeof buf, "communicator 0x%08x (%d ranks)",
                  static_cast<unsigned>(handles::to_fint(Kind::Comm, idx)), known->size);
  else if (ours)
    std::snprintf(buf, sizeof buf, "communicator 0x%08x", static_cast<unsigned>(handles::to_fint(Kind::Comm, idx)));
  else
    std::snprintf(buf, sizeof buf, "communicator 0x%08llx", static_cast<unsigned long long>(native::handle_bits(c)));
  return buf;
}

MPI_Group group_create(Group g) {
  if (g.size == 0) return MPI_GROUP_EMPTY;
  uint32_t idx;
  if (!g_free_groups.empty()) {
    idx = g_free_groups.back();
    g_free_groups.pop_back();
    g_groups[idx] = std::make_unique<Group>(std::move(g));
  } else {
    idx = static_cast<uint32_t>(g_groups.size());
    g_groups.push_back(std::make_unique<Group>(std::move(g)));
  }
  return handles::make<MPI_Group>(Kind::Group, idx);
}

Group* group_lookup(MPI_Group h) {
  if (h == MPI_GROUP_EMPTY) return &g_empty_group;
  uint32_t i = 0;
  if (!handles::decode(Kind::Group, h, &i) || i >= g_groups.size() || !g_groups[i]) return nullptr;
  return g_groups[i].get();
}

void group_free(MPI_Group h) {
  if (h == MPI_GROUP_EMPTY) return;
  uint32_t i = 0;
  if (!handles::decode(Kind::Group, h, &i)) return;
  g_groups[i].reset();
  g_free_groups.push_back(i);
}

}  // namespace xsim
