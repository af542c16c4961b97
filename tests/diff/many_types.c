/* many_types: derived datatypes must move the right bytes however many datatypes the process holds.
 * Regression test for what the differential test found at 64 virtual ranks on one native process:
 * MPICH 4.0.2's pack engine packs some derived types one byte short once more than ~512 derived datatypes
 * exist in the process (docs/testing.md); xsim packs derived types along their own type map instead.
 * Rank 0 first creates LIVE derived datatypes and keeps them, then sends rank 1 a struct of one block of 59
 * chars at displacement 2 (5 of them), a vector of 13 single chars with stride 2 (3 of them) and the same
 * vector received short (12 chars into room for 13); rank 1 checks every byte, including the untouched ones.
 * Usage: many_types [LIVE]   (default 600; prints "many_types: ok" or the first wrong byte) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const char *what, const unsigned char *got, const unsigned char *want, int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("many_types: %s: byte %d is %02x, expected %02x\n", what, i, got[i], want[i]);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, live = argc > 1 ? atoi(argv[1]) : 600, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Datatype *keep = malloc(sizeof(MPI_Datatype) * (size_t)(live > 0 ? live : 1));
  for (int i = 0; i < live; i++) {
    MPI_Type_vector(2, 1, 2, MPI_INT, &keep[i]);
    MPI_Type_commit(&keep[i]);
  }
  int bl = 59;
  MPI_Aint disp = 2;
  MPI_Datatype ch = MPI_CHAR, blk, vec;
  MPI_Type_create_struct(1, &bl, &disp, &ch, &blk);
  MPI_Type_vector(13, 1, 2, MPI_CHAR, &vec);
  MPI_Type_commit(&blk);
  MPI_Type_commit(&vec);
  unsigned char src[400], buf[400], want[400];
  for (int i = 0; i < 400; i++) src[i] = (unsigned char)(i * 7 + 3);
  if (rank == 0) {
    MPI_Send(src, 5, blk, 1, 1, MPI_COMM_WORLD);   /* bytes 2..296 */
    MPI_Send(src, 3, vec, 1, 2, MPI_COMM_WORLD);   /* bytes 0, 2, ..., 24 of each 25-byte element */
    MPI_Send(src, 12, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
  } else if (rank == 1) {
    memset(buf, 0xA5, sizeof buf);
    MPI_Recv(buf, 295, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    memset(want, 0xA5, sizeof want);
    memcpy(want, src + 2, 295);
    bad |= check("struct of 59 chars at 2, x5", buf, want, 400);
    memset(buf, 0xA5, sizeof buf);
    MPI_Recv(buf, 39, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    memset(want, 0xA5, sizeof want);
    for (int e = 0, k = 0; e < 3; e++)
      for (int j = 0; j < 13; j++) want[k++] = src[e * 25 + 2 * j];
    bad |= check("vector of 13 chars, stride 2, x3", buf, want, 400);
    memset(buf, 0xA5, sizeof buf);
    MPI_Status st;
    int elems;
    MPI_Recv(buf, 1, vec, 0, 3, MPI_COMM_WORLD, &st);
    MPI_Get_elements(&st, vec, &elems);
    memset(want, 0xA5, sizeof want);
    for (int j = 0; j < 12; j++) want[2 * j] = src[j];
    bad |= check("12 chars into a vector of 13", buf, want, 400);
    if (elems != 12) { printf("many_types: MPI_Get_elements says %d, expected 12\n", elems); bad = 1; }
    if (!bad) printf("many_types: ok (%d derived datatypes alive)\n", live);
  }
  for (int i = 0; i < live; i++) MPI_Type_free(&keep[i]);
  free(keep);
  MPI_Type_free(&blk);
  MPI_Type_free(&vec);
  MPI_Finalize();
  return bad;
}
