// LinkContention: the `links` contention model (-xsim-contention links; docs/network-model.md "Link
// contention"). Every message with data between two nodes is a flow over the links of its route in the
// system (outermost) network. A link carries one flow at a time, for the flow's transfer time at its
// bottleneck bandwidth. Flows are placed in the order they left their nodes (leave time, then sending
// rank, then its sequence number): at each link a flow takes the first idle interval long enough for it
// that starts no earlier than its head would arrive there on idle links, before or after the intervals
// flows that left earlier hold (so a later flow never delays an earlier one, and a flow's times are
// final once it is placed). The destination node's ejection link (its NIC) is the last link of every
// route. Its delay is its longest wait at any of its links (the bottleneck, as in a flow model).
//
// Flows are timed lazily, in that order, once every flow that left before them is known (time_upto; the
// engine gives the bound from the conservative rule). Every native process times every flow (the engine
// sends its own to the others at each window's end), so the link table is the same everywhere and the
// result does not depend on their number. A process keeps the delays of the flows its own ranks receive
// until the receiver takes them (take_delay).
//
// With share_fairly (-xsim-sharing fair or rtt), links are not held one flow at a time: the flows that
// cross a link at once share its bandwidth, max-min fair (FairShare, fair_share.hpp), and a flow's delay is
// its fluid duration minus its transfer time alone. A flow's end is decided from the flows that left by its
// horizon: its uncontended arrival less the lag the engine's conservative rule guarantees (every flow that
// left by then is known when its receiver needs the delay).
//
// Routing that depends on the message or on the links' state (Network::route_rule: dragonfly Valiant and
// UGAL, a fat tree's adaptive up ports; docs/network-model.md "Adaptive routing") is decided here, when a
// flow is placed: from the flows placed before it, in virtual time, the same in every native process. The
// message was timed by its uncontended route (route(); for UGAL and adaptive, the minimal one): a flow whose
// chosen route is longer is late by the difference too (never early).
// Layer: libxsim/runtime/core (xsim_core). Not thread-safe (the scheduler's thread).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fair_share.hpp"
#include "xsim/netmodel/network.hpp"
#include "xsim/simtime.hpp"

namespace xsim {

class LinkContention {
 public:
  // One message's data over the system network, between nodes src_node and dst_node (endpoints of
  // `system`), from world rank src (sequence number seq, unique per sender) to world rank dst.
  struct Flow {
    int64_t leave_ps;  // when its first byte leaves the source node's NIC
    uint64_t seq;
    uint64_t bytes;
    int32_t src, dst;
    int32_t src_node, dst_node;
    int64_t arrive_ps = 0;  // when its last byte would arrive alone (its horizon under fair sharing: less the lag)
  };
  // `system`: the network whose links are shared (it must list them: Network::route_links). Ranks
  // [first_local, end_local) are this process's: their flows' delays are kept for take_delay. `ejection`:
  // the destination endpoint's ejection link (a node's NIC) ends every route.
  LinkContention(const net::Network& system, int64_t first_local, int64_t end_local, bool ejection = true);
  ~LinkContention();
  LinkContention(const LinkContention&) = delete;
  LinkContention& operator=(const LinkContention&) = delete;
  // The system network of a run's network: its outermost level (messages between the cores of one node
  // cross none of its links), or the network itself when it has one level.
  static const net::Network& system_network(const net::Network& net);
  // Why a run's network cannot be used (its system level, or a level inside its nodes, does not list its
  // links), as a message naming the option and what to give instead; "" when it can.
  static std::string unsupported(const net::Network& net);

  // Shares links fairly (max-min) instead of serially: every flow's end is decided `lag` before its
  // uncontended arrival; rtt_weighted: each flow's share is weighted by the inverse of its route's latency,
  // as SimGrid's CM02 model does (TCP's bias against long round trips). Call before any flow is added.
  void share_fairly(SimTime lag, bool rtt_weighted);
  bool fair() const { return fair_ != nullptr; }

  // A flow of one of this process's ranks: timed here, and sent to the other processes (outgoing()).
  void add_local(const Flow& f, bool other_processes) {
    push(f);
    if (other_processes) outgoing_.push_back(f);
  }
  // Flows other processes sent (a window's, as bytes: whole Flow records).
  void add_remote(const char* data, size_t n);
  std::vector<Flow>& outgoing() { return outgoing_; }

  // Times every known flow that left at or before `bound`, in flow order. The caller guarantees that no
  // flow that left at or before `bound` is still to come.
  void time_upto(SimTime bound) {
    if (fair_) [[unlikely]] return time_fair(bound);
    if (!pending_.empty() && pending_.front().leave_ps <= bound.ps()) time_due(bound);
  }
  // The delay of flow (src, seq) to a local rank, once timed (zero: none); forgotten afterwards.
  SimTime take_delay(int32_t src, uint64_t seq) {
    if (delays_.empty()) return SimTime::zero();
    auto it = delays_.find(Key{src, seq});
    if (it == delays_.end()) return SimTime::zero();
    const SimTime d = SimTime::from_ps(it->second);
    delays_.erase(it);
    return d;
  }

  // For the run report: flows timed (all processes'), flows to this process's ranks that were delayed,
  // and the sum of those delays.
  uint64_t flows() const { return flows_; }
  uint64_t delayed() const { return delayed_; }
  SimTime total_delay() const { return SimTime::from_ps(total_delay_ps_); }

 private:
  struct Key {
    int32_t src;
    uint64_t seq;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return static_cast<size_t>((k.seq * 0x9e3779b97f4a7c15ull) ^ static_cast<uint32_t>(k.src));
    }
  };
  struct Later {  // min-heap on (leave, src, seq)
    bool operator()(const Flow& a, const Flow& b) const {
      if (a.leave_ps != b.leave_ps) return a.leave_ps > b.leave_ps;
      if (a.src != b.src) return a.src > b.src;
      return a.seq > b.seq;
    }
  };
  struct Busy {  // an interval [start, end) a link is held (ps)
    int64_t start, end;
  };
  // A link's busy intervals: up to kInline in the slot itself (one cache line: a route's slots are
  // prefetched together), more in lists_[spill]. (Random traffic on a 65,536-node torus keeps about 6 per
  // link; 7 inline in two lines ran 4% faster there and takes twice the memory.)
  static constexpr uint32_t kInline = 3;
  struct alignas(64) Slot {
    Busy in[kInline];
    uint32_t n;      // intervals inline (when spill == 0)
    uint32_t spill;  // 0, or the index of the link's intervals in lists_
  };
  static_assert(sizeof(Slot) == 64);
  Slot& slot(uint64_t id) { return dense_ ? dense_[id] : sparse_[id]; }
  // The wait a flow would have at link `id` (adaptive routing's view of the links: net::LinkState).
  int64_t probe(uint64_t id, int64_t head, int64_t xfer) const;
  struct State final : net::LinkState {
    const LinkContention* lc;
    int64_t wait(uint64_t id, int64_t head_ps, int64_t xfer_ps) const override { return lc->probe(id, head_ps, xfer_ps); }
  };
  int64_t adaptive_wait(const Flow& f);
  int64_t place(Slot& s, int64_t leave, int64_t head, int64_t xfer);
  void push(const Flow& f);
  void time_due(SimTime bound);
  void time_flow(const Flow& f);
  void time_fair(SimTime bound);
  void start_fair(const Flow& f);
  void keep_delay(const Flow& f, int64_t wait);

  const net::Network& system_;
  bool chooses_ = false;  // system_'s route_rule is not fixed: routes come from route_links_adaptive
  State state_;
  int64_t first_local_, end_local_;
  std::vector<Flow> pending_;                         // min-heap (later)
  std::vector<Flow> outgoing_;                        // this window's local flows, for the other processes
  // Each link's busy intervals (sorted, disjoint; those no flow still to come can reach are dropped): an
  // array of slots over the network's ids (calloc: pages are committed as links are first used) up to
  // kDenseLinks ids, else a hash map. lists_[0] is not used; spare_ lists are free for reuse.
  static constexpr uint64_t kDenseLinks = uint64_t{1} << 25;
  Slot* dense_ = nullptr;
  uint64_t eject_base_ = 0;  // slot ids from here on: the nodes' ejection links (node n: eject_base_ + n)
  bool ejection_ = true;
  std::unordered_map<uint64_t, Slot> sparse_;
  std::vector<std::vector<Busy>> lists_;
  std::vector<uint32_t> spare_;
  std::unordered_map<Key, int64_t, KeyHash> delays_;  // local receivers' delayed flows -> delay (ps)
  std::vector<net::Link> path_;                       // scratch: the route being timed
  // Fair sharing (null: serial): the fluid model, the flows under way in it (by id), the horizon lag.
  std::unique_ptr<FairShare> fair_;
  struct FairFlow {
    int32_t src, dst;
    uint64_t seq;
    int64_t leave, xfer;  // ps
  };
  std::unordered_map<uint64_t, FairFlow> fair_flows_;
  std::vector<FairShare::Use> uses_;
  std::vector<FairShare::Decided> decided_;
  uint64_t next_fair_id_ = 0;
  int64_t fair_lag_ = 0;
  bool rtt_weighted_ = false;
  uint64_t flows_ = 0, delayed_ = 0;
  int64_t total_delay_ps_ = 0;
};

}  // namespace xsim
