// The MPI state that the datatype and collective unit tests share: MPI initialised once for the test
// program (singleton init, no mpirun), a 2x2 int matrix type, a strided vector type and a non-commutative
// user operation (matrix product), created before the tests and freed after them. Include it from one
// source file per test program: it registers the global test environment.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>

#include "thread_transport.hpp"

namespace {

MPI_Datatype g_mat = MPI_DATATYPE_NULL;     // a 2x2 int matrix: contiguous(4, MPI_INT)
MPI_Datatype g_vec = MPI_DATATYPE_NULL;     // vector(3, 2, 4, MPI_INT): 6 ints over an extent of 10
MPI_Op g_matmul = MPI_OP_NULL;              // non-commutative: inout = in * inout (mod kMod)
constexpr int kMod = 997;

void mat_mul(const int* a, const int* b, int* c) {  // c = a * b (mod kMod); c may alias b
  int r[4] = {(a[0] * b[0] + a[1] * b[2]) % kMod, (a[0] * b[1] + a[1] * b[3]) % kMod,
              (a[2] * b[0] + a[3] * b[2]) % kMod, (a[2] * b[1] + a[3] * b[3]) % kMod};
  std::memcpy(c, r, sizeof r);
}

void matmul_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) mat_mul(a + 4 * i, b + 4 * i, b + 4 * i);
}

class MpiEnvironment : public xsim_test::MpiTestEnvironment {
 public:
  void SetUp() override {
    MpiTestEnvironment::SetUp();
    MPI_Type_contiguous(4, MPI_INT, &g_mat);
    MPI_Type_commit(&g_mat);
    MPI_Type_vector(3, 2, 4, MPI_INT, &g_vec);
    MPI_Type_commit(&g_vec);
    MPI_Op_create(matmul_fn, 0, &g_matmul);
  }
  void TearDown() override {
    MPI_Op_free(&g_matmul);
    MPI_Type_free(&g_vec);
    MPI_Type_free(&g_mat);
    MpiTestEnvironment::TearDown();
  }
};
[[maybe_unused]] ::testing::Environment* const g_env = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

}  // namespace
