// Process topology arithmetic (see topology.hpp). Layer: libxsim/coll; pure functions of their arguments.
#include "coll/topology.hpp"

namespace xsim::coll {

namespace {
// x mod n in [0, n), for any sign of x.
int64_t wrap(int64_t x, int64_t n) { return ((x % n) + n) % n; }
}  // namespace

int64_t CartGrid::size() const {
  int64_t p = 1;
  for (int d : dims) p *= d;
  return p;
}

void CartGrid::coords_of(int rank, int* coords) const {
  int64_t rest = rank;
  for (int i = ndims() - 1; i >= 0; --i) {
    coords[i] = static_cast<int>(rest % dims[static_cast<size_t>(i)]);
    rest /= dims[static_cast<size_t>(i)];
  }
}

int CartGrid::rank_of(const int* coords) const {
  int64_t rank = 0;
  for (int i = 0; i < ndims(); ++i) {
    const int64_t n = dims[static_cast<size_t>(i)];
    int64_t c = coords[i];
    if (c < 0 || c >= n) {
      if (!periods[static_cast<size_t>(i)]) return -1;
      c = wrap(c, n);
    }
    rank = rank * n + c;
  }
  return static_cast<int>(rank);
}

std::pair<int, int> CartGrid::shift(int rank, int dim, int disp) const {
  std::vector<int> c(dims.size());
  coords_of(rank, c.data());
  const int64_t n = dims[static_cast<size_t>(dim)], here = c[static_cast<size_t>(dim)];
  auto at = [&](int64_t pos) {
    if (pos < 0 || pos >= n) {
      if (!periods[static_cast<size_t>(dim)]) return static_cast<int>(MPI_PROC_NULL);
      pos = wrap(pos, n);
    }
    c[static_cast<size_t>(dim)] = static_cast<int>(pos);
    return rank_of(c.data());
  };
  const int source = at(here - disp);
  const int dest = at(here + disp);
  return {source, dest};
}

std::vector<int> CartGrid::neighbors(int rank) const {
  std::vector<int> out;
  out.reserve(dims.size() * 2);
  for (int d = 0; d < ndims(); ++d) {
    auto [source, dest] = shift(rank, d, 1);
    out.push_back(source);
    out.push_back(dest);
  }
  return out;
}

CartGrid CartGrid::sub(const int* remain) const {
  CartGrid g;
  for (int i = 0; i < ndims(); ++i)
    if (remain[i]) {
      g.dims.push_back(dims[static_cast<size_t>(i)]);
      g.periods.push_back(periods[static_cast<size_t>(i)]);
    }
  return g;
}

int CartGrid::sub_color(int rank, const int* remain) const {
  std::vector<int> c(dims.size());
  coords_of(rank, c.data());
  int64_t color = 0;
  for (int i = 0; i < ndims(); ++i)
    if (!remain[i]) color = color * dims[static_cast<size_t>(i)] + c[static_cast<size_t>(i)];
  return static_cast<int>(color);
}

Neighborhood Topology::neighborhood(int rank) const {
  Neighborhood nb;
  switch (kind) {
    case MPI_CART:
      nb.sources = cart.neighbors(rank);
      nb.destinations = nb.sources;
      nb.cartesian = true;
      break;
    case MPI_GRAPH: {
      auto first = edges.begin() + graph_first(rank);
      nb.sources.assign(first, first + graph_degree(rank));
      nb.destinations = nb.sources;
      break;
    }
    case MPI_DIST_GRAPH: {
      const Adjacency& a = adjacency.at(rank);
      nb.sources = a.sources;
      nb.destinations = a.destinations;
      break;
    }
    default:
      break;
  }
  return nb;
}

std::string check_graph(int nnodes, const int* index, const int* edges) {
  if (nnodes < 0) return "negative number of nodes " + std::to_string(nnodes);
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev)
      return "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
             " is smaller than the entry before it (index holds cumulative degrees)";
    prev = index[i];
  }
  for (int e = 0; e < prev; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return "edges[" + std::to_string(e) + "] = " + std::to_string(edges[e]) + " is not a node (0.." +
             std::to_string(nnodes - 1) + ")";
  return {};
}

}  // namespace xsim::coll
