// Unit tests for libxsim/coll: every collective run by p threads over a thread-backed fake Transport
// (thread_transport.hpp) and compared with a straightforward reference computation (the native datatype
// helpers: test_native_datatype.cpp).
// MPI is initialized once (singleton init, no mpirun) by a global test environment.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "coll/collectives.hpp"
#include "coll/transport.hpp"
#include "native/datatype.hpp"
#include "shared_types.hpp"
#include "thread_transport.hpp"

namespace {

using xsim::coll::Transport;
namespace coll = xsim::coll;
namespace native = xsim::native;

using xsim_test::run_ranks;  // p ranks on threads over a mailbox Transport (thread_transport.hpp)

const std::vector<int> kSizes = {1, 2, 3, 4, 5, 7, 8, 13, 16};

// Deterministic test data: small integers (exact in double, no overflow in int sums).
int ival(int rank, int i) { return (rank * 131 + i * 17 + 7) % 1001 - 400; }
double dval(int rank, int i) { return static_cast<double>(ival(rank, i)); }
std::vector<int> imat(int rank, int i) {
  return {(rank * 7 + i * 3 + 1) % kMod, (rank * 5 + i + 2) % kMod, (rank * 11 + i * 13 + 3) % kMod,
          (rank + i * 2 + 5) % kMod};
}

template <class T>
T value(int rank, int i) {
  if constexpr (std::is_same_v<T, int>) return ival(rank, i);
  else return dval(rank, i);
}
template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else return MPI_DOUBLE;
}

// Reference reduction of ranks [lo, hi) for element i.
template <class T>
T ref_reduce(MPI_Op op, int lo, int hi, int i) {
  T acc = value<T>(lo, i);
  for (int r = lo + 1; r < hi; ++r) acc = op == MPI_SUM ? acc + value<T>(r, i) : std::max(acc, value<T>(r, i));
  return acc;
}
// Reference matrix product M_lo * ... * M_{hi-1} for element i.
std::vector<int> ref_matprod(int lo, int hi, int i) {
  std::vector<int> acc = imat(lo, i);
  for (int r = lo + 1; r < hi; ++r) {
    std::vector<int> m = imat(r, i), out(4);
    mat_mul(acc.data(), m.data(), out.data());
    acc = out;
  }
  return acc;
}
std::vector<int> mat_input(int rank, int count) {
  std::vector<int> v;
  for (int i = 0; i < count; ++i) {
    auto m = imat(rank, i);
    v.insert(v.end(), m.begin(), m.end());
  }
  return v;
}

// ---------------------------------------------------------------------------------------------------
// Barrier

TEST(coll, Barrier) {
  for (int p : kSizes) {
    std::atomic<int> arrived{0};
    std::atomic<int> early{0};
    const long msgs = run_ranks(p, [&](Transport& t) {
      ++arrived;
      coll::barrier(t);
      if (arrived.load() != p) ++early;
      coll::barrier(t);
    });
    EXPECT_EQ(early.load(), 0) << "p=" << p;
    int rounds = 0;
    while ((1 << rounds) < p) ++rounds;
    EXPECT_EQ(msgs, 2L * p * rounds) << "p=" << p;
  }
}

// ---------------------------------------------------------------------------------------------------
// Broadcast

template <class T>
void check_bcast(int p, int count, int root) {
  std::vector<std::vector<T>> bufs(p, std::vector<T>(count, T(-9999)));
  for (int i = 0; i < count; ++i) bufs[root][i] = value<T>(root, i);
  run_ranks(p, [&](Transport& t) { coll::bcast(t, bufs[t.rank()].data(), count, mpi_type<T>(), root); });
  for (int r = 0; r < p; ++r) ASSERT_EQ(bufs[r], bufs[root]) << "p=" << p << " count=" << count << " root=" << root;
}

TEST(coll, Bcast) {
  for (int p : kSizes) {
    for (int root : {0, p - 1, p / 2}) {
      for (int count : {0, 1, 600, 1601, 70000}) check_bcast<double>(p, count, root);
      check_bcast<int>(p, 3001, root);
    }
  }
}

TEST(coll, BcastDerivedVector) {
  // 600 vector elements = 14400 data bytes: binomial for p < 8, scatter + allgather otherwise.
  for (int p : kSizes) {
    for (int count : {1, 600, 22000}) {
      const int root = p / 3;
      const int n = count * 10;
      std::vector<std::vector<int>> bufs(p, std::vector<int>(n, -1));
      for (int i = 0; i < n; ++i) bufs[root][i] = i;
      run_ranks(p, [&](Transport& t) { coll::bcast(t, bufs[t.rank()].data(), count, g_vec, root); });
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < n; ++i) ASSERT_EQ(bufs[r][i], ((i % 10) % 4 < 2 || r == root) ? i : -1) << "p=" << p;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Reduce / allreduce

template <class T>
void check_reduce(int p, int count, MPI_Op op, int root, bool inplace) {
  std::vector<std::vector<T>> in(p, std::vector<T>(count)), out(p, std::vector<T>(count, T(-1)));
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < count; ++i) in[r][i] = value<T>(r, i);
  if (inplace) out[root] = in[root];
  run_ranks(p, [&](Transport& t) {
    const int r = t.rank();
    const void* s = (inplace && r == root) ? MPI_IN_PLACE : in[r].data();
    coll::reduce(t, s, out[r].data(), count, mpi_type<T>(), op, root);
  });
  for (int i = 0; i < count; ++i)
    ASSERT_EQ(out[root][i], ref_reduce<T>(op, 0, p, i)) << "p=" << p << " count=" << count << " root=" << root << " i=" << i;
  for (int r = 0; r < p; ++r)
    if (r != root && count > 0) {  // non-roots' receive buffers untouched
      ASSERT_EQ(out[r][0], T(-1));
    }
}

template <class T>
void check_allreduce(int p, int count, MPI_Op op, bool inplace) {
  std::vector<std::vector<T>> in(p, std::vector<T>(count)), out(p, std::vector<T>(count, T(-1)));
  for (int r = 0; r < p; ++r)
    for (int i = 0; i < count; ++i) in[r][i] = value<T>(r, i);
  if (inplace) out = in;
  run_ranks(p, [&](Transport& t) {
    const int r = t.rank();
    coll::allreduce(t, inplace ? MPI_IN_PLACE : in[r].data(), out[r].data(), count, mpi_type<T>(), op);
  });
  for (int i = 0; i < count; ++i) {
    const T want = ref_reduce<T>(op, 0, p, i);
    for (int r = 0; r < p; ++r) ASSERT_EQ(out[r][i], want) << "p=" << p << " count=" << count << " r=" << r;
  }
}

TEST(coll, Reduce) {
  for (int p : kSizes) {
    for (int root : {0, p - 1, p / 2}) {
      for (int count : {0, 1, 600, 70000}) {
        check_reduce<double>(p, count, MPI_SUM, root, false);
        check_reduce<int>(p, count, MPI_MAX, root, root == p - 1);
      }
      check_reduce<int>(p, 3, MPI_SUM, root, true);  // count < pof2: binomial even when large-ish
      check_reduce<double>(p, 1000, MPI_MAX, root, true);
    }
  }
}

TEST(coll, Allreduce) {
  for (int p : kSizes) {
    for (int count : {0, 1, 600, 70000}) {
      check_allreduce<double>(p, count, MPI_SUM, count == 600);
      check_allreduce<int>(p, count, MPI_MAX, count == 1);
    }
    check_allreduce<int>(p, 1025, MPI_SUM, true);
  }
}

// Non-commutative reductions (matrix product) must combine in rank order.
TEST(coll, NonCommutativeReduceAllreduceScan) {
  for (int p : kSizes) {
    for (int count : {1, 300}) {
      std::vector<std::vector<int>> in(p), out(p), out2(p), out3(p), out4(p);
      for (int r = 0; r < p; ++r) {
        in[r] = mat_input(r, count);
        out[r] = out2[r] = out3[r] = out4[r] = std::vector<int>(4 * count, -1);
      }
      const int root = p / 2;
      out2 = in;  // in-place allreduce
      run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        coll::reduce(t, in[r].data(), out[r].data(), count, g_mat, g_matmul, root);
        coll::allreduce(t, MPI_IN_PLACE, out2[r].data(), count, g_mat, g_matmul);
        coll::scan(t, in[r].data(), out3[r].data(), count, g_mat, g_matmul);
        coll::exscan(t, in[r].data(), out4[r].data(), count, g_mat, g_matmul);
      });
      for (int i = 0; i < count; ++i) {
        const auto all = ref_matprod(0, p, i);
        for (int k = 0; k < 4; ++k) ASSERT_EQ(out[root][4 * i + k], all[k]) << "reduce p=" << p;
        for (int r = 0; r < p; ++r) {
          const auto pre = ref_matprod(0, r + 1, i);
          for (int k = 0; k < 4; ++k) {
            ASSERT_EQ(out2[r][4 * i + k], all[k]) << "allreduce p=" << p << " r=" << r;
            ASSERT_EQ(out3[r][4 * i + k], pre[k]) << "scan p=" << p << " r=" << r;
            if (r > 0) {
              ASSERT_EQ(out4[r][4 * i + k], ref_matprod(0, r, i)[k]) << "exscan p=" << p << " r=" << r;
            }
          }
        }
      }
      if (count > 0) {  // exscan leaves rank 0's buffer alone
        EXPECT_EQ(out4[0][0], -1);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Scan / exscan (commutative)

TEST(coll, ScanExscan) {
  for (int p : kSizes) {
    for (int count : {0, 1, 600}) {
      for (bool inplace : {false, true}) {
        std::vector<std::vector<double>> in(p, std::vector<double>(count)), sc(p), ex(p);
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < count; ++i) in[r][i] = dval(r, i);
        for (int r = 0; r < p; ++r) sc[r] = ex[r] = inplace ? in[r] : std::vector<double>(count, -1);
        run_ranks(p, [&](Transport& t) {
          const int r = t.rank();
          coll::scan(t, inplace ? MPI_IN_PLACE : in[r].data(), sc[r].data(), count, MPI_DOUBLE, MPI_SUM);
          coll::exscan(t, inplace ? MPI_IN_PLACE : in[r].data(), ex[r].data(), count, MPI_DOUBLE, MPI_SUM);
        });
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < count; ++i) {
            ASSERT_EQ(sc[r][i], ref_reduce<double>(MPI_SUM, 0, r + 1, i)) << "p=" << p << " r=" << r;
            if (r > 0) {
              ASSERT_EQ(ex[r][i], ref_reduce<double>(MPI_SUM, 0, r, i)) << "p=" << p << " r=" << r;
            }
          }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Gather / scatter (+v)

TEST(coll, GatherScatter) {
  for (int p : kSizes) {
    for (int root : {0, p - 1, p / 2}) {
      for (int count : {0, 1, 600, 5000}) {
        for (bool inplace : {false, true}) {
          std::vector<std::vector<double>> send(p, std::vector<double>(count)), recv(p);
          std::vector<double> all(static_cast<size_t>(count) * p);
          for (int r = 0; r < p; ++r)
            for (int i = 0; i < count; ++i) all[r * count + i] = send[r][i] = dval(r, i);
          recv[root].assign(all.size(), -1);
          if (inplace) std::copy(send[root].begin(), send[root].end(), recv[root].begin() + root * count);
          run_ranks(p, [&](Transport& t) {
            const int r = t.rank();
            const void* s = (inplace && r == root) ? MPI_IN_PLACE : send[r].data();
            coll::gather(t, s, count, MPI_DOUBLE, recv[r].data(), count, MPI_DOUBLE, root);
          });
          ASSERT_EQ(recv[root], all) << "gather p=" << p << " root=" << root << " count=" << count;

          std::vector<std::vector<double>> got(p, std::vector<double>(count, -1));
          run_ranks(p, [&](Transport& t) {
            const int r = t.rank();
            void* rb = (inplace && r == root) ? MPI_IN_PLACE : got[r].data();
            coll::scatter(t, r == root ? all.data() : nullptr, count, MPI_DOUBLE, rb, count, MPI_DOUBLE, root);
          });
          for (int r = 0; r < p; ++r)
            if (!(inplace && r == root)) {
              ASSERT_EQ(got[r], send[r]) << "scatter p=" << p << " r=" << r;
            }
        }
      }
    }
  }
}

TEST(coll, GatherAllgatherDerivedVector) {
  // Each rank sends `count` dense ints; the root/all receive them as count/6 vector elements per rank.
  for (int p : kSizes) {
    for (int elems : {1, 100, 2000}) {
      const int dense = elems * 6, span = elems * 10;
      std::vector<std::vector<int>> send(p, std::vector<int>(dense)), recv(p, std::vector<int>(span * p, -1)),
          recv2 = recv;
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < dense; ++i) send[r][i] = r * 100000 + i;
      const int root = p - 1;
      run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        coll::gather(t, send[r].data(), dense, MPI_INT, recv[r].data(), elems, g_vec, root);
        coll::allgather(t, send[r].data(), dense, MPI_INT, recv2[r].data(), elems, g_vec);
      });
      auto expect = [&](const std::vector<int>& got) {
        for (int r = 0; r < p; ++r) {
          int k = 0;
          for (int i = 0; i < span; ++i) {
            const int want = (i % 10) % 4 < 2 ? r * 100000 + k++ : -1;
            if (got[r * span + i] != want) return false;
          }
        }
        return true;
      };
      EXPECT_TRUE(expect(recv[root])) << "gather p=" << p << " elems=" << elems;
      for (int r = 0; r < p; ++r) ASSERT_TRUE(expect(recv2[r])) << "allgather p=" << p << " r=" << r;
      // And the other way: send vector elements, receive dense.
      std::vector<std::vector<int>> vsend(p, std::vector<int>(span, -1)), dense_all(p, std::vector<int>(dense * p));
      for (int r = 0; r < p; ++r) {
        int k = 0;
        for (int i = 0; i < span; ++i)
          if ((i % 10) % 4 < 2) vsend[r][i] = r * 100000 + k++;
      }
      run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        coll::allgather(t, vsend[r].data(), elems, g_vec, dense_all[r].data(), dense, MPI_INT);
      });
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q)
          for (int i = 0; i < dense; ++i) ASSERT_EQ(dense_all[r][q * dense + i], q * 100000 + i);
    }
  }
}

TEST(coll, GathervScatterv) {
  for (int p : kSizes) {
    std::vector<int> counts(p), displs(p);
    int total = 0;
    for (int r = 0; r < p; ++r) {
      counts[r] = (r % 3 == 1) ? 0 : r * 7 + 1;
      displs[r] = total + 2;  // gaps between blocks stay untouched
      total += counts[r] + 2;
    }
    for (int root : {0, p - 1}) {
      for (bool inplace : {false, true}) {
        std::vector<std::vector<int>> send(p);
        std::vector<int> want(total, -1);
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < counts[r]; ++i) {
            send[r].push_back(ival(r, i));
            want[displs[r] + i] = ival(r, i);
          }
        std::vector<int> recv(total, -1);
        if (inplace) std::copy(send[root].begin(), send[root].end(), recv.begin() + displs[root]);
        run_ranks(p, [&](Transport& t) {
          const int r = t.rank();
          const void* s = (inplace && r == root) ? MPI_IN_PLACE : send[r].data();
          coll::gatherv(t, s, counts[r], MPI_INT, r == root ? recv.data() : nullptr, counts.data(), displs.data(),
                        MPI_INT, root);
        });
        ASSERT_EQ(recv, want) << "gatherv p=" << p;
        std::vector<std::vector<int>> got(p);
        for (int r = 0; r < p; ++r) got[r].assign(counts[r], -7);
        run_ranks(p, [&](Transport& t) {
          const int r = t.rank();
          void* rb = (inplace && r == root) ? MPI_IN_PLACE : got[r].data();
          coll::scatterv(t, r == root ? want.data() : nullptr, counts.data(), displs.data(), MPI_INT, rb, counts[r],
                         MPI_INT, root);
        });
        for (int r = 0; r < p; ++r)
          if (!(inplace && r == root)) {
            ASSERT_EQ(got[r], send[r]) << "scatterv p=" << p;
          }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Allgather / allgatherv

TEST(coll, Allgather) {
  // 5000 doubles: ring for every p but 2, 4, 8 (recursive doubling) — 600: Bruck for odd p below 81920 total.
  for (int p : kSizes) {
    for (int count : {0, 1, 600, 5000}) {
      for (bool inplace : {false, true}) {
        std::vector<double> all(static_cast<size_t>(count) * p);
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < count; ++i) all[r * count + i] = dval(r, i);
        std::vector<std::vector<double>> send(p), recv(p, std::vector<double>(all.size(), -1));
        for (int r = 0; r < p; ++r) {
          send[r].assign(all.begin() + r * count, all.begin() + (r + 1) * count);
          if (inplace) std::copy(send[r].begin(), send[r].end(), recv[r].begin() + r * count);
        }
        run_ranks(p, [&](Transport& t) {
          const int r = t.rank();
          coll::allgather(t, inplace ? MPI_IN_PLACE : send[r].data(), count, MPI_DOUBLE, recv[r].data(), count,
                          MPI_DOUBLE);
        });
        for (int r = 0; r < p; ++r) ASSERT_EQ(recv[r], all) << "p=" << p << " count=" << count << " r=" << r;
      }
    }
  }
}

TEST(coll, Allgatherv) {
  for (int p : kSizes) {
    for (bool inplace : {false, true}) {
      std::vector<int> counts(p), displs(p);
      int total = 0;
      for (int r = 0; r < p; ++r) {
        counts[r] = (r == 1) ? 0 : 50 * r + 3;
        displs[r] = total + 1;
        total += counts[r] + 1;
      }
      std::vector<int> want(total, -1);
      std::vector<std::vector<int>> send(p);
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < counts[r]; ++i) send[r].push_back(want[displs[r] + i] = ival(r, i));
      std::vector<std::vector<int>> recv(p, std::vector<int>(total, -1));
      if (inplace)
        for (int r = 0; r < p; ++r) std::copy(send[r].begin(), send[r].end(), recv[r].begin() + displs[r]);
      run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        coll::allgatherv(t, inplace ? MPI_IN_PLACE : send[r].data(), counts[r], MPI_INT, recv[r].data(),
                         counts.data(), displs.data(), MPI_INT);
      });
      for (int r = 0; r < p; ++r) ASSERT_EQ(recv[r], want) << "p=" << p << " r=" << r;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Alltoall / alltoallv

double a2a_val(int from, int to, int i) { return from * 1e6 + to * 1e3 + i; }

TEST(coll, Alltoall) {
  // 1 int (Bruck for p >= 8), 100 doubles (scattered), 5000 doubles (pairwise); p = 40 exercises throttling.
  std::vector<int> sizes = kSizes;
  sizes.push_back(40);
  for (int p : sizes) {
    for (int count : {0, 1, 100, 5000}) {
      if (p == 40 && count == 5000) continue;
      for (bool inplace : {false, true}) {
        std::vector<std::vector<double>> send(p, std::vector<double>(static_cast<size_t>(count) * p)),
            recv(p, std::vector<double>(static_cast<size_t>(count) * p, -1));
        for (int r = 0; r < p; ++r)
          for (int q = 0; q < p; ++q)
            for (int i = 0; i < count; ++i) send[r][q * count + i] = a2a_val(r, q, i);
        if (inplace) recv = send;
        run_ranks(p, [&](Transport& t) {
          const int r = t.rank();
          coll::alltoall(t, inplace ? MPI_IN_PLACE : send[r].data(), count, MPI_DOUBLE, recv[r].data(), count,
                         MPI_DOUBLE);
        });
        for (int r = 0; r < p; ++r)
          for (int q = 0; q < p; ++q)
            for (int i = 0; i < count; ++i)
              ASSERT_EQ(recv[r][q * count + i], a2a_val(q, r, i)) << "p=" << p << " count=" << count << " r=" << r;
      }
    }
  }
}

TEST(coll, AlltoallDerivedVector) {
  for (int p : {3, 8, 13}) {
    for (int elems : {1, 400}) {  // 24 bytes per pair: Bruck for p >= 8; 9600: scattered
      const int dense = 6 * elems, span = 10 * elems;
      std::vector<std::vector<int>> send(p, std::vector<int>(dense * p)), recv(p, std::vector<int>(span * p, -1));
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q)
          for (int i = 0; i < dense; ++i) send[r][q * dense + i] = r * 10000000 + q * 10000 + i;
      run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        coll::alltoall(t, send[r].data(), dense, MPI_INT, recv[r].data(), elems, g_vec);
      });
      for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q) {
          int k = 0;
          for (int i = 0; i < span; ++i)
            ASSERT_EQ(recv[r][q * span + i], (i % 10) % 4 < 2 ? q * 10000000 + r * 10000 + k++ : -1);
        }
    }
  }
}

TEST(coll, Alltoallv) {
  std::vector<int> sizes = kSizes;
  sizes.push_back(40);
  for (int p : sizes) {
    for (bool inplace : {false, true}) {
      // count(from, to): some zeros; symmetric when in place (as the standard requires).
      auto cnt = [&](int from, int to) {
        if (inplace) return (from + to) % 4 == 1 ? 0 : (from + to) % 5 + 1;
        return (from * 3 + to) % 4 == 0 ? 0 : (from + 2 * to) % 7 + 1;
      };
      std::vector<std::vector<int>> sc(p, std::vector<int>(p)), sd = sc, rc = sc, rd = sc;
      std::vector<std::vector<double>> send(p), recv(p);
      for (int r = 0; r < p; ++r) {
        int so = 0, ro = 0;
        for (int q = p - 1; q >= 0; --q) {  // blocks laid out in reverse rank order, with gaps
          sc[r][q] = cnt(r, q);
          sd[r][q] = so;
          so += sc[r][q] + 1;
          rc[r][q] = cnt(q, r);
          rd[r][q] = ro;
          ro += rc[r][q] + 2;
        }
        send[r].assign(so, -3);
        recv[r].assign(ro, -1);
        for (int q = 0; q < p; ++q)
          for (int i = 0; i < sc[r][q]; ++i) send[r][sd[r][q] + i] = a2a_val(r, q, i);
      }
      if (inplace) {
        for (int r = 0; r < p; ++r)
          for (int q = 0; q < p; ++q)
            for (int i = 0; i < rc[r][q]; ++i) recv[r][rd[r][q] + i] = a2a_val(r, q, i);
      }
      run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        coll::alltoallv(t, inplace ? MPI_IN_PLACE : send[r].data(), sc[r].data(), sd[r].data(), MPI_DOUBLE,
                        recv[r].data(), rc[r].data(), rd[r].data(), MPI_DOUBLE);
      });
      for (int r = 0; r < p; ++r) {
        std::vector<double> want(recv[r].size(), -1);
        for (int q = 0; q < p; ++q)
          for (int i = 0; i < rc[r][q]; ++i) want[rd[r][q] + i] = a2a_val(q, r, i);
        ASSERT_EQ(recv[r], want) << "p=" << p << " r=" << r << " inplace=" << inplace;
      }
    }
  }
}

TEST(coll, Alltoallw) {
  // Per pair (from, to): `units(from, to)` units, some zero. Out of place, a unit is 6 ints when from + to is
  // even (sent as 6 MPI_INT, received as one g_vec: a different datatype on each side, same signature), else
  // one double; in place (symmetric counts and types, as the standard requires) always one double. Blocks
  // are laid out in reverse rank order with gaps, at byte displacements.
  std::vector<int> sizes = kSizes;
  sizes.push_back(40);
  for (int p : sizes) {
    for (bool inplace : {false, true}) {
      auto units = [&](int from, int to) {
        if (inplace) return (from + to) % 4 == 1 ? 0 : (from + to) % 3 + 1;
        return (from * 3 + to) % 4 == 0 ? 0 : (from + 2 * to) % 5 + 1;
      };
      auto ints = [&](int from, int to) { return !inplace && (from + to) % 2 == 0; };
      auto ival6 = [](int from, int to, int k) { return from * 100000 + to * 1000 + k; };
      std::vector<std::vector<int>> sc(p, std::vector<int>(p)), sd = sc, rc = sc, rd = sc;
      std::vector<std::vector<MPI_Datatype>> st(p, std::vector<MPI_Datatype>(p)), rt = st;
      std::vector<std::vector<char>> send(p), recv(p), want(p);
      for (int r = 0; r < p; ++r) {
        int so = 0, ro = 0;
        for (int q = p - 1; q >= 0; --q) {
          const int us = units(r, q), ur = units(q, r);
          sc[r][q] = ints(r, q) ? 6 * us : us;
          st[r][q] = ints(r, q) ? MPI_INT : MPI_DOUBLE;
          sd[r][q] = so;
          so += (ints(r, q) ? 24 * us : 8 * us) + 8;
          rc[r][q] = ur;
          rt[r][q] = ints(q, r) ? g_vec : MPI_DOUBLE;
          rd[r][q] = ro;
          ro += (ints(q, r) ? 40 * ur : 8 * ur) + 16;
        }
        send[r].assign(so, 0x5a);
        recv[r].assign(ro, static_cast<char>(0xee));
        want[r] = recv[r];
        for (int q = 0; q < p; ++q) {
          for (int i = 0; i < sc[r][q]; ++i) {
            char* at = send[r].data() + sd[r][q];
            if (ints(r, q)) reinterpret_cast<int*>(at)[i] = ival6(r, q, i);
            else reinterpret_cast<double*>(at)[i] = a2a_val(r, q, i);
          }
          // expected: what q sends me, element by element, at the positions of my receive type
          char* w = want[r].data() + rd[r][q];
          if (ints(q, r)) {
            int k = 0;
            for (int u = 0; u < rc[r][q]; ++u)
              for (int j = 0; j < 10; ++j)
                if (j % 4 < 2) reinterpret_cast<int*>(w)[u * 10 + j] = ival6(q, r, k++);
          } else {
            for (int i = 0; i < rc[r][q]; ++i) reinterpret_cast<double*>(w)[i] = a2a_val(q, r, i);
          }
        }
        if (inplace)
          for (int q = 0; q < p; ++q)
            for (int i = 0; i < rc[r][q]; ++i)
              reinterpret_cast<double*>(recv[r].data() + rd[r][q])[i] = a2a_val(r, q, i);
      }
      run_ranks(p, [&](Transport& t) {
        const int r = t.rank();
        coll::alltoallw(t, inplace ? MPI_IN_PLACE : send[r].data(), sc[r].data(), sd[r].data(), st[r].data(),
                        recv[r].data(), rc[r].data(), rd[r].data(), rt[r].data());
      });
      for (int r = 0; r < p; ++r) ASSERT_EQ(recv[r], want[r]) << "p=" << p << " r=" << r << " inplace=" << inplace;
    }
  }
}

TEST(coll, AlltoallwMessages) {
  // Scattered: one message per ordered pair with data, none for empty blocks or to oneself.
  const int p = 5;
  std::vector<int> counts(p, 2), displs(p);
  std::vector<MPI_Datatype> types(p, MPI_INT);
  for (int i = 0; i < p; ++i) displs[i] = i * 8;
  std::vector<std::vector<int>> s(p, std::vector<int>(2 * p, 1)), r(p, std::vector<int>(2 * p));
  long msgs = run_ranks(p, [&](Transport& t) {
    const int me = t.rank();
    coll::alltoallw(t, s[me].data(), counts.data(), displs.data(), types.data(), r[me].data(), counts.data(),
                    displs.data(), types.data());
  });
  EXPECT_EQ(msgs, p * (p - 1));
  std::vector<int> zeros(p, 0);
  msgs = run_ranks(p, [&](Transport& t) {
    const int me = t.rank();
    coll::alltoallw(t, s[me].data(), zeros.data(), displs.data(), types.data(), r[me].data(), zeros.data(),
                    displs.data(), types.data());
  });
  EXPECT_EQ(msgs, 0);
}

// ---------------------------------------------------------------------------------------------------
// Reduce-scatter

TEST(coll, ReduceScatter) {
  for (int p : kSizes) {
    for (int scale : {1, 100, 20000}) {  // 20000: above 524288 bytes for every p -> pairwise
      for (bool inplace : {false, true}) {
        std::vector<int> counts(p);
        for (int r = 0; r < p; ++r) counts[r] = (r % 4 == 2) ? 0 : scale + r;
        int total = 0;
        for (int c : counts) total += c;
        std::vector<std::vector<int>> in(p, std::vector<int>(total)), out(p);
        for (int r = 0; r < p; ++r) {
          for (int i = 0; i < total; ++i) in[r][i] = ival(r, i);
          out[r] = inplace ? in[r] : std::vector<int>(counts[r], -1);
        }
        run_ranks(p, [&](Transport& t) {
          const int r = t.rank();
          coll::reduce_scatter(t, inplace ? MPI_IN_PLACE : in[r].data(), out[r].data(), counts.data(), MPI_INT,
                               MPI_SUM);
        });
        int off = 0;
        for (int r = 0; r < p; ++r) {
          for (int i = 0; i < counts[r]; ++i)
            ASSERT_EQ(out[r][i], ref_reduce<int>(MPI_SUM, 0, p, off + i)) << "p=" << p << " r=" << r;
          off += counts[r];
        }
      }
    }
  }
}

TEST(coll, ReduceScatterBlockAndNonCommutative) {
  for (int p : kSizes) {
    for (int count : {1, 50}) {
      for (bool inplace : {false, true}) {
        // Commutative, block.
        std::vector<std::vector<double>> in(p, std::vector<double>(count * p)), out(p);
        for (int r = 0; r < p; ++r) {
          for (int i = 0; i < count * p; ++i) in[r][i] = dval(r, i);
          out[r] = inplace ? in[r] : std::vector<double>(count, -1);
        }
        // Non-commutative, irregular counts.
        std::vector<int> mcounts(p);
        int mtotal = 0;
        for (int r = 0; r < p; ++r) mtotal += mcounts[r] = (r % 3 == 1) ? 0 : count + r;
        std::vector<std::vector<int>> min(p), mout(p);
        for (int r = 0; r < p; ++r) {
          min[r] = mat_input(r, mtotal);
          mout[r] = inplace ? min[r] : std::vector<int>(4 * mcounts[r], -1);
        }
        run_ranks(p, [&](Transport& t) {
          const int r = t.rank();
          coll::reduce_scatter_block(t, inplace ? MPI_IN_PLACE : in[r].data(), out[r].data(), count, MPI_DOUBLE,
                                     MPI_MAX);
          coll::reduce_scatter(t, inplace ? MPI_IN_PLACE : min[r].data(), mout[r].data(), mcounts.data(), g_mat,
                               g_matmul);
        });
        int off = 0;
        for (int r = 0; r < p; ++r) {
          for (int i = 0; i < count; ++i)
            ASSERT_EQ(out[r][i], ref_reduce<double>(MPI_MAX, 0, p, r * count + i)) << "p=" << p << " r=" << r;
          for (int i = 0; i < mcounts[r]; ++i) {
            const auto want = ref_matprod(0, p, off + i);
            for (int k = 0; k < 4; ++k) ASSERT_EQ(mout[r][4 * i + k], want[k]) << "p=" << p << " r=" << r;
          }
          off += mcounts[r];
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Algorithm choice, seen through message counts (one thread transport counts isends).

TEST(coll, AlgorithmMessageCounts) {
  auto bcast_msgs = [&](int p, int count) {
    std::vector<std::vector<double>> b(p, std::vector<double>(count, 1.0));
    return run_ranks(p, [&](Transport& t) { coll::bcast(t, b[t.rank()].data(), count, MPI_DOUBLE, 0); });
  };
  EXPECT_EQ(bcast_msgs(16, 1), 15);                   // binomial: p - 1 messages
  EXPECT_EQ(bcast_msgs(16, 2000), 15 + 16 * 4);       // scatter (p-1) + recursive doubling (p log p)
  EXPECT_EQ(bcast_msgs(13, 2000), 12 + 13 * 12);      // scatter + ring (p (p-1))
  auto allreduce_msgs = [&](int p, int count) {
    std::vector<std::vector<double>> b(p, std::vector<double>(count, 1.0));
    return run_ranks(p, [&](Transport& t) {
      coll::allreduce(t, MPI_IN_PLACE, b[t.rank()].data(), count, MPI_DOUBLE, MPI_SUM);
    });
  };
  EXPECT_EQ(allreduce_msgs(8, 1), 8 * 3);        // recursive doubling
  EXPECT_EQ(allreduce_msgs(8, 1000), 8 * 3 * 2);  // reduce-scatter + allgather
  EXPECT_EQ(allreduce_msgs(5, 1), 1 + 4 * 2 + 1);  // fold, doubling among 4, unfold
  auto reduce_msgs = [&](int p, int count, int root) {
    std::vector<std::vector<double>> b(p, std::vector<double>(count, 1.0)), o = b;
    return run_ranks(p, [&](Transport& t) {
      coll::reduce(t, b[t.rank()].data(), o[t.rank()].data(), count, MPI_DOUBLE, MPI_SUM, root);
    });
  };
  EXPECT_EQ(reduce_msgs(13, 1, 6), 12);                   // binomial
  EXPECT_EQ(reduce_msgs(13, 1000, 12), 5 + 8 * 3 + 7);     // fold, halving, binomial gather
  EXPECT_EQ(reduce_msgs(13, 1000, 6), 5 + 8 * 3 + 7 + 1);  // root sat out: its neighbour forwards
  auto allgather_msgs = [&](int p, int count) {
    std::vector<std::vector<double>> b(p, std::vector<double>(count * p, 1.0));
    return run_ranks(p, [&](Transport& t) {
      coll::allgather(t, MPI_IN_PLACE, 0, MPI_DOUBLE, b[t.rank()].data(), count, MPI_DOUBLE);
    });
  };
  EXPECT_EQ(allgather_msgs(8, 1), 8 * 3);         // recursive doubling
  EXPECT_EQ(allgather_msgs(13, 1), 13 * 4);       // Bruck: 3 doubling steps + the remainder
  EXPECT_EQ(allgather_msgs(13, 1000), 13 * 12);   // ring
  auto alltoall_msgs = [&](int p, int count) {
    std::vector<std::vector<double>> s(p, std::vector<double>(count * p, 1.0)), r = s;
    return run_ranks(p, [&](Transport& t) {
      coll::alltoall(t, s[t.rank()].data(), count, MPI_DOUBLE, r[t.rank()].data(), count, MPI_DOUBLE);
    });
  };
  EXPECT_EQ(alltoall_msgs(8, 1), 8 * 3);       // Bruck
  EXPECT_EQ(alltoall_msgs(7, 1), 7 * 6);       // p < 8: scattered
  EXPECT_EQ(alltoall_msgs(8, 5000), 8 * 7);    // pairwise
  auto rs_msgs = [&](int p, int count, MPI_Op op) {
    std::vector<std::vector<int>> s(p, std::vector<int>(4 * count * p, 1)), r = s;
    return run_ranks(p, [&](Transport& t) {
      coll::reduce_scatter_block(t, s[t.rank()].data(), r[t.rank()].data(), count, op == MPI_SUM ? MPI_INT : g_mat,
                                 op);
    });
  };
  EXPECT_EQ(rs_msgs(8, 10, MPI_SUM), 8 * 3);       // recursive halving
  EXPECT_EQ(rs_msgs(6, 10, MPI_SUM), 6 * 5);       // pairwise (p not a power of two)
  EXPECT_EQ(rs_msgs(6, 10, g_matmul), 5 + 5);      // binomial reduce to 0 + scatterv
}

// Zero counts everywhere: nothing hangs, nothing is written.
TEST(coll, ZeroCounts) {
  for (int p : {1, 3, 8}) {
    std::vector<int> zeros(p, 0), displs(p, 0);
    run_ranks(p, [&](Transport& t) {
      int x = 5;
      coll::bcast(t, &x, 0, MPI_INT, 0);
      coll::reduce(t, &x, &x, 0, MPI_INT, MPI_SUM, 0);
      coll::allreduce(t, MPI_IN_PLACE, &x, 0, MPI_INT, MPI_SUM);
      coll::gather(t, &x, 0, MPI_INT, &x, 0, MPI_INT, 0);
      coll::scatter(t, &x, 0, MPI_INT, &x, 0, MPI_INT, 0);
      coll::gatherv(t, &x, 0, MPI_INT, &x, zeros.data(), displs.data(), MPI_INT, 0);
      coll::scatterv(t, &x, zeros.data(), displs.data(), MPI_INT, &x, 0, MPI_INT, 0);
      coll::allgather(t, &x, 0, MPI_INT, &x, 0, MPI_INT);
      coll::allgatherv(t, &x, 0, MPI_INT, &x, zeros.data(), displs.data(), MPI_INT);
      coll::alltoall(t, &x, 0, MPI_INT, &x, 0, MPI_INT);
      coll::alltoallv(t, &x, zeros.data(), displs.data(), MPI_INT, &x, zeros.data(), displs.data(), MPI_INT);
      coll::reduce_scatter(t, &x, &x, zeros.data(), MPI_INT, MPI_SUM);
      coll::reduce_scatter_block(t, &x, &x, 0, MPI_INT, MPI_SUM);
      coll::scan(t, &x, &x, 0, MPI_INT, MPI_SUM);
      coll::exscan(t, &x, &x, 0, MPI_INT, MPI_SUM);
      coll::barrier(t);
      if (x != 5) throw std::runtime_error("zero-count collective wrote data");
    });
  }
}

}  // namespace
