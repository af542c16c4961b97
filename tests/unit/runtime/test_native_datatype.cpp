// Unit tests for libxsim/native's datatype helpers: contiguity, sizes and extents, pack/unpack/copy with a
// partial last element, commutativity of operations, and the caches' thread safety (the first pack of a new
// derived type, the named-type cache) from several threads at once. MPI is initialized once (singleton
// init, no mpirun) by a global test environment (support/shared_types.hpp).
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "native/datatype.hpp"
#include "native/flatten.hpp"
#include "shared_types.hpp"
#include "thread_transport.hpp"

namespace {

namespace native = xsim::native;

TEST(coll_native, ContiguityAndExtents) {
  EXPECT_TRUE(native::type_is_contiguous(MPI_INT));
  EXPECT_TRUE(native::type_is_contiguous(MPI_DOUBLE));
  EXPECT_TRUE(native::type_is_contiguous(g_mat));
  EXPECT_FALSE(native::type_is_contiguous(g_vec));
  EXPECT_FALSE(native::type_is_contiguous(MPI_DOUBLE_INT));  // padded pair type
  MPI_Datatype resized;
  MPI_Type_create_resized(MPI_INT, 0, 8, &resized);
  MPI_Type_commit(&resized);
  EXPECT_FALSE(native::type_is_contiguous(resized));
  MPI_Type_free(&resized);
  EXPECT_EQ(native::type_size(g_vec), 24u);
  EXPECT_EQ(native::type_extent(g_vec).extent, 40);
  EXPECT_EQ(native::type_true_extent(g_vec).lb, 0);
}

TEST(coll_native, PackUnpackCopyAndPartialElement) {
  std::vector<int> src(20);
  for (int i = 0; i < 20; ++i) src[i] = i;
  std::vector<int> packed(12);
  native::pack(src.data(), 2, g_vec, packed.data());  // elements at 0..9 and 10..19
  EXPECT_EQ(packed, (std::vector<int>{0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}));
  std::vector<int> out(20, -1);
  native::unpack(packed.data(), 12 * sizeof(int), out.data(), 2, g_vec);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(out[i], (i % 10) % 4 < 2 ? i : -1) << i;
  // A message shorter than the receive: 1.5 elements fill the first 3 ints of element 2 only.
  std::vector<int> part(20, -1);
  native::unpack(packed.data(), 9 * sizeof(int), part.data(), 2, g_vec);
  const std::vector<int> want = {0, 1, -1, -1, 4, 5, -1, -1, 8, 9, 10, 11, -1, -1, 14, -1, -1, -1, -1, -1};
  EXPECT_EQ(part, want);
  std::vector<int> dense(12, 0);
  native::copy(src.data(), 2, g_vec, dense.data(), 12, MPI_INT);
  EXPECT_EQ(dense, packed);
  EXPECT_TRUE(native::op_is_commutative(MPI_SUM));
  EXPECT_FALSE(native::op_is_commutative(g_matmul));
  int a[2] = {1, 2}, b[2] = {10, 20};
  native::reduce_local(a, b, 2, MPI_INT, MPI_SUM);
  EXPECT_EQ(b[1], 22);
  void* raw = nullptr;
  void* base = native::alloc_typed_buffer(3, g_vec, &raw);
  EXPECT_EQ(base, raw);
  native::free_typed_buffer(raw);
  EXPECT_THROW(native::type_size(MPI_DATATYPE_NULL), native::MpiError);
}

// HPL's panel: a struct of long columns of doubles (and a block of ints) gives one run per column, in
// type-map order, and packs as the native MPI packs it.
TEST(coll_native, StructOfColumnsFlattensToOneRunPerColumn) {
  constexpr int kRows = 1000, kLd = 1200, kCols = 3;
  std::vector<double> a(static_cast<size_t>(kLd) * kCols);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i);
  int pivots[4] = {7, 8, 9, 10};
  int lens[kCols + 1];
  MPI_Aint displs[kCols + 1];
  MPI_Datatype types[kCols + 1];
  MPI_Aint origin;
  MPI_Get_address(a.data(), &origin);
  for (int j = 0; j < kCols; ++j) {
    lens[j] = kRows;
    MPI_Get_address(&a[static_cast<size_t>(j) * kLd], &displs[j]);
    displs[j] -= origin;
    types[j] = MPI_DOUBLE;
  }
  lens[kCols] = 4;
  MPI_Get_address(pivots, &displs[kCols]);
  displs[kCols] -= origin;
  types[kCols] = MPI_INT;
  MPI_Datatype panel;
  MPI_Type_create_struct(kCols + 1, lens, displs, types, &panel);
  MPI_Type_commit(&panel);
  const std::vector<native::Run> runs = native::flatten(panel, 1);
  ASSERT_EQ(runs.size(), static_cast<size_t>(kCols + 1));
  for (int j = 0; j < kCols; ++j) {
    EXPECT_EQ(runs[static_cast<size_t>(j)].offset, static_cast<int64_t>(j) * kLd * 8);
    EXPECT_EQ(runs[static_cast<size_t>(j)].length, int64_t{kRows} * 8);
  }
  EXPECT_EQ(runs[kCols].length, 16);
  const size_t bytes = native::type_size(panel);
  std::vector<char> ours(bytes), theirs(bytes);
  native::pack(a.data(), 1, panel, ours.data());
  int position = 0;
  MPI_Pack(a.data(), 1, panel, theirs.data(), static_cast<int>(bytes), &position, MPI_COMM_SELF);
  EXPECT_EQ(ours, theirs);
  MPI_Type_free(&panel);
}

// The first pack of a new derived type from several threads at once: its runs are computed and cached on
// the type exactly once (a second cache store would free the list a thread is reading).
TEST(coll_native, ConcurrentFirstPackOfANewType) {
  constexpr int kThreads = 4;
  for (int iter = 0; iter < 400; ++iter) {
    MPI_Datatype t;
    MPI_Type_vector(4, 1, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    std::vector<int> src(40);
    for (int i = 0; i < 40; ++i) src[i] = i + iter;
    std::atomic<int> ready{0};
    std::vector<std::vector<int>> out(kThreads, std::vector<int>(12, -1));
    std::vector<std::thread> threads;
    for (int k = 0; k < kThreads; ++k)
      threads.emplace_back([&, k] {
        ++ready;
        while (ready.load() < kThreads) std::this_thread::yield();
        native::pack(src.data(), 3, t, out[k].data());  // elements at 0, 10, 20: ints 0 3 6 9 | 10 ...
      });
    for (auto& th : threads) th.join();
    for (int k = 0; k < kThreads; ++k)
      for (int i = 0; i < 12; ++i) ASSERT_EQ(out[k][i], (i / 4) * 10 + (i % 4) * 3 + iter) << "thread " << k;
    MPI_Type_free(&t);
  }
}

// Predefined types looked up from several threads, two of them sharing a slot of the named-type cache: every
// answer is right (a thread filling the slot must never be seen half-way by another).
TEST(coll_native, NamedTypeCacheFromThreads) {
  const std::vector<std::pair<MPI_Datatype, uint64_t>> named = {
      {MPI_CHAR, 1}, {MPI_SHORT, sizeof(short)}, {MPI_INT, sizeof(int)}, {MPI_LONG, sizeof(long)},
      {MPI_LONG_LONG, 8}, {MPI_UNSIGNED, 4}, {MPI_FLOAT, 4}, {MPI_DOUBLE, 8},
      {MPI_LONG_DOUBLE, sizeof(long double)}, {MPI_BYTE, 1}, {MPI_INT8_T, 1}, {MPI_INT16_T, 2},
      {MPI_INT32_T, 4}, {MPI_INT64_T, 8}, {MPI_UINT8_T, 1}, {MPI_UINT16_T, 2}, {MPI_UINT32_T, 4},
      {MPI_UINT64_T, 8}, {MPI_C_BOOL, sizeof(bool)}, {MPI_WCHAR, sizeof(wchar_t)}, {MPI_AINT, sizeof(MPI_Aint)},
      {MPI_OFFSET, sizeof(MPI_Offset)}, {MPI_COUNT, sizeof(MPI_Count)}, {MPI_C_DOUBLE_COMPLEX, 16},
      {MPI_C_FLOAT_COMPLEX, 8}, {MPI_2INT, 8}, {MPI_SIGNED_CHAR, 1}, {MPI_UNSIGNED_CHAR, 1},
      {MPI_UNSIGNED_SHORT, 2}, {MPI_UNSIGNED_LONG, sizeof(long)}, {MPI_UNSIGNED_LONG_LONG, 8}, {MPI_PACKED, 1},
      {MPI_FLOAT_INT, 8}, {MPI_LONG_INT, sizeof(long) + 4}};
  // The types the threads use: a pair that shares a slot when there is one (as good as certain among these
  // 34), and two more.
  std::vector<std::pair<MPI_Datatype, uint64_t>> use;
  for (size_t i = 0; i < named.size() && use.empty(); ++i)
    for (size_t j = i + 1; j < named.size(); ++j)
      if (&native::detail::named_slot(named[i].first) == &native::detail::named_slot(named[j].first)) {
        use = {named[i], named[j]};
        break;
      }
  use.push_back({MPI_INT, sizeof(int)});
  use.push_back({MPI_DOUBLE, sizeof(double)});
  constexpr int kThreads = 6;
  std::atomic<int> ready{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k)
    threads.emplace_back([&, k] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int i = 0; i < 20000; ++i) {
        const auto& [type, size] = use[(i + k) % use.size()];
        if (native::type_facts(type).size != size || native::type_size(type) != size) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
