// Test oracle for network models: an explicitly built graph (endpoints and routers as nodes, links as
// edges, directed or not) and breadth-first-search distances. Independent of the models' routing code.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

namespace xsim::test {

class Graph {
 public:
  explicit Graph(int nodes) : adj_(static_cast<size_t>(nodes)) {}
  int nodes() const { return static_cast<int>(adj_.size()); }
  void add_arc(int a, int b) { adj_[static_cast<size_t>(a)].push_back(b); }    // a -> b only
  void add_link(int a, int b) { add_arc(a, b); add_arc(b, a); }                // both directions
  // Hop distance from `src` to every node (-1: unreachable).
  std::vector<int> bfs(int src) const {
    std::vector<int> d(adj_.size(), -1);
    std::queue<int> q;
    d[static_cast<size_t>(src)] = 0;
    q.push(src);
    while (!q.empty()) {
      int u = q.front();
      q.pop();
      for (int v : adj_[static_cast<size_t>(u)])
        if (d[static_cast<size_t>(v)] < 0) {
          d[static_cast<size_t>(v)] = d[static_cast<size_t>(u)] + 1;
          q.push(v);
        }
    }
    return d;
  }

 private:
  std::vector<std::vector<int>> adj_;
};

}  // namespace xsim::test
