/* privatize_seg.c - what privatized globals cost per context switch (bench/privatize.sh).
 *
 * The program has SEG_BYTES of globals (a static array in .bss; compile with -DSEG_BYTES=...). The ranks pass
 * a token round a ring with MPI_Sendrecv, so that every message is a switch to another rank; between two
 * messages each rank writes one page of its globals ("one", the default) or every page ("all"). At the end
 * each rank checks that it saw only its own writes: "private" (privatization on) or "shared" (off).
 *
 *   privatize_seg_SIZE rounds [one|all]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SEG_BYTES
#define SEG_BYTES 4096
#endif
#define PAGE 4096L
#define PAGES (SEG_BYTES / PAGE > 0 ? SEG_BYTES / PAGE : 1)

static unsigned char seg[SEG_BYTES];

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rounds = argc > 1 ? atol(argv[1]) : 100;
    int all = argc > 2 && strcmp(argv[2], "all") == 0;
    long expect = 0;
    for (long k = 0; k < rounds; ++k) {
        if (all) {
            for (long p = 0; p < PAGES; ++p) seg[p * PAGE % SEG_BYTES] += 1;
            expect += PAGES;
        } else {
            seg[(k % PAGES) * PAGE % SEG_BYTES] += 1;
            expect += 1;
        }
        int token = rank, got = -1;
        MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    long sum = 0, written = all || rounds > PAGES ? PAGES : rounds; /* read no page the loop left alone */
    for (long p = 0; p < written; ++p) sum += seg[p * PAGE % SEG_BYTES];
    int mine = (sum % 256) == (expect % 256), both = 0;
    MPI_Allreduce(&mine, &both, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("privatize_seg: %ld bytes of globals, %d ranks, %ld rounds, touching %s: %s\n",
                          (long)SEG_BYTES, size, rounds, all ? "every page" : "one page", both ? "private" : "shared");
    MPI_Finalize();
    return 0;
}
