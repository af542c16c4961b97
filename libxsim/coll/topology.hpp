// Process topologies (MPI-4.0 ch. 8) as pure data and arithmetic: Cartesian grids (coordinates, ranks,
// shifts), graphs (MPI_Graph_create's index/edges) and distributed graphs (each rank's adjacency), and the
// neighbourhood each gives a rank for the neighbourhood collectives. Layer: libxsim/coll (no fibers, no
// messages). A Topology hangs off a virtual communicator (runtime/mpi/objects/comm.hpp) and is shared by its local
// members; callers check arguments before using these functions (preconditions are stated per function).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coll/neighbor.hpp"

namespace xsim::coll {

// A Cartesian grid; ranks are numbered in row-major order (the last dimension varies fastest).
struct CartGrid {
  std::vector<int> dims;      // every entry > 0
  std::vector<char> periods;  // nonzero: periodic (wraps around)

  int ndims() const { return static_cast<int>(dims.size()); }
  int64_t size() const;  // the product of dims (1 for a zero-dimensional grid)
  // The coordinates of `rank` (0 <= rank < size()) into coords[0..ndims).
  void coords_of(int rank, int* coords) const;
  // The rank at `coords`; periodic coordinates are wrapped into range, and -1 is returned when a
  // coordinate of a non-periodic dimension is out of range.
  int rank_of(const int* coords) const;
  // MPI_Cart_shift: {source, dest} of `rank` for a shift by `disp` along dimension `dim`
  // (0 <= dim < ndims()); MPI_PROC_NULL past the edge of a non-periodic dimension.
  std::pair<int, int> shift(int rank, int dim, int disp) const;
  // The 2*ndims() neighbours of `rank` in buffer order: for each dimension, the negative direction
  // (shift source by +1) then the positive one (shift dest).
  std::vector<int> neighbors(int rank) const;
  // The grid that MPI_Cart_sub keeps (dimensions with remain[i] != 0), and the colour of `rank`'s
  // sub-grid: the row-major index of its coordinates in the dropped dimensions.
  CartGrid sub(const int* remain) const;
  int sub_color(int rank, const int* remain) const;
};

// One rank's neighbours in a distributed graph, in the order MPI_Dist_graph_neighbors returns them.
struct Adjacency {
  std::vector<int> sources, source_weights;     // weights empty when unweighted
  std::vector<int> destinations, dest_weights;
  bool weighted = false;
};

struct Topology {
  int kind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH
  CartGrid cart;
  std::vector<int> index, edges;               // MPI_GRAPH: as given to MPI_Graph_create
  std::unordered_map<int, Adjacency> adjacency;  // MPI_DIST_GRAPH: the local ranks', by comm rank

  // MPI_GRAPH: the neighbours of `rank` (0 <= rank < nnodes) are edges[graph_first(rank) ..
  // graph_first(rank) + graph_degree(rank)).
  int graph_nnodes() const { return static_cast<int>(index.size()); }
  int graph_first(int rank) const { return rank == 0 ? 0 : index[static_cast<size_t>(rank) - 1]; }
  int graph_degree(int rank) const { return index[static_cast<size_t>(rank)] - graph_first(rank); }
  // The neighbourhood of comm rank `rank` (for MPI_DIST_GRAPH, a rank whose adjacency is recorded).
  Neighborhood neighborhood(int rank) const;
};

// Checks MPI_Graph_create's arguments; returns an empty string when valid, else what is wrong.
std::string check_graph(int nnodes, const int* index, const int* edges);

}  // namespace xsim::coll
