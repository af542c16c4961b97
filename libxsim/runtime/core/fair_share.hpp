// FairShare: the fluid flow model behind -xsim-sharing fair (docs/network-model.md "Fair sharing"). Flows
// cross links of given capacities; at every instant each link's capacity is divided among the flows that
// cross it by weighted max-min fairness (progressive filling: the link with the smallest capacity per unit
// of weight fixes its flows' rates, which are taken off their other links, and so on), and the flows'
// remaining bits drain at those rates. Time advances from event to event (a flow starts or ends), the rates
// recomputed at each.
//
// Decisions and determinism: a flow's end depends on flows that start after it. Each flow carries a
// horizon (>= its start): its end is decided from the flows that start at or before its horizon, as if no
// later flow came (a projection of the fluid state at the horizon). The caller guarantees that every flow
// starting at or before `bound` was added before advance(bound); events are processed in time order and the
// state only changes at event times, never at the bounds, so the decided ends do not depend on the bounds
// the caller happens to give (the number of native processes). A flow that starts after another's horizon
// but before its decided end changes the shares of the links they both cross from then on, but not the
// earlier flow's decided end (the approximation; when every flow's horizon is at or after its end, the
// result is the exact fluid model).
// Layer: libxsim/runtime/core (xsim_core). Pure: no engine state. Not thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace xsim {

class FairShare {
 public:
  struct Use {  // a link a flow crosses: its id and capacity (bits per second)
    uint64_t link;
    uint64_t bps;
  };
  struct Decided {  // a flow's end, once decided (ps)
    uint64_t id;
    int64_t end_ps;
  };

  // A flow of `bits` over `links` from start_ps on, decided at horizon_ps (>= start_ps); weight > 0 (its
  // share of a link relative to the others there). Flows must be added in start order.
  void add(uint64_t id, int64_t start_ps, int64_t horizon_ps, double bits, double weight, const std::vector<Use>& links);
  // Processes the events up to `bound` and appends to `out` every flow whose end is now decided. The caller
  // guarantees that every flow that starts at or before `bound` was added.
  void advance(int64_t bound, std::vector<Decided>& out);
  size_t active() const { return state_.flows.size(); }

  // Weighted max-min rates (bits per ps) of flows over links, by progressive filling: flow i crosses the
  // links routes[i] (indices into capacity, bits per ps) with weight weights[i]. Exposed for the tests.
  static std::vector<double> max_min(const std::vector<std::vector<uint32_t>>& routes,
                                     const std::vector<double>& weights, const std::vector<double>& capacity);

 private:
  struct Flow {
    uint64_t id;
    int64_t start, horizon;
    double left, weight, rate;  // bits still to send (as of now_), weight, rate (bits per ps)
    int64_t end;                // when it ends at the current rates
    bool decided;
    std::vector<uint32_t> links;  // indices into caps_
  };
  struct State {  // the fluid state at `now`: the flows under way, in start order
    int64_t now = 0;
    std::vector<Flow> flows;
  };
  struct Horizon {  // min-heap of the undecided flows' horizons
    int64_t at;
    uint64_t id;
    bool operator>(const Horizon& o) const { return at != o.at ? at > o.at : id > o.id; }
  };
  void allocate(State& s) const;
  static int64_t next_end(const State& s);
  // Ends the flows that end at s's next event (appending the undecided ones to out when out is given).
  void finish(State& s, std::vector<Decided>* out) const;
  void drain(State& s, int64_t to) const;  // advances s to `to`, before its next end
  void decide_upto(int64_t limit, std::vector<Decided>& out);

  State state_;
  std::vector<Flow> queued_;   // added, not yet started (start order)
  size_t queued_head_ = 0;
  std::vector<double> caps_;   // the links' capacities (bits per ps), by index
  std::unordered_map<uint64_t, uint32_t> link_index_;
  std::priority_queue<Horizon, std::vector<Horizon>, std::greater<>> horizons_;
  std::unordered_set<uint64_t> undecided_;        // the ids of flows under way whose end is not decided
};

}  // namespace xsim
