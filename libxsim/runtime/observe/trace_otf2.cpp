#include "trace_otf2.hpp"

#include <dirent.h>
#include <otf2/otf2.h>
#include <unistd.h>

#include <map>
#include <set>

#include "engine.hpp"
#include "native/gather.hpp"
#include "native/otf2_collectives.hpp"
#include "observe/mpi_calls.hpp"
#include "xsim.h"

namespace xsim {

namespace {

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlush = {pre_flush, nullptr};

OTF2_RegionRole role_of(const std::string& name) {
  if (name == obs::kDetourRegion) return OTF2_REGION_ROLE_ARTIFICIAL;  // a noise detour: no code of the program
  switch (obs::call_role(name)) {
    case obs::CallRole::point_to_point: return OTF2_REGION_ROLE_POINT2POINT;
    case obs::CallRole::barrier: return OTF2_REGION_ROLE_BARRIER;
    case obs::CallRole::one_to_all: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case obs::CallRole::all_to_one: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case obs::CallRole::all_to_all: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case obs::CallRole::other_collective: return OTF2_REGION_ROLE_COLL_OTHER;
    default: return OTF2_REGION_ROLE_FUNCTION;
  }
}

// A previous archive of the same name: its anchor and definition files, and the directory of event and
// local definition files (only files OTF2 writes there are removed; anything else keeps the directory).
void remove_previous(const std::string& dir, const std::string& name) {
  const std::string base = dir + "/" + name;
  unlink((base + ".otf2").c_str());
  unlink((base + ".def").c_str());
  if (DIR* d = opendir(base.c_str())) {
    while (dirent* ent = readdir(d)) {
      std::string f = ent->d_name;
      auto ends = [&](const char* s) {
        std::string x = s;
        return f.size() > x.size() && f.compare(f.size() - x.size(), x.size(), x) == 0;
      };
      if (ends(".evt") || ends(".def") || ends(".snap") || ends(".thumb")) unlink((base + "/" + f).c_str());
    }
    closedir(d);
    rmdir(base.c_str());
  }
}

class Globals {
 public:
  explicit Globals(OTF2_GlobalDefWriter* w) : w_(w) {}
  OTF2_StringRef str(const std::string& s) {
    auto [it, fresh] = ids_.try_emplace(s, static_cast<OTF2_StringRef>(ids_.size()));
    if (fresh) ok(OTF2_GlobalDefWriter_WriteString(w_, it->second, s.c_str()));
    return it->second;
  }
  void ok(OTF2_ErrorCode c) {
    if (c != OTF2_SUCCESS && err_.empty()) err_ = OTF2_Error_GetDescription(c);
  }
  const std::string& error() const { return err_; }

 private:
  OTF2_GlobalDefWriter* w_;
  std::map<std::string, OTF2_StringRef> ids_;
  std::string err_;
};

std::string global_definitions(OTF2_Archive* a, const Engine& e, const Otf2Definitions& defs,
                               const std::vector<uint64_t>& counts, int64_t end_ps) {
  OTF2_GlobalDefWriter* w = OTF2_Archive_GetGlobalDefWriter(a);
  if (!w) return "cannot open the global definitions";
  Globals g(w);
  const int64_t m = e.world_size();
  g.ok(OTF2_GlobalDefWriter_WriteClockProperties(w, 1'000'000'000'000ull, 0, static_cast<uint64_t>(end_ps) + 1,
                                                  OTF2_UNDEFINED_TIMESTAMP));
  g.ok(OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_MPI, g.str("MPI"), OTF2_PARADIGM_CLASS_PROCESS));
  const OTF2_StringRef empty = g.str("");
  // System tree: the simulated machine, its nodes (those holding ranks), a location group per rank.
  g.ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, g.str("xsim simulated machine"), g.str("machine"),
                                                OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  std::map<int64_t, OTF2_SystemTreeNodeRef> node_ref;
  const OTF2_StringRef node_class = g.str("node");
  for (int64_t r = 0; r < m; ++r) {
    auto [it, fresh] = node_ref.try_emplace(e.node_of(r), static_cast<OTF2_SystemTreeNodeRef>(node_ref.size() + 1));
    if (fresh)
      g.ok(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, it->second, g.str("node " + std::to_string(it->first)),
                                                    node_class, 0));
  }
  for (int64_t r = 0; r < m; ++r) {
    OTF2_StringRef name = g.str("rank " + std::to_string(r));
    g.ok(OTF2_GlobalDefWriter_WriteLocationGroup(w, static_cast<OTF2_LocationGroupRef>(r), name,
                                                 OTF2_LOCATION_GROUP_TYPE_PROCESS, node_ref[e.node_of(r)],
                                                 OTF2_UNDEFINED_LOCATION_GROUP));
    g.ok(OTF2_GlobalDefWriter_WriteLocation(w, static_cast<OTF2_LocationRef>(r), name, OTF2_LOCATION_TYPE_CPU_THREAD,
                                            counts[static_cast<size_t>(r)], static_cast<OTF2_LocationGroupRef>(r)));
  }
  for (size_t i = 0; i < defs.regions.size(); ++i) {
    OTF2_StringRef name = g.str(defs.regions[i]);
    g.ok(OTF2_GlobalDefWriter_WriteRegion(w, static_cast<OTF2_RegionRef>(i), name, name, empty,
                                          role_of(defs.regions[i]), OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty,
                                          0, 0));
  }
  // MPI's communicators: every location takes part; every communicator's group is all ranks in world order.
  std::vector<uint64_t> members(static_cast<size_t>(m));
  for (int64_t r = 0; r < m; ++r) members[static_cast<size_t>(r)] = static_cast<uint64_t>(r);
  g.ok(OTF2_GlobalDefWriter_WriteGroup(w, 0, g.str("MPI locations"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(m),
                                       members.data()));
  g.ok(OTF2_GlobalDefWriter_WriteGroup(w, 1, g.str("all ranks"), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                       OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(m), members.data()));
  for (size_t i = 0; i < defs.comms.size(); ++i)
    g.ok(OTF2_GlobalDefWriter_WriteComm(w, static_cast<OTF2_CommRef>(i), g.str(defs.comms[i].second), 1,
                                        OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
  g.ok(OTF2_Archive_CloseGlobalDefWriter(a, w));
  return g.error();
}

// The events of one rank. Returns the first error, or "".
std::string rank_events(OTF2_EvtWriter* w, const std::vector<obs::TraceEvent>& events,
                        const std::vector<uint32_t>& local_region, const std::vector<int>& op_of_region,
                        const std::unordered_map<uint64_t, uint32_t>& comm_of) {
  OTF2_ErrorCode rc = OTF2_SUCCESS;
  auto ok = [&](OTF2_ErrorCode c) {
    if (c != OTF2_SUCCESS && rc == OTF2_SUCCESS) rc = c;
  };
  auto comm = [&](uint64_t ctx) {
    auto it = comm_of.find(ctx);
    return it == comm_of.end() ? OTF2_UNDEFINED_COMM : it->second;
  };
  int op = -1;
  uint64_t call_ctx = obs::kNoContext, sent = 0, received = 0;
  for (const obs::TraceEvent& e : events) {
    const OTF2_TimeStamp t = static_cast<OTF2_TimeStamp>(e.time);
    switch (e.kind) {
      case obs::EventKind::Enter: {
        const uint32_t region = local_region[e.value];
        ok(OTF2_EvtWriter_Enter(w, nullptr, t, region));
        op = e.ctx == obs::kNoContext ? -1 : op_of_region[region];
        call_ctx = e.ctx;
        sent = received = 0;
        if (op >= 0) ok(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t));
        break;
      }
      case obs::EventKind::Leave:
        if (op >= 0)  // collectives run on the communicator's collective context (point-to-point + 1)
          ok(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, static_cast<OTF2_CollectiveOp>(op), comm(call_ctx + 1),
                                             OTF2_COLLECTIVE_ROOT_NONE, sent, received));
        ok(OTF2_EvtWriter_Leave(w, nullptr, t, local_region[e.value]));
        op = -1;
        break;
      case obs::EventKind::Send:
        sent += e.value;
        ok(OTF2_EvtWriter_MpiSend(w, nullptr, t, static_cast<uint32_t>(e.peer), comm(e.ctx),
                                  static_cast<uint32_t>(e.tag), e.value));
        break;
      case obs::EventKind::Recv:
        received += e.value;
        ok(OTF2_EvtWriter_MpiRecv(w, nullptr, t, static_cast<uint32_t>(e.peer), comm(e.ctx),
                                  static_cast<uint32_t>(e.tag), e.value));
        break;
    }
  }
  return rc == OTF2_SUCCESS ? std::string() : OTF2_Error_GetDescription(rc);
}

}  // namespace

std::string write_otf2(const std::string& dir, const std::string& name, const Engine& e, const obs::TraceBuffer& buf,
                       const Otf2Definitions& defs, const std::vector<uint32_t>& local_region, int64_t end_ps,
                       uint64_t& events) {
  const bool root = e.proc() == 0;
  if (root) remove_previous(dir, name);
  // The smallest chunks OTF2 allows: every location's writer fills (and clears) one chunk at a time.
  OTF2_Archive* a = OTF2_Archive_Open(dir.c_str(), name.c_str(), OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                      OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (native::any_true(!a)) return "cannot create the OTF2 archive " + dir + "/" + name + ".otf2";
  std::string err;
  auto ok = [&](OTF2_ErrorCode c, const char* what) {
    if (c != OTF2_SUCCESS && err.empty()) err = std::string(what) + ": " + OTF2_Error_GetDescription(c);
  };
  ok(OTF2_Archive_SetFlushCallbacks(a, &kFlush, nullptr), "flush callbacks");
  ok(native::otf2_use_native_collectives(a), "collective callbacks");
  OTF2_Archive_SetCreator(a, "xsim " XSIM_VERSION_STRING);
  OTF2_Archive_SetDescription(a, "MPI calls and messages of an xsim simulation, in virtual time (1 tick = 1 ps)");
  OTF2_Archive_SetMachineName(a, "xsim simulated machine");
  if (native::any_true(!err.empty())) return err.empty() ? "another native process could not set up the archive" : err;

  std::vector<int> op_of_region(defs.regions.size());
  for (size_t i = 0; i < defs.regions.size(); ++i) op_of_region[i] = obs::collective_op(defs.regions[i]);
  std::unordered_map<uint64_t, uint32_t> comm_of;
  for (size_t i = 0; i < defs.comms.size(); ++i) comm_of[defs.comms[i].first] = static_cast<uint32_t>(i);

  ok(OTF2_Archive_OpenEvtFiles(a), "opening event files");
  std::vector<uint64_t> counts(buf.ranks(), 0);
  std::vector<obs::TraceEvent> ev;
  for (size_t i = 0; i < buf.ranks() && err.empty(); ++i) {
    const OTF2_LocationRef loc = static_cast<OTF2_LocationRef>(e.world_of_local(static_cast<long>(i)));
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, loc);
    if (!w) {
      err = "cannot open the event file of rank " + std::to_string(loc);
      break;
    }
    buf.read(i, ev);
    std::string bad = rank_events(w, ev, local_region, op_of_region, comm_of);
    if (!bad.empty()) err = "rank " + std::to_string(loc) + ": " + bad;
    OTF2_EvtWriter_GetNumberOfEvents(w, &counts[i]);
    ok(OTF2_Archive_CloseEvtWriter(a, w), "closing an event file");
  }
  ok(OTF2_Archive_CloseEvtFiles(a), "closing event files");
  // Empty local definition files (one per location, as readers expect): all definitions are global.
  ok(OTF2_Archive_OpenDefFiles(a), "opening definition files");
  for (size_t i = 0; i < buf.ranks(); ++i) {
    OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(a, static_cast<OTF2_LocationRef>(e.world_of_local(static_cast<long>(i))));
    if (d) ok(OTF2_Archive_CloseDefWriter(a, d), "closing a definition file");
  }
  ok(OTF2_Archive_CloseDefFiles(a), "closing definition files");
  std::vector<uint64_t> all = native::gather_u64(counts);
  events = 0;
  if (root) {
    for (uint64_t n : all) events += n;
    std::string g = global_definitions(a, e, defs, all, end_ps);
    if (err.empty() && !g.empty()) err = "global definitions: " + g;
  }
  ok(OTF2_Archive_Close(a), "closing the archive");
  if (native::any_true(!err.empty())) return err.empty() ? "another native process could not write its events" : err;
  return "";
}

}  // namespace xsim
