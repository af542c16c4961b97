// Unit tests for libxsim/coll/intercomm: every intercommunicator collective run by a + b threads (group A
// = threads 0..a-1, group B = the rest) over the thread-backed Transport, seen through two views per rank
// (its own group, and the remote group), and compared with the result MPI defines. Group sizes include 1
// and unequal sizes; roots are in either group; A is the low group.
#include <gtest/gtest.h>
#include <mpi.h>

#include <utility>
#include <vector>

#include "coll/intercomm.hpp"
#include "thread_transport.hpp"

namespace {

using xsim::coll::Transport;
using xsim_test::run_ranks;
namespace inter = xsim::coll::inter;

[[maybe_unused]] ::testing::Environment* const g_env =
    ::testing::AddGlobalTestEnvironment(new xsim_test::MpiTestEnvironment);

// A group's view of the underlying transport: ranks [offset, offset + size) with tags shifted by `tags`.
class View final : public Transport {
 public:
  View(Transport& base, int rank, int size, int offset, int tags)
      : b_(base), rank_(rank), size_(size), off_(offset), tags_(tags) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag) override {
    return b_.isend(buf, count, type, off_ + dest, tag + tags_);
  }
  int irecv(void* buf, int count, MPI_Datatype type, int source, int tag) override {
    return b_.irecv(buf, count, type, off_ + source, tag + tags_);
  }
  void waitall(int n, const int* ids) override { b_.waitall(n, ids); }

 private:
  Transport& b_;
  int rank_, size_, off_, tags_;
};

// What a rank knows in an intercommunicator test.
struct Side {
  Transport& local;
  Transport& remote;
  bool in_a;
  int world;  // rank among all a + b threads
  int r;      // rank in its group
  int ls, rs; // local and remote group sizes
  int remote_world(int i) const { return in_a ? ls + i : i; }  // A's world ranks come first
};

// Runs body(side) on a + b threads.
void run_inter(int a, int b, const std::function<void(Side&)>& body) {
  run_ranks(a + b, [&](Transport& t) {
    const int w = t.rank();
    const bool in_a = w < a;
    const int r = in_a ? w : w - a, ls = in_a ? a : b, rs = in_a ? b : a;
    View local(t, r, ls, in_a ? 0 : a, 0), remote(t, r, rs, in_a ? a : 0, 1000);
    Side s{local, remote, in_a, w, r, ls, rs};
    body(s);
  });
}

int val(int world, int i) { return world * 1000 + i; }

const std::vector<std::pair<int, int>> kGroups = {{1, 1}, {1, 3}, {2, 5}, {4, 4}, {5, 3}, {7, 2}};

TEST(intercomm, BarrierBcastReduceAllreduce) {
  for (auto [a, b] : kGroups) {
    for (int root_in_a = 0; root_in_a < 2; ++root_in_a) {
      const int rootrank = (root_in_a ? a : b) - 1;  // the last rank of the root's group
      std::vector<int> bc(a + b, -1), red(a + b, -1), all(a + b, -1);
      run_inter(a, b, [&](Side& s) {
        inter::barrier(s.local, s.remote, s.in_a);
        const bool rootgroup = s.in_a == (root_in_a == 1);
        const int root = rootgroup ? (s.r == rootrank ? MPI_ROOT : MPI_PROC_NULL) : rootrank;
        int v = root == MPI_ROOT ? 4242 : -1;
        inter::bcast(s.local, s.remote, &v, 1, MPI_INT, root);
        bc[s.world] = v;
        int mine = val(s.world, 0), sum = -1;
        inter::reduce(s.local, s.remote, &mine, &sum, 1, MPI_INT, MPI_SUM, root);
        red[s.world] = sum;
        inter::allreduce(s.local, s.remote, &mine, &sum, 1, MPI_INT, MPI_SUM);
        all[s.world] = sum;
      });
      int sum_a = 0, sum_b = 0;
      for (int w = 0; w < a + b; ++w) (w < a ? sum_a : sum_b) += val(w, 0);
      for (int w = 0; w < a + b; ++w) {
        const bool in_a = w < a, rootgroup = in_a == (root_in_a == 1);
        const bool is_root = rootgroup && (in_a ? w : w - a) == rootrank;
        EXPECT_EQ(bc[w], rootgroup && !is_root ? -1 : 4242) << a << "+" << b << " w=" << w;
        if (is_root) EXPECT_EQ(red[w], in_a ? sum_b : sum_a) << a << "+" << b;
        EXPECT_EQ(all[w], in_a ? sum_b : sum_a) << a << "+" << b << " w=" << w;
      }
    }
  }
}

TEST(intercomm, GatherScatterShortAndLong) {
  for (auto [a, b] : kGroups) {
    for (int n : {1, 600}) {  // 4 bytes a rank: via the other group's rank 0; 2400 bytes: linear
      std::vector<std::vector<int>> got(a + b);
      run_inter(a, b, [&](Side& s) {
        // root: rank 0 of A
        const int root = s.in_a ? (s.r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        std::vector<int> mine(n), all(static_cast<size_t>(n) * s.rs, -1);
        for (int i = 0; i < n; ++i) mine[i] = val(s.world, i);
        inter::gather(s.local, s.remote, mine.data(), n, MPI_INT, all.data(), n, MPI_INT, root);
        if (root == MPI_ROOT) {
          for (int q = 0; q < s.rs; ++q)
            for (int i = 0; i < n; ++i) EXPECT_EQ(all[q * n + i], val(s.remote_world(q), i));
          for (int q = 0; q < s.rs; ++q)
            for (int i = 0; i < n; ++i) all[q * n + i] = val(s.remote_world(q), i) + 7;
        }
        std::vector<int> back(n, -1);
        inter::scatter(s.local, s.remote, all.data(), n, MPI_INT, back.data(), n, MPI_INT, root);
        got[s.world] = back;
      });
      for (int w = a; w < a + b; ++w)
        for (int i = 0; i < n; ++i) EXPECT_EQ(got[w][i], val(w, i) + 7) << a << "+" << b << " n=" << n;
    }
  }
}

TEST(intercomm, VectorVariants) {
  for (auto [a, b] : kGroups) {
    run_inter(a, b, [&](Side& s) {
      auto cnt = [](int world) { return world % 3; };  // some zero
      // gatherv / scatterv to rank 0 of B
      const int root = s.in_a ? 0 : (s.r == 0 ? MPI_ROOT : MPI_PROC_NULL);
      std::vector<int> counts(s.rs), displs(s.rs);
      int off = 0;
      for (int q = 0; q < s.rs; ++q) counts[q] = cnt(s.remote_world(q)), displs[q] = off, off += counts[q] + 1;
      std::vector<int> mine(cnt(s.world)), all(off + 1, -1);
      for (int i = 0; i < cnt(s.world); ++i) mine[i] = val(s.world, i);
      inter::gatherv(s.local, s.remote, mine.data(), s.in_a ? cnt(s.world) : 0, MPI_INT, all.data(), counts.data(),
                     displs.data(), MPI_INT, root);
      if (root == MPI_ROOT)
        for (int q = 0; q < s.rs; ++q)
          for (int i = 0; i < counts[q]; ++i) EXPECT_EQ(all[displs[q] + i], val(s.remote_world(q), i));
      std::vector<int> back(cnt(s.world) + 1, -1);
      inter::scatterv(s.local, s.remote, all.data(), counts.data(), displs.data(), MPI_INT, back.data(),
                      s.in_a ? cnt(s.world) : 0, MPI_INT, root);
      if (s.in_a)
        for (int i = 0; i < cnt(s.world); ++i) EXPECT_EQ(back[i], val(s.world, i));
      // allgather (2 ints) and allgatherv (cnt ints)
      int two[2] = {val(s.world, 0), val(s.world, 1)};
      std::vector<int> ag(2 * s.rs, -1);
      inter::allgather(s.local, s.remote, s.in_a, two, 2, MPI_INT, ag.data(), 2, MPI_INT);
      for (int q = 0; q < s.rs; ++q) {
        EXPECT_EQ(ag[2 * q], val(s.remote_world(q), 0));
        EXPECT_EQ(ag[2 * q + 1], val(s.remote_world(q), 1));
      }
      std::fill(all.begin(), all.end(), -1);
      inter::allgatherv(s.local, s.remote, s.in_a, mine.data(), cnt(s.world), MPI_INT, all.data(), counts.data(),
                        displs.data(), MPI_INT);
      for (int q = 0; q < s.rs; ++q)
        for (int i = 0; i < counts[q]; ++i) EXPECT_EQ(all[displs[q] + i], val(s.remote_world(q), i));
    });
  }
}

TEST(intercomm, AllToAll) {
  for (auto [a, b] : kGroups) {
    run_inter(a, b, [&](Side& s) {
      auto pair = [](int from, int to, int i) { return from * 10000 + to * 100 + i; };
      auto cnt = [](int from, int to) { return (from + to) % 3; };
      // alltoall, 2 ints a pair
      std::vector<int> sb(2 * s.rs), rb(2 * s.rs, -1);
      for (int q = 0; q < s.rs; ++q)
        for (int i = 0; i < 2; ++i) sb[2 * q + i] = pair(s.world, s.remote_world(q), i);
      inter::alltoall(s.local, s.remote, sb.data(), 2, MPI_INT, rb.data(), 2, MPI_INT);
      for (int q = 0; q < s.rs; ++q)
        for (int i = 0; i < 2; ++i) EXPECT_EQ(rb[2 * q + i], pair(s.remote_world(q), s.world, i));
      // alltoallv and alltoallw (bytes displacements), counts (from + to) % 3
      std::vector<int> sc(s.rs), sd(s.rs), rc(s.rs), rd(s.rs), sdb(s.rs), rdb(s.rs);
      int so = 0, ro = 0;
      for (int q = 0; q < s.rs; ++q) {
        sc[q] = cnt(s.world, s.remote_world(q)), sd[q] = so, sdb[q] = 4 * so, so += sc[q];
        rc[q] = cnt(s.remote_world(q), s.world), rd[q] = ro, rdb[q] = 4 * ro, ro += rc[q] + 1;
      }
      std::vector<int> vs(so + 1), vr(ro + 1, -1);
      for (int q = 0; q < s.rs; ++q)
        for (int i = 0; i < sc[q]; ++i) vs[sd[q] + i] = pair(s.world, s.remote_world(q), i);
      inter::alltoallv(s.local, s.remote, vs.data(), sc.data(), sd.data(), MPI_INT, vr.data(), rc.data(), rd.data(),
                       MPI_INT);
      for (int q = 0; q < s.rs; ++q)
        for (int i = 0; i < rc[q]; ++i) EXPECT_EQ(vr[rd[q] + i], pair(s.remote_world(q), s.world, i));
      std::fill(vr.begin(), vr.end(), -1);
      std::vector<MPI_Datatype> types(s.rs, MPI_INT);
      inter::alltoallw(s.local, s.remote, vs.data(), sc.data(), sdb.data(), types.data(), vr.data(), rc.data(),
                       rdb.data(), types.data());
      for (int q = 0; q < s.rs; ++q)
        for (int i = 0; i < rc[q]; ++i) EXPECT_EQ(vr[rd[q] + i], pair(s.remote_world(q), s.world, i));
    });
  }
}

TEST(intercomm, ReduceScatter) {
  for (auto [a, b] : kGroups) {
    run_inter(a, b, [&](Side& s) {
      // both groups reduce a * b elements: A's ranks get b each, B's ranks a each
      const int per = s.rs, total = a * b;
      std::vector<int> in(total), out(per, -1), counts(s.ls, per);
      for (int i = 0; i < total; ++i) in[i] = val(s.world, i);
      auto want = [&](int g) {
        int sum = 0;
        for (int q = 0; q < s.rs; ++q) sum += val(s.remote_world(q), g);
        return sum;
      };
      inter::reduce_scatter(s.local, s.remote, s.in_a, in.data(), out.data(), counts.data(), MPI_INT, MPI_SUM);
      for (int k = 0; k < per; ++k) EXPECT_EQ(out[k], want(s.r * per + k)) << a << "+" << b;
      std::fill(out.begin(), out.end(), -1);
      inter::reduce_scatter_block(s.local, s.remote, s.in_a, in.data(), out.data(), per, MPI_INT, MPI_SUM);
      for (int k = 0; k < per; ++k) EXPECT_EQ(out[k], want(s.r * per + k)) << a << "+" << b;
    });
  }
}

TEST(intercomm, BcastMessageCount) {
  // MPI_ROOT -> remote rank 0 (1 message), then a binomial bcast among the b ranks (b - 1 messages).
  for (auto [a, b] : kGroups) {
    long msgs = run_ranks(a + b, [&](Transport& t) {
      const int w = t.rank();
      const bool in_a = w < a;
      const int r = in_a ? w : w - a;
      View local(t, r, in_a ? a : b, in_a ? 0 : a, 0), remote(t, r, in_a ? b : a, in_a ? a : 0, 1000);
      int v = 1;
      inter::bcast(local, remote, &v, 1, MPI_INT, in_a ? (r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0);
    });
    EXPECT_EQ(msgs, b) << a << "+" << b;
  }
}

}  // namespace
