// MPI process topologies (Cartesian, graph, distributed graph) and the neighbourhood collectives, blocking
// and nonblocking (start_nbc, nbc.cpp), on virtual communicators. Layer: libxsim/runtime/mpi (xsim_mpi); the
// arithmetic is coll/topology, the collectives coll/neighbor. Costs: a topology constructor costs what
// MPICH's does, the context-id agreement over the parent (an allreduce); MPI_Cart_sub costs an
// MPI_Comm_split (allgather of colour and key); MPI_Dist_graph_create also moves every edge to both of its
// ends (alltoall of counts, alltoallv of the edges). reorder is ignored (ranks keep their order), as in
// MPICH. MPI_Dims_create touches no virtual object and stays with the native MPI. A communicator's topology
// is shared by its local members and by its duplicates; a distributed graph records each local rank's own
// adjacency.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api_ext.hpp"
#include "api_support.hpp"
#include "coll/collectives.hpp"
#include "coll/neighbor.hpp"
#include "coll/topology.hpp"
#include "native/datatype.hpp"
#include "sim_transport.hpp"

using namespace xsim;
using coll::Topology;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// The communicator of the first `n` ranks of `parent`, created as a new context (nullptr for the others).
// Every rank of `parent` must call it: the agreement and the context sequence are collective.
Comm* create_from_prefix(Comm& parent, MPI_Comm parent_handle, const char* call, uint64_t salt, int n) {
  agree_on_context(parent, call);
  const uint64_t id = comm_next_id(parent, salt);
  if (my_rank_in(parent) >= n) return nullptr;
  std::vector<int32_t> members(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) members[static_cast<size_t>(i)] = parent.world_of(i);
  Comm* c = comm_join(id, std::move(members));
  MPI_Errhandler e = comm_errhandler(parent_handle);  // inherited, as MPICH's communicator copy does
  if (e != MPI_ERRORS_ARE_FATAL) comm_set_errhandler(c->handle, e);
  return c;
}

// The parent of a topology constructor or mapping query: an intracommunicator (MPI-4.0 §8.5).
Comm& check_intracomm(MPI_Comm h) {
  Comm& c = check_comm(h);
  if (c.is_inter)
    fail(MPI_ERR_COMM, describe_comm(h) + " is an intercommunicator; process topologies need an intracommunicator");
  return c;
}

// The parent of MPI_Graph_create or MPI_Graph_map, checked with the graph (nnodes, indx, edges) that is to
// be laid over its first ranks.
Comm& check_graph_parent(MPI_Comm h, int nnodes, const int* indx, const int* edges) {
  Comm& c = check_intracomm(h);
  std::string bad = coll::check_graph(nnodes, indx, edges);
  if (!bad.empty()) fail(MPI_ERR_ARG, bad);
  if (nnodes > c.size)
    fail(MPI_ERR_ARG, "the graph has " + str(nnodes) + " nodes, more than the " + str(c.size) + " ranks of " +
                          describe_comm(h));
  return c;
}

Topology& topology_of(Comm& c, int kind, const char* what) {
  if (!c.topo || (kind != MPI_UNDEFINED && c.topo->kind != kind)) {
    const char* want = kind == MPI_CART ? "a Cartesian topology" : kind == MPI_GRAPH ? "a graph topology"
                       : kind == MPI_DIST_GRAPH                     ? "a distributed graph topology"
                                                                    : "a process topology";
    fail(MPI_ERR_TOPOLOGY, std::string(what) + " needs a communicator with " + want + "; " + describe_comm(c.handle) +
                               (c.topo ? " has another kind" : " has none"));
  }
  return *c.topo;
}

void check_dims(int ndims, const int* dims, const Comm& c) {
  if (ndims < 0) fail(MPI_ERR_DIMS, "negative number of dimensions " + str(ndims));
  int64_t product = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      fail(MPI_ERR_DIMS, "dims[" + str(i) + "] = " + str(dims[i]) + ": every dimension must be positive");
    product *= dims[i];
    if (product > c.size)
      break;
  }
  if (product > c.size) {
    std::string shape;
    for (int i = 0; i < ndims; ++i) shape += (i ? "x" : "") + str(dims[i]);
    fail(MPI_ERR_ARG, "the grid " + shape + " has more ranks than " + describe_comm(c.handle) + " (" + str(c.size) +
                          ")");
  }
}

void check_rank_arg(const Comm& c, int rank, const char* role) {
  if (rank < 0 || rank >= c.size)
    fail(MPI_ERR_RANK, std::string(role) + " " + str(rank) + " is not a rank of " + describe_comm(c.handle) + " (" +
                           str(c.size) + " ranks)");
}

bool unweighted(const int* w) { return w == MPI_UNWEIGHTED; }

void check_weights(const int* w, int n, const char* what) {
  if (unweighted(w) || w == MPI_WEIGHTS_EMPTY) return;
  for (int i = 0; i < n; ++i)
    if (w[i] < 0) fail(MPI_ERR_ARG, std::string(what) + "[" + str(i) + "] = " + str(w[i]) + " is negative");
}

// Records this rank's adjacency in the distributed graph communicator `c`.
void set_adjacency(Comm& c, coll::Adjacency adj) {
  if (!c.topo) {
    c.topo = std::make_shared<Topology>();
    c.topo->kind = MPI_DIST_GRAPH;
  }
  c.topo->adjacency[my_rank_in(c)] = std::move(adj);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Cartesian topologies

XSIM_API int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                             MPI_Comm* comm_cart) {
  (void)reorder;
  return guarded("MPI_Cart_create", comm_old, [&] {
    Comm& parent = check_intracomm(comm_old);
    check_dims(ndims, dims, parent);
    coll::CartGrid grid;
    grid.dims.assign(dims, dims + ndims);
    for (int i = 0; i < ndims; ++i) grid.periods.push_back(periods[i] ? 1 : 0);
    Comm* c = create_from_prefix(parent, comm_old, "MPI_Cart_create", 0xca, static_cast<int>(grid.size()));
    if (!c) {
      *comm_cart = MPI_COMM_NULL;
      return;
    }
    *comm_cart = c->handle;
    if (!c->topo) {
      c->topo = std::make_shared<Topology>();
      c->topo->kind = MPI_CART;
      c->topo->cart = std::move(grid);
    } else if (c->topo->cart.dims != grid.dims || c->topo->cart.periods != grid.periods) {
      fail(MPI_ERR_ARG, "the ranks passed different dims or periods (all must pass the same)");
    }
  });
}

XSIM_API int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  return guarded("MPI_Cartdim_get", comm, [&] {
    *ndims = topology_of(check_comm(comm), MPI_CART, "MPI_Cartdim_get").cart.ndims();
  });
}

XSIM_API int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  return guarded("MPI_Cart_get", comm, [&] {
    Comm& c = check_comm(comm);
    const coll::CartGrid& g = topology_of(c, MPI_CART, "MPI_Cart_get").cart;
    if (maxdims < g.ndims())
      fail(MPI_ERR_ARG, "maxdims " + str(maxdims) + " is smaller than the number of dimensions " + str(g.ndims()));
    for (int i = 0; i < g.ndims(); ++i) {
      dims[i] = g.dims[static_cast<size_t>(i)];
      periods[i] = g.periods[static_cast<size_t>(i)];
    }
    g.coords_of(my_rank_in(c), coords);
  });
}

XSIM_API int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  return guarded("MPI_Cart_coords", comm, [&] {
    Comm& c = check_comm(comm);
    const coll::CartGrid& g = topology_of(c, MPI_CART, "MPI_Cart_coords").cart;
    check_rank_arg(c, rank, "rank");
    if (maxdims < g.ndims())
      fail(MPI_ERR_ARG, "maxdims " + str(maxdims) + " is smaller than the number of dimensions " + str(g.ndims()));
    g.coords_of(rank, coords);
  });
}

XSIM_API int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  return guarded("MPI_Cart_rank", comm, [&] {
    Comm& c = check_comm(comm);
    const coll::CartGrid& g = topology_of(c, MPI_CART, "MPI_Cart_rank").cart;
    const int r = g.rank_of(coords);
    if (r < 0) {
      for (int i = 0; i < g.ndims(); ++i)
        if (!g.periods[static_cast<size_t>(i)] && (coords[i] < 0 || coords[i] >= g.dims[static_cast<size_t>(i)]))
          fail(MPI_ERR_ARG, "coords[" + str(i) + "] = " + str(coords[i]) + " is outside the non-periodic dimension 0.." +
                                str(g.dims[static_cast<size_t>(i)] - 1));
    }
    *rank = r;
  });
}

XSIM_API int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  return guarded("MPI_Cart_shift", comm, [&] {
    Comm& c = check_comm(comm);
    const coll::CartGrid& g = topology_of(c, MPI_CART, "MPI_Cart_shift").cart;
    if (direction < 0 || direction >= g.ndims())
      fail(MPI_ERR_ARG, "direction " + str(direction) + " is not a dimension of the grid (0.." + str(g.ndims() - 1) + ")");
    auto [source, dest] = g.shift(my_rank_in(c), direction, disp);
    *rank_source = source;
    *rank_dest = dest;
  });
}

XSIM_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return guarded("MPI_Cart_sub", comm, [&] {
    Comm& c = check_comm(comm);
    const coll::CartGrid& g = topology_of(c, MPI_CART, "MPI_Cart_sub").cart;
    const int me = my_rank_in(c);
    coll::CartGrid sub = g.sub(remain_dims);
    const int color = g.sub_color(me, remain_dims);
    // The cost of MPICH's implementation, an MPI_Comm_split(color, key = rank).
    SimTransport t(c, "MPI_Cart_sub");
    const std::vector<int> all = exchange_color_key(t, color, me);
    const uint64_t id = comm_next_id(c, 0xc5);
    Comm* n = comm_join(split_id(id, color), of_color(members_of(c), all, color));
    if (!n->topo) {
      n->topo = std::make_shared<Topology>();
      n->topo->kind = MPI_CART;
      n->topo->cart = std::move(sub);
    }
    MPI_Errhandler e = comm_errhandler(comm);
    if (e != MPI_ERRORS_ARE_FATAL) comm_set_errhandler(n->handle, e);
    *newcomm = n->handle;
  });
}

XSIM_API int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  (void)periods;
  return guarded("MPI_Cart_map", comm, [&] {
    Comm& c = check_intracomm(comm);
    check_dims(ndims, dims, c);
    int64_t product = 1;
    for (int i = 0; i < ndims; ++i) product *= dims[i];
    const int me = my_rank_in(c);
    *newrank = me < product ? me : MPI_UNDEFINED;
  });
}

// ---------------------------------------------------------------------------------------------------
// Graph topologies

XSIM_API int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
                              MPI_Comm* comm_graph) {
  (void)reorder;
  return guarded("MPI_Graph_create", comm_old, [&] {
    Comm& parent = check_graph_parent(comm_old, nnodes, indx, edges);
    if (nnodes == 0) {  // every rank gets MPI_COMM_NULL (nnodes is the same everywhere)
      *comm_graph = MPI_COMM_NULL;
      return;
    }
    Comm* c = create_from_prefix(parent, comm_old, "MPI_Graph_create", 0x96, nnodes);
    if (!c) {
      *comm_graph = MPI_COMM_NULL;
      return;
    }
    *comm_graph = c->handle;
    std::vector<int> index(indx, indx + nnodes), edge_list(edges, edges + indx[nnodes - 1]);
    if (!c->topo) {
      c->topo = std::make_shared<Topology>();
      c->topo->kind = MPI_GRAPH;
      c->topo->index = std::move(index);
      c->topo->edges = std::move(edge_list);
    } else if (c->topo->index != index || c->topo->edges != edge_list) {
      fail(MPI_ERR_ARG, "the ranks passed different graphs (all must pass the same index and edges)");
    }
  });
}

XSIM_API int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  return guarded("MPI_Graphdims_get", comm, [&] {
    const Topology& tp = topology_of(check_comm(comm), MPI_GRAPH, "MPI_Graphdims_get");
    *nnodes = tp.graph_nnodes();
    *nedges = static_cast<int>(tp.edges.size());
  });
}

// As in MPICH, at most maxindex/maxedges entries are written.
XSIM_API int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]) {
  return guarded("MPI_Graph_get", comm, [&] {
    const Topology& tp = topology_of(check_comm(comm), MPI_GRAPH, "MPI_Graph_get");
    if (maxindex < 0 || maxedges < 0) fail(MPI_ERR_ARG, "negative maxindex or maxedges");
    std::copy_n(tp.index.begin(), std::min<size_t>(tp.index.size(), static_cast<size_t>(maxindex)), indx);
    std::copy_n(tp.edges.begin(), std::min<size_t>(tp.edges.size(), static_cast<size_t>(maxedges)), edges);
  });
}

XSIM_API int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  return guarded("MPI_Graph_neighbors_count", comm, [&] {
    Comm& c = check_comm(comm);
    const Topology& tp = topology_of(c, MPI_GRAPH, "MPI_Graph_neighbors_count");
    check_rank_arg(c, rank, "rank");
    *nneighbors = tp.graph_degree(rank);
  });
}

XSIM_API int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  return guarded("MPI_Graph_neighbors", comm, [&] {
    Comm& c = check_comm(comm);
    const Topology& tp = topology_of(c, MPI_GRAPH, "MPI_Graph_neighbors");
    check_rank_arg(c, rank, "rank");
    if (maxneighbors < 0) fail(MPI_ERR_ARG, "negative maxneighbors " + str(maxneighbors));
    const int n = std::min(maxneighbors, tp.graph_degree(rank));
    std::copy_n(tp.edges.begin() + tp.graph_first(rank), n, neighbors);
  });
}

XSIM_API int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int* newrank) {
  return guarded("MPI_Graph_map", comm, [&] {
    Comm& c = check_graph_parent(comm, nnodes, indx, edges);
    const int me = my_rank_in(c);
    *newrank = me < nnodes ? me : MPI_UNDEFINED;
  });
}

// ---------------------------------------------------------------------------------------------------
// Distributed graph topologies

XSIM_API int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                            const int sourceweights[], int outdegree, const int destinations[],
                                            const int destweights[], MPI_Info info, int reorder,
                                            MPI_Comm* comm_dist_graph) {
  (void)info;
  (void)reorder;
  return guarded("MPI_Dist_graph_create_adjacent", comm_old, [&] {
    Comm& parent = check_intracomm(comm_old);
    if (indegree < 0) fail(MPI_ERR_ARG, "negative indegree " + str(indegree));
    if (outdegree < 0) fail(MPI_ERR_ARG, "negative outdegree " + str(outdegree));
    for (int i = 0; i < indegree; ++i) check_rank_arg(parent, sources[i], ("sources[" + str(i) + "]").c_str());
    for (int i = 0; i < outdegree; ++i)
      check_rank_arg(parent, destinations[i], ("destinations[" + str(i) + "]").c_str());
    check_weights(sourceweights, indegree, "sourceweights");
    check_weights(destweights, outdegree, "destweights");
    coll::Adjacency adj;
    adj.sources.assign(sources, sources + indegree);
    adj.destinations.assign(destinations, destinations + outdegree);
    adj.weighted = !unweighted(sourceweights);
    if (adj.weighted) {
      if (sourceweights != MPI_WEIGHTS_EMPTY) adj.source_weights.assign(sourceweights, sourceweights + indegree);
      if (destweights != MPI_WEIGHTS_EMPTY && !unweighted(destweights))
        adj.dest_weights.assign(destweights, destweights + outdegree);
    }
    Comm* c = create_from_prefix(parent, comm_old, "MPI_Dist_graph_create_adjacent", 0xda, parent.size);
    set_adjacency(*c, std::move(adj));
    *comm_dist_graph = c->handle;
  });
}

XSIM_API int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                   const int destinations[], const int weights[], MPI_Info info, int reorder,
                                   MPI_Comm* comm_dist_graph) {
  (void)info;
  (void)reorder;
  return guarded("MPI_Dist_graph_create", comm_old, [&] {
    Comm& parent = check_intracomm(comm_old);
    const int p = parent.size;
    if (n < 0) fail(MPI_ERR_ARG, "negative number of source nodes " + str(n));
    int64_t nedges = 0;
    for (int i = 0; i < n; ++i) {
      check_rank_arg(parent, sources[i], ("sources[" + str(i) + "]").c_str());
      if (degrees[i] < 0) fail(MPI_ERR_ARG, "degrees[" + str(i) + "] = " + str(degrees[i]) + " is negative");
      nedges += degrees[i];
    }
    for (int64_t e = 0; e < nedges; ++e)
      check_rank_arg(parent, destinations[e], ("destinations[" + str(e) + "]").c_str());
    const bool weighted = !unweighted(weights);
    const bool have_weights = weighted && weights != MPI_WEIGHTS_EMPTY;
    if (have_weights) check_weights(weights, static_cast<int>(nedges), "weights");

    // Each edge s -> d (weight w) tells s "out-edge to d" and d "in-edge from s": {target, kind, peer, w}.
    struct Note {
      int target, kind, peer, weight;
    };
    std::vector<Note> notes;
    notes.reserve(static_cast<size_t>(nedges) * 2);
    for (int i = 0, e = 0; i < n; ++i)
      for (int k = 0; k < degrees[i]; ++k, ++e) {
        const int w = have_weights ? weights[e] : 0;
        notes.push_back({sources[i], 1, destinations[e], w});
        notes.push_back({destinations[e], 0, sources[i], w});
      }
    std::stable_sort(notes.begin(), notes.end(), [](const Note& a, const Note& b) { return a.target < b.target; });
    std::vector<int> scounts(static_cast<size_t>(p), 0), sdispls(static_cast<size_t>(p), 0);
    std::vector<int> payload;
    payload.reserve(notes.size() * 3);
    for (const Note& x : notes) {
      scounts[static_cast<size_t>(x.target)] += 3;
      payload.insert(payload.end(), {x.kind, x.peer, x.weight});
    }
    for (int r = 1; r < p; ++r) sdispls[static_cast<size_t>(r)] = sdispls[static_cast<size_t>(r) - 1] + scounts[static_cast<size_t>(r) - 1];
    SimTransport t(parent, "MPI_Dist_graph_create");
    std::vector<int> rcounts(static_cast<size_t>(p)), rdispls(static_cast<size_t>(p), 0);
    coll::alltoall(t, scounts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT);
    for (int r = 1; r < p; ++r) rdispls[static_cast<size_t>(r)] = rdispls[static_cast<size_t>(r) - 1] + rcounts[static_cast<size_t>(r) - 1];
    std::vector<int> received(static_cast<size_t>(rdispls.back() + rcounts.back()));
    coll::alltoallv(t, payload.data(), scounts.data(), sdispls.data(), MPI_INT, received.data(), rcounts.data(),
                    rdispls.data(), MPI_INT);

    // Neighbours in order of the rank that named the edge, then of its arguments.
    coll::Adjacency adj;
    adj.weighted = weighted;
    for (size_t i = 0; i + 3 <= received.size(); i += 3) {
      const bool out = received[i] == 1;
      (out ? adj.destinations : adj.sources).push_back(received[i + 1]);
      if (have_weights) (out ? adj.dest_weights : adj.source_weights).push_back(received[i + 2]);
    }
    Comm* c = create_from_prefix(parent, comm_old, "MPI_Dist_graph_create", 0xdb, p);
    set_adjacency(*c, std::move(adj));
    *comm_dist_graph = c->handle;
  });
}

XSIM_API int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  return guarded("MPI_Dist_graph_neighbors_count", comm, [&] {
    Comm& c = check_comm(comm);
    const coll::Adjacency& a = topology_of(c, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count").adjacency.at(my_rank_in(c));
    *indegree = static_cast<int>(a.sources.size());
    *outdegree = static_cast<int>(a.destinations.size());
    *weighted = a.weighted ? 1 : 0;
  });
}

XSIM_API int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                      int maxoutdegree, int destinations[], int destweights[]) {
  return guarded("MPI_Dist_graph_neighbors", comm, [&] {
    Comm& c = check_comm(comm);
    const coll::Adjacency& a = topology_of(c, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors").adjacency.at(my_rank_in(c));
    const int indeg = static_cast<int>(a.sources.size()), outdeg = static_cast<int>(a.destinations.size());
    if (maxindegree < indeg)
      fail(MPI_ERR_ARG, "maxindegree " + str(maxindegree) + " is smaller than the indegree " + str(indeg));
    if (maxoutdegree < outdeg)
      fail(MPI_ERR_ARG, "maxoutdegree " + str(maxoutdegree) + " is smaller than the outdegree " + str(outdeg));
    std::copy(a.sources.begin(), a.sources.end(), sources);
    std::copy(a.destinations.begin(), a.destinations.end(), destinations);
    if (a.weighted && !unweighted(sourceweights) && sourceweights != MPI_WEIGHTS_EMPTY)
      std::copy(a.source_weights.begin(), a.source_weights.end(), sourceweights);
    if (a.weighted && !unweighted(destweights) && destweights != MPI_WEIGHTS_EMPTY)
      std::copy(a.dest_weights.begin(), a.dest_weights.end(), destweights);
  });
}

XSIM_API int MPI_Topo_test(MPI_Comm comm, int* status) {
  return guarded("MPI_Topo_test", comm, [&] {
    Comm& c = check_comm(comm);
    *status = c.topo ? c.topo->kind : MPI_UNDEFINED;
  });
}

// ---------------------------------------------------------------------------------------------------
// Neighbourhood collectives, blocking and nonblocking

namespace {

void check_types(const MPI_Datatype* types, size_t n) {
  for (size_t i = 0; i < n; ++i) check_type(types[i]);
}

// Runs a neighbourhood collective on `comm`'s topology: `check(nb)` validates the arguments in the call
// (after the buffers: MPI_IN_PLACE is not allowed); `algo(t, nb)` (which holds only copies of the
// arguments) runs at once on the calling rank (req == nullptr), or starts as a nonblocking collective whose
// request goes to *req. Errors the native MPI finds are the call's own (guarded).
template <class Check, class Algo>
int neighbor_collective(const char* name, MPI_Comm comm, MPI_Request* req, const void* sbuf, const void* rbuf,
                        Check check, Algo algo) {
  return guarded(name, comm, [&] {
    Comm& c = check_comm(comm);
    coll::Neighborhood nb = topology_of(c, MPI_UNDEFINED, name).neighborhood(my_rank_in(c));
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
      fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in a neighbourhood collective");
    check(nb);
    if (req) {
      *req = start_nbc(c, name, [nb = std::move(nb), algo](coll::Transport& t) { algo(t, nb); });
      return;
    }
    SimTransport t(c, name);
    algo(t, nb);
  });
}

// Neighbor allgather and alltoall: one count and datatype each way, the same for every neighbour.
using UniformAlgo = void (*)(coll::Transport&, const coll::Neighborhood&, const void*, int, MPI_Datatype, void*,
                             int, MPI_Datatype);
int neighbor_uniform(const char* name, UniformAlgo algo, const void* sbuf, int scount, MPI_Datatype stype,
                     void* rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return neighbor_collective(
      name, comm, req, sbuf, rbuf,
      [&](const coll::Neighborhood&) {
        check_count(scount);
        check_count(rcount);
        check_type(stype);
        check_type(rtype);
      },
      [=](coll::Transport& t, const coll::Neighborhood& nb) { algo(t, nb, sbuf, scount, stype, rbuf, rcount, rtype); });
}

int neighbor_allgatherv(const char* name, const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                        const int* rcounts, const int* displs, MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return neighbor_collective(
      name, comm, req, sbuf, rbuf,
      [&](const coll::Neighborhood& nb) {
        check_count(scount);
        check_counts(rcounts, nb.sources.size());
        check_type(stype);
        check_type(rtype);
      },
      [=](coll::Transport& t, const coll::Neighborhood& nb) {
        coll::neighbor_allgatherv(t, nb, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
      });
}

int neighbor_alltoallv(const char* name, const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype stype,
                       void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rtype, MPI_Comm comm,
                       MPI_Request* req) {
  return neighbor_collective(
      name, comm, req, sbuf, rbuf,
      [&](const coll::Neighborhood& nb) {
        check_counts(scounts, nb.destinations.size());
        check_counts(rcounts, nb.sources.size());
        check_type(stype);
        check_type(rtype);
      },
      [=](coll::Transport& t, const coll::Neighborhood& nb) {
        coll::neighbor_alltoallv(t, nb, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
      });
}

int neighbor_alltoallw(const char* name, const void* sbuf, const int* scounts, const MPI_Aint* sdispls,
                       const MPI_Datatype* stypes, void* rbuf, const int* rcounts, const MPI_Aint* rdispls,
                       const MPI_Datatype* rtypes, MPI_Comm comm, MPI_Request* req) {
  return neighbor_collective(
      name, comm, req, sbuf, rbuf,
      [&](const coll::Neighborhood& nb) {
        check_counts(scounts, nb.destinations.size());
        check_counts(rcounts, nb.sources.size());
        check_types(stypes, nb.destinations.size());
        check_types(rtypes, nb.sources.size());
      },
      [=](coll::Transport& t, const coll::Neighborhood& nb) {
        coll::neighbor_alltoallw(t, nb, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
      });
}

}  // namespace

XSIM_API int MPI_Neighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                    MPI_Datatype rtype, MPI_Comm comm) {
  return neighbor_uniform("MPI_Neighbor_allgather", coll::neighbor_allgather, sbuf, scount, stype, rbuf, rcount, rtype,
                          comm, nullptr);
}

XSIM_API int MPI_Neighbor_allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                                     const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm) {
  return neighbor_allgatherv("MPI_Neighbor_allgatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm,
                             nullptr);
}

XSIM_API int MPI_Neighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                   MPI_Datatype rtype, MPI_Comm comm) {
  return neighbor_uniform("MPI_Neighbor_alltoall", coll::neighbor_alltoall, sbuf, scount, stype, rbuf, rcount, rtype,
                          comm, nullptr);
}

XSIM_API int MPI_Neighbor_alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                                    void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                    MPI_Comm comm) {
  return neighbor_alltoallv("MPI_Neighbor_alltoallv", sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                            comm, nullptr);
}

XSIM_API int MPI_Neighbor_alltoallw(const void* sbuf, const int scounts[], const MPI_Aint sdispls[],
                                    const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm) {
  return neighbor_alltoallw("MPI_Neighbor_alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                            comm, nullptr);
}

XSIM_API int MPI_Ineighbor_allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                     MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return neighbor_uniform("MPI_Ineighbor_allgather", coll::neighbor_allgather, sbuf, scount, stype, rbuf, rcount, rtype,
                          comm, req);
}

XSIM_API int MPI_Ineighbor_allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf,
                                      const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
                                      MPI_Request* req) {
  return neighbor_allgatherv("MPI_Ineighbor_allgatherv", sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req);
}

XSIM_API int MPI_Ineighbor_alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                    MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req) {
  return neighbor_uniform("MPI_Ineighbor_alltoall", coll::neighbor_alltoall, sbuf, scount, stype, rbuf, rcount, rtype,
                          comm, req);
}

XSIM_API int MPI_Ineighbor_alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                                     void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                     MPI_Comm comm, MPI_Request* req) {
  return neighbor_alltoallv("MPI_Ineighbor_alltoallv", sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                            comm, req);
}

XSIM_API int MPI_Ineighbor_alltoallw(const void* sbuf, const int scounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype stypes[], void* rbuf, const int rcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                                     MPI_Request* req) {
  return neighbor_alltoallw("MPI_Ineighbor_alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                            comm, req);
}
