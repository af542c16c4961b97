// Unit tests for libxsim/coll/topology (Cartesian arithmetic, graph checks, neighbourhoods) and
// libxsim/coll/neighbor (the five neighbourhood collectives run by threads over a fake Transport and
// compared with a reference that pairs blocks by the standard's rules, written independently of the
// implementation's tag scheme).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "coll/neighbor.hpp"
#include "coll/topology.hpp"
#include "thread_transport.hpp"

namespace {

using xsim::coll::CartGrid;
using xsim::coll::Neighborhood;
using xsim::coll::Topology;
using xsim::coll::Transport;
using xsim_test::run_ranks;
namespace coll = xsim::coll;

[[maybe_unused]] ::testing::Environment* const g_env =
    ::testing::AddGlobalTestEnvironment(new xsim_test::MpiTestEnvironment);

constexpr int N = MPI_PROC_NULL;

CartGrid grid(std::vector<int> dims, std::vector<char> periods) {
  CartGrid g;
  g.dims = std::move(dims);
  g.periods = std::move(periods);
  return g;
}

std::vector<int> coords(const CartGrid& g, int rank) {
  std::vector<int> c(g.dims.size());
  g.coords_of(rank, c.data());
  return c;
}

// ---------------------------------------------------------------------------------------------------
// Cartesian arithmetic

TEST(CartGrid, RowMajorNumbering) {
  const CartGrid g = grid({4, 3, 2}, {0, 0, 0});
  EXPECT_EQ(g.size(), 24);
  EXPECT_EQ(coords(g, 0), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(coords(g, 1), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(coords(g, 2), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(coords(g, 6), (std::vector<int>{1, 0, 0}));
  EXPECT_EQ(coords(g, 23), (std::vector<int>{3, 2, 1}));
  for (int r = 0; r < 24; ++r) EXPECT_EQ(g.rank_of(coords(g, r).data()), r);
}

TEST(CartGrid, RankOfWrapsPeriodicDimensionsOnly) {
  const CartGrid g = grid({3, 4}, {1, 0});
  const int a[] = {-1, 0}, b[] = {2, 0}, c[] = {3, 1}, d[] = {7, 3}, e[] = {0, 4}, f[] = {0, -1};
  EXPECT_EQ(g.rank_of(a), 8);
  EXPECT_EQ(g.rank_of(b), 8);
  EXPECT_EQ(g.rank_of(c), 1);
  EXPECT_EQ(g.rank_of(d), 7);
  EXPECT_EQ(g.rank_of(e), -1);
  EXPECT_EQ(g.rank_of(f), -1);
}

TEST(CartGrid, ShiftNonPeriodic) {
  const CartGrid g = grid({5}, {0});
  EXPECT_EQ(g.shift(0, 0, 1), std::make_pair(N, 1));
  EXPECT_EQ(g.shift(4, 0, 1), std::make_pair(3, N));
  EXPECT_EQ(g.shift(2, 0, 2), std::make_pair(0, 4));
  EXPECT_EQ(g.shift(2, 0, 3), std::make_pair(N, N));
  EXPECT_EQ(g.shift(2, 0, -1), std::make_pair(3, 1));
  EXPECT_EQ(g.shift(2, 0, 0), std::make_pair(2, 2));
}

TEST(CartGrid, ShiftPeriodic) {
  const CartGrid g = grid({5}, {1});
  EXPECT_EQ(g.shift(0, 0, 1), std::make_pair(4, 1));
  EXPECT_EQ(g.shift(0, 0, 7), std::make_pair(3, 2));
  EXPECT_EQ(g.shift(0, 0, -12), std::make_pair(2, 3));
  EXPECT_EQ(g.shift(3, 0, 5), std::make_pair(3, 3));
  EXPECT_EQ(g.shift(1, 0, 2147483647), std::make_pair(4, 3));  // 2^31 - 1 = 2 (mod 5), no overflow
}

TEST(CartGrid, ShiftInTwoDimensions) {
  const CartGrid g = grid({3, 4}, {0, 1});  // rank = 4 * row + column
  EXPECT_EQ(g.shift(5, 1, 1), std::make_pair(4, 6));
  EXPECT_EQ(g.shift(7, 1, 1), std::make_pair(6, 4));   // column wraps
  EXPECT_EQ(g.shift(5, 0, 1), std::make_pair(1, 9));
  EXPECT_EQ(g.shift(1, 0, 1), std::make_pair(N, 5));   // row does not
  EXPECT_EQ(g.shift(9, 0, 1), std::make_pair(5, N));
}

TEST(CartGrid, NeighborsNegativeThenPositivePerDimension) {
  const CartGrid g = grid({3, 4}, {0, 1});
  EXPECT_EQ(g.neighbors(0), (std::vector<int>{N, 4, 3, 1}));
  EXPECT_EQ(g.neighbors(6), (std::vector<int>{2, 10, 5, 7}));
  EXPECT_EQ(g.neighbors(11), (std::vector<int>{7, N, 10, 8}));
  // periodic dimensions of size 1 and 2: the same rank on both sides
  const CartGrid h = grid({1, 2}, {1, 1});
  EXPECT_EQ(h.neighbors(1), (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(grid({1, 2}, {0, 0}).neighbors(1), (std::vector<int>{N, N, 0, N}));
}

TEST(CartGrid, ZeroDimensional) {
  const CartGrid g;
  EXPECT_EQ(g.size(), 1);
  EXPECT_TRUE(g.neighbors(0).empty());
  EXPECT_EQ(g.rank_of(nullptr), 0);
}

TEST(CartGrid, SubGridsKeepRowMajorOrder) {
  const CartGrid g = grid({2, 3, 4}, {1, 0, 0});
  const int remain[] = {1, 0, 1};
  const CartGrid s = g.sub(remain);
  EXPECT_EQ(s.dims, (std::vector<int>{2, 4}));
  EXPECT_EQ(s.periods, (std::vector<char>{1, 0}));
  // A sub-communicator holds the ranks of one colour in rank order: its i-th member must sit at
  // sub-grid coordinates coords_of(i).
  for (int color = 0; color < 3; ++color) {
    std::vector<int> members;
    for (int r = 0; r < 24; ++r)
      if (g.sub_color(r, remain) == color) members.push_back(r);
    ASSERT_EQ(members.size(), 8u);
    for (int i = 0; i < 8; ++i) {
      const std::vector<int> c = coords(g, members[static_cast<size_t>(i)]);
      EXPECT_EQ(c[1], color);
      EXPECT_EQ(coords(s, i), (std::vector<int>{c[0], c[2]}));
    }
  }
  const int none[] = {0, 0, 0};
  EXPECT_EQ(g.sub(none).ndims(), 0);
  for (int r = 0; r < 24; ++r) EXPECT_EQ(g.sub_color(r, none), r);
}

// ---------------------------------------------------------------------------------------------------
// Graphs

TEST(Graph, CheckGraphArguments) {
  const int index[] = {2, 3, 4}, edges[] = {1, 2, 0, 0};
  EXPECT_EQ(coll::check_graph(3, index, edges), "");
  EXPECT_EQ(coll::check_graph(0, nullptr, nullptr), "");
  EXPECT_NE(coll::check_graph(-1, index, edges), "");
  const int bad_index[] = {2, 1, 4};
  EXPECT_NE(coll::check_graph(3, bad_index, edges).find("index[1] = 1"), std::string::npos);
  const int bad_edges[] = {1, 3, 0, 0};
  EXPECT_NE(coll::check_graph(3, index, bad_edges).find("edges[1] = 3"), std::string::npos);
}

TEST(Topology, Neighborhoods) {
  Topology g;
  g.kind = MPI_GRAPH;
  g.index = {2, 2, 5};
  g.edges = {1, 2, 0, 2, 2};
  EXPECT_EQ(g.graph_degree(0), 2);
  EXPECT_EQ(g.graph_degree(1), 0);
  EXPECT_EQ(g.neighborhood(2).sources, (std::vector<int>{0, 2, 2}));
  EXPECT_EQ(g.neighborhood(2).destinations, (std::vector<int>{0, 2, 2}));
  EXPECT_FALSE(g.neighborhood(2).cartesian);
  Topology c;
  c.kind = MPI_CART;
  c.cart = grid({4}, {0});
  EXPECT_TRUE(c.neighborhood(0).cartesian);
  EXPECT_EQ(c.neighborhood(0).sources, (std::vector<int>{N, 1}));
  Topology d;
  d.kind = MPI_DIST_GRAPH;
  d.adjacency[3].sources = {1};
  d.adjacency[3].destinations = {0, 2};
  EXPECT_EQ(d.neighborhood(3).sources, (std::vector<int>{1}));
  EXPECT_EQ(d.neighborhood(3).destinations, (std::vector<int>{0, 2}));
}

// ---------------------------------------------------------------------------------------------------
// Neighbourhood collectives against a reference pairing

// The send slot of rank q = nbs[r].sources[j] whose block rank r receives in slot j.
//  Cartesian: slot 2d is r's neighbour in the negative direction of dimension d; r sits in that
//  neighbour's positive direction, so the block is the one it sent in the positive direction (2d+1);
//  and vice versa.
//  Graphs: the m-th occurrence of q among r's sources takes the m-th block q sends to r.
size_t paired_slot(const std::vector<Neighborhood>& nbs, int r, size_t j) {
  const Neighborhood& me = nbs[static_cast<size_t>(r)];
  if (me.cartesian) {
    const size_t d = j / 2;
    return j % 2 == 0 ? 2 * d + 1 : 2 * d;
  }
  const int q = me.sources[j];
  const auto m = std::count(me.sources.begin(), me.sources.begin() + static_cast<long>(j), q);
  const std::vector<int>& out = nbs[static_cast<size_t>(q)].destinations;
  long seen = 0;
  for (size_t s = 0; s < out.size(); ++s)
    if (out[s] == r && seen++ == m) return s;
  throw std::logic_error("test topology is inconsistent: no matching edge");
}

long expected_messages(const std::vector<Neighborhood>& nbs) {
  long n = 0;
  for (const Neighborhood& nb : nbs) n += std::count_if(nb.destinations.begin(), nb.destinations.end(), [](int d) { return d != N; });
  return n;
}

int value(int rank, size_t slot, int i) { return rank * 10000 + static_cast<int>(slot) * 100 + i; }
constexpr int kUntouched = -7;

void expect_eq(int got, int want, int r, size_t j, int i) {
  if (got != want)
    throw std::runtime_error("rank " + std::to_string(r) + " block " + std::to_string(j) + " element " +
                             std::to_string(i) + ": got " + std::to_string(got) + ", expected " + std::to_string(want));
}

std::vector<Neighborhood> cart_neighborhoods(const CartGrid& g) {
  Topology t;
  t.kind = MPI_CART;
  t.cart = g;
  std::vector<Neighborhood> nbs;
  for (int r = 0; r < g.size(); ++r) nbs.push_back(t.neighborhood(r));
  return nbs;
}

// A symmetric multigraph with a self loop and repeated edges (MPI_Graph_create semantics).
std::vector<Neighborhood> graph_neighborhoods() {
  Topology t;
  t.kind = MPI_GRAPH;
  const std::vector<std::vector<int>> adj = {{1, 1, 0, 2}, {0, 2, 0}, {1, 0, 3}, {2, 4, 4}, {3, 3}};
  for (const auto& a : adj) {
    t.edges.insert(t.edges.end(), a.begin(), a.end());
    t.index.push_back(static_cast<int>(t.edges.size()));
  }
  std::vector<Neighborhood> nbs;
  for (int r = 0; r < 5; ++r) nbs.push_back(t.neighborhood(r));
  return nbs;
}

// A directed graph with different in- and out-neighbours, repeats and self edges (distributed graph).
std::vector<Neighborhood> dist_graph_neighborhoods(int p) {
  std::vector<Neighborhood> nbs(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    nbs[static_cast<size_t>(r)].destinations = {(r + 1) % p, (r + 3) % p, (r + 1) % p, r};
    nbs[static_cast<size_t>(r)].sources = {(r - 3 + p) % p, (r - 1 + p) % p, r, (r - 1 + p) % p};
  }
  return nbs;
}

struct Case {
  std::string name;
  std::vector<Neighborhood> nbs;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const std::vector<std::pair<std::vector<int>, std::vector<char>>> grids = {
      {{24}, {1}},       {{24}, {0}},          {{4, 6}, {1, 0}},    {{2, 3, 4}, {1, 1, 0}}, {{1, 5}, {1, 1}},
      {{2, 2}, {1, 1}},  {{2, 1, 3}, {1, 1, 1}}, {{2}, {1}},        {{1}, {1}},             {{1}, {0}},
      {{3, 2}, {0, 0}},  {{}, {}}};
  for (const auto& [dims, periods] : grids) {
    std::string name = "cart";
    for (size_t i = 0; i < dims.size(); ++i) name += (i ? "x" : " ") + std::to_string(dims[i]) + (periods[i] ? "p" : "");
    out.push_back({name, cart_neighborhoods(grid(dims, periods))});
  }
  out.push_back({"graph", graph_neighborhoods()});
  out.push_back({"dist graph 7", dist_graph_neighborhoods(7)});
  out.push_back({"dist graph 4", dist_graph_neighborhoods(4)});
  out.push_back({"dist graph 1", dist_graph_neighborhoods(1)});
  return out;
}

TEST(NeighborAlltoall, EveryTopology) {
  for (const Case& c : cases())
    for (int count : {0, 1, 5}) {
      SCOPED_TRACE(c.name + ", count " + std::to_string(count));
      const int p = static_cast<int>(c.nbs.size());
      long sent = 0;
      ASSERT_NO_THROW(sent = run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        const Neighborhood& nb = c.nbs[static_cast<size_t>(r)];
        std::vector<int> sbuf(nb.destinations.size() * static_cast<size_t>(count));
        for (size_t k = 0; k < nb.destinations.size(); ++k)
          for (int i = 0; i < count; ++i) sbuf[k * static_cast<size_t>(count) + static_cast<size_t>(i)] = value(r, k, i);
        std::vector<int> rbuf(nb.sources.size() * static_cast<size_t>(count), kUntouched);
        coll::neighbor_alltoall(t, nb, sbuf.data(), count, MPI_INT, rbuf.data(), count, MPI_INT);
        for (size_t j = 0; j < nb.sources.size(); ++j)
          for (int i = 0; i < count; ++i) {
            const int q = nb.sources[j];
            const int want = q == N ? kUntouched : value(q, paired_slot(c.nbs, r, j), i);
            expect_eq(rbuf[j * static_cast<size_t>(count) + static_cast<size_t>(i)], want, r, j, i);
          }
      }));
      EXPECT_EQ(sent, expected_messages(c.nbs));  // zero-size blocks are sent too, as in MPICH
    }
}

// The same exchange twice in a row: the second call's messages must not be taken by the first.
TEST(NeighborAlltoall, BackToBackCallsStayApart) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_NO_THROW(run_ranks(static_cast<int>(c.nbs.size()), [&](Transport& t) {
      const int r = t.rank();
      const Neighborhood& nb = c.nbs[static_cast<size_t>(r)];
      for (int round = 0; round < 3; ++round) {
        std::vector<int> sbuf(nb.destinations.size()), rbuf(nb.sources.size(), kUntouched);
        for (size_t k = 0; k < sbuf.size(); ++k) sbuf[k] = value(r, k, round);
        coll::neighbor_alltoall(t, nb, sbuf.data(), 1, MPI_INT, rbuf.data(), 1, MPI_INT);
        for (size_t j = 0; j < rbuf.size(); ++j) {
          const int q = nb.sources[j];
          expect_eq(rbuf[j], q == N ? kUntouched : value(q, paired_slot(c.nbs, r, j), round), r, j, round);
        }
      }
    }));
  }
}

TEST(NeighborAllgather, EveryTopology) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const int count = 3;
    ASSERT_NO_THROW(run_ranks(static_cast<int>(c.nbs.size()), [&](Transport& t) {
      const int r = t.rank();
      const Neighborhood& nb = c.nbs[static_cast<size_t>(r)];
      const int sbuf[count] = {value(r, 0, 0), value(r, 0, 1), value(r, 0, 2)};
      std::vector<int> rbuf(nb.sources.size() * count, kUntouched);
      coll::neighbor_allgather(t, nb, sbuf, count, MPI_INT, rbuf.data(), count, MPI_INT);
      for (size_t j = 0; j < nb.sources.size(); ++j)
        for (int i = 0; i < count; ++i) {
          const int q = nb.sources[j];
          expect_eq(rbuf[j * count + static_cast<size_t>(i)], q == N ? kUntouched : value(q, 0, i), r, j, i);
        }
    }));
  }
}

// Block j of the receive buffer: rank-dependent sizes, one untouched element between blocks.
TEST(NeighborAllgatherv, EveryTopology) {
  auto scount_of = [](int q) { return 1 + q % 3; };
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_NO_THROW(run_ranks(static_cast<int>(c.nbs.size()), [&](Transport& t) {
      const int r = t.rank();
      const Neighborhood& nb = c.nbs[static_cast<size_t>(r)];
      std::vector<int> sbuf(static_cast<size_t>(scount_of(r)));
      for (int i = 0; i < scount_of(r); ++i) sbuf[static_cast<size_t>(i)] = value(r, 0, i);
      std::vector<int> rcounts, displs;
      int at = 0;
      for (int q : nb.sources) {
        rcounts.push_back(q == N ? 2 : scount_of(q));
        displs.push_back(at);
        at += rcounts.back() + 1;
      }
      std::vector<int> rbuf(static_cast<size_t>(at), kUntouched);
      coll::neighbor_allgatherv(t, nb, sbuf.data(), scount_of(r), MPI_INT, rbuf.data(), rcounts.data(), displs.data(),
                                MPI_INT);
      for (size_t j = 0; j < nb.sources.size(); ++j) {
        const int q = nb.sources[j];
        for (int i = 0; i < rcounts[j]; ++i)
          expect_eq(rbuf[static_cast<size_t>(displs[j] + i)], q == N ? kUntouched : value(q, 0, i), r, j, i);
        expect_eq(rbuf[static_cast<size_t>(displs[j] + rcounts[j])], kUntouched, r, j, rcounts[j]);
      }
    }));
  }
}

// Sizes depend on (sender, slot), zero included; send blocks are laid out in reverse order.
TEST(NeighborAlltoallv, EveryTopology) {
  auto size_of = [](int q, size_t k) { return (q + 2 * static_cast<int>(k)) % 4; };
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_NO_THROW(run_ranks(static_cast<int>(c.nbs.size()), [&](Transport& t) {
      const int r = t.rank();
      const Neighborhood& nb = c.nbs[static_cast<size_t>(r)];
      const size_t out = nb.destinations.size(), in = nb.sources.size();
      std::vector<int> scounts(out), sdispls(out), rcounts(in), rdispls(in);
      int at = 0;
      for (size_t k = out; k-- > 0;) {
        scounts[k] = size_of(r, k);
        sdispls[k] = at;
        at += scounts[k];
      }
      std::vector<int> sbuf(static_cast<size_t>(at) + 1);
      for (size_t k = 0; k < out; ++k)
        for (int i = 0; i < scounts[k]; ++i) sbuf[static_cast<size_t>(sdispls[k] + i)] = value(r, k, i);
      at = 0;
      for (size_t j = 0; j < in; ++j) {
        const int q = nb.sources[j];
        rcounts[j] = q == N ? 1 : size_of(q, paired_slot(c.nbs, r, j));
        rdispls[j] = at;
        at += rcounts[j] + 1;
      }
      std::vector<int> rbuf(static_cast<size_t>(at) + 1, kUntouched);
      coll::neighbor_alltoallv(t, nb, sbuf.data(), scounts.data(), sdispls.data(), MPI_INT, rbuf.data(),
                               rcounts.data(), rdispls.data(), MPI_INT);
      for (size_t j = 0; j < in; ++j) {
        const int q = nb.sources[j];
        for (int i = 0; i < rcounts[j]; ++i)
          expect_eq(rbuf[static_cast<size_t>(rdispls[j] + i)], q == N ? kUntouched : value(q, paired_slot(c.nbs, r, j), i),
                    r, j, i);
        expect_eq(rbuf[static_cast<size_t>(rdispls[j] + rcounts[j])], kUntouched, r, j, rcounts[j]);
      }
    }));
  }
}

// Per-block datatypes and byte displacements: odd send blocks travel as pairs of ints, received as ints.
TEST(NeighborAlltoallw, EveryTopology) {
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  auto ints_of = [](int q, size_t k) { return 2 * ((q + static_cast<int>(k)) % 3); };
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_NO_THROW(run_ranks(static_cast<int>(c.nbs.size()), [&](Transport& t) {
      const int r = t.rank();
      const Neighborhood& nb = c.nbs[static_cast<size_t>(r)];
      const size_t out = nb.destinations.size(), in = nb.sources.size();
      std::vector<int> scounts(out), rcounts(in);
      std::vector<MPI_Aint> sdispls(out), rdispls(in);
      std::vector<MPI_Datatype> stypes(out), rtypes(in, MPI_INT);
      int at = 0;
      for (size_t k = out; k-- > 0;) {
        const int n = ints_of(r, k);
        stypes[k] = k % 2 ? pair : MPI_INT;
        scounts[k] = k % 2 ? n / 2 : n;
        sdispls[k] = static_cast<MPI_Aint>(at) * static_cast<MPI_Aint>(sizeof(int));
        at += n;
      }
      std::vector<int> sbuf(static_cast<size_t>(at) + 1);
      for (size_t k = 0; k < out; ++k)
        for (int i = 0; i < ints_of(r, k); ++i)
          sbuf[static_cast<size_t>(sdispls[k] / static_cast<MPI_Aint>(sizeof(int))) + static_cast<size_t>(i)] = value(r, k, i);
      at = 0;
      for (size_t j = 0; j < in; ++j) {
        const int q = nb.sources[j];
        rcounts[j] = q == N ? 1 : ints_of(q, paired_slot(c.nbs, r, j));
        rdispls[j] = static_cast<MPI_Aint>(at) * static_cast<MPI_Aint>(sizeof(int));
        at += rcounts[j] + 1;
      }
      std::vector<int> rbuf(static_cast<size_t>(at) + 1, kUntouched);
      coll::neighbor_alltoallw(t, nb, sbuf.data(), scounts.data(), sdispls.data(), stypes.data(), rbuf.data(),
                               rcounts.data(), rdispls.data(), rtypes.data());
      for (size_t j = 0; j < in; ++j) {
        const int q = nb.sources[j];
        const size_t base = static_cast<size_t>(rdispls[j] / static_cast<MPI_Aint>(sizeof(int)));
        for (int i = 0; i < rcounts[j]; ++i)
          expect_eq(rbuf[base + static_cast<size_t>(i)], q == N ? kUntouched : value(q, paired_slot(c.nbs, r, j), i), r, j, i);
        expect_eq(rbuf[base + static_cast<size_t>(rcounts[j])], kUntouched, r, j, rcounts[j]);
      }
    }));
  }
  MPI_Type_free(&pair);
}

// The halo exchange the MPI-4.0 erratum (mpi-issues #153) spells out: in a periodic dimension of size 2
// or 1, what a rank sends to the right arrives on its right neighbour's left, and vice versa.
TEST(NeighborAlltoall, PeriodicSizeTwoAndOneSwapDirections) {
  for (int n : {1, 2}) {
    SCOPED_TRACE("ring of " + std::to_string(n));
    const std::vector<Neighborhood> nbs = cart_neighborhoods(grid({n}, {1}));
    std::vector<std::vector<int>> got(static_cast<size_t>(n));
    ASSERT_NO_THROW(run_ranks(n, [&](Transport& t) {
      const int r = t.rank();
      const int sbuf[2] = {100 * r + 1 /* to the left */, 100 * r + 2 /* to the right */};
      int rbuf[2] = {0, 0};
      coll::neighbor_alltoall(t, nbs[static_cast<size_t>(r)], sbuf, 1, MPI_INT, rbuf, 1, MPI_INT);
      got[static_cast<size_t>(r)] = {rbuf[0], rbuf[1]};
    }));
    for (int r = 0; r < n; ++r) {
      const int other = (r + 1) % n;  // both neighbours
      // left block: what the left neighbour sent to the right; right block: what the right one sent left
      EXPECT_EQ(got[static_cast<size_t>(r)], (std::vector<int>{100 * other + 2, 100 * other + 1}));
    }
  }
}

}  // namespace
