/* pingpong.c - ping-pong latency and bandwidth between ranks 0 and 1.
 *
 * Sizes 0, 1, 8, 64, 512, 4096, 32768, 262144, 1048576 bytes (then x4 up to max_bytes) that are <=
 * max_bytes. For every size, ranks 0 and 1 first do one untimed verification exchange (rank 0 sends a
 * size-dependent byte pattern, rank 1 checks it completely and sends back its own pattern, which rank 0
 * checks completely; it also serves as warm-up), then `reps` timed round trips with MPI_Send/MPI_Recv in
 * which only the first and last byte and the status are checked. The time is rank 0's round-trip loop; the
 * one-way time is t / (2 reps). Other ranks only meet the others at the final MPI_Barrier.
 *
 *   pingpong [max_bytes] [reps]     0 <= max_bytes <= 1 GiB (default 1 MiB), reps >= 1 (default 10)
 *   needs at least 2 ranks.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_VERIFY 100
#define TAG_PING 101
#define TAG_PONG 102

static void fail(const char *what)
{
    fprintf(stderr, "FAILED: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int parse_ll(const char *s, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Byte i of the pattern sent by rank `who` for message size `n`; never 0. */
static unsigned char pattern(long i, long n, int who)
{
    return (unsigned char)((i * 131 + n * 7 + who * 89) % 251 + 1);
}

static void fill(unsigned char *buf, long n, int who)
{
    for (long i = 0; i < n; ++i)
        buf[i] = pattern(i, n, who);
}

static void check_all(const unsigned char *buf, long n, int who, int rank)
{
    for (long i = 0; i < n; ++i) {
        if (buf[i] != pattern(i, n, who)) {
            char msg[160];
            snprintf(msg, sizeof msg, "rank %d: %ld-byte message, byte %ld is %u, expected %u", rank, n, i,
                     (unsigned)buf[i], (unsigned)pattern(i, n, who));
            fail(msg);
        }
    }
}

static void check_status(const MPI_Status *st, int src, int tag, long n, int rank)
{
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag) {
        char msg[160];
        snprintf(msg, sizeof msg, "rank %d: %ld-byte message came from %d tag %d, expected %d tag %d", rank, n,
                 st->MPI_SOURCE, st->MPI_TAG, src, tag);
        fail(msg);
    }
}

/* Cheap check used inside the timed loop: first and last byte. */
static void check_ends(const unsigned char *buf, long n, int who, int rank)
{
    if (n > 0 && (buf[0] != pattern(0, n, who) || buf[n - 1] != pattern(n - 1, n, who))) {
        char msg[160];
        snprintf(msg, sizeof msg, "rank %d: %ld-byte message has wrong first/last byte", rank, n);
        fail(msg);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    static const char usage_text[] = "usage: pingpong [max_bytes] [reps]   (needs >= 2 ranks; 0 <= max_bytes <= "
                                     "1073741824, default 1048576; reps >= 1, default 10)\n";
    long long max_bytes = 1048576, reps = 10;
    int bad = 0;
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 0;
    }
    if (argc > 3)
        bad = 1;
    if (!bad && argc >= 2 && parse_ll(argv[1], 0, 1073741824LL, &max_bytes) != 0)
        bad = 1;
    if (!bad && argc >= 3 && parse_ll(argv[2], 1, 100000000LL, &reps) != 0)
        bad = 1;
    if (!bad && size < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks, got %d\n", size);
        bad = 1;
    }
    if (bad) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 2;
    }

    if (rank <= 1) {
        const int peer = 1 - rank;
        const size_t alloc = max_bytes > 0 ? (size_t)max_bytes : 1;
        unsigned char *sbuf = malloc(alloc), *rbuf = malloc(alloc);
        if (sbuf == NULL || rbuf == NULL)
            fail("out of memory for the message buffers");
        long sizes[40];
        int nsizes = 0;
        static const long fixed[] = {0, 1, 8, 64, 512, 4096, 32768, 262144, 1048576};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
            if (fixed[i] <= max_bytes)
                sizes[nsizes++] = fixed[i];
        for (long n = 4L * 1048576; n <= max_bytes && nsizes < 40; n *= 4)
            sizes[nsizes++] = n;

        for (int s = 0; s < nsizes; ++s) {
            const long n = sizes[s];
            const int cnt = (int)n;
            MPI_Status st;
            fill(sbuf, n, rank);
            memset(rbuf, 0, n > 0 ? (size_t)n : 1);
            /* Untimed verification exchange (also the warm-up). */
            if (rank == 0) {
                MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG_VERIFY, MPI_COMM_WORLD);
                MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG_VERIFY, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG_VERIFY, MPI_COMM_WORLD, &st);
                MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG_VERIFY, MPI_COMM_WORLD);
            }
            check_status(&st, peer, TAG_VERIFY, n, rank);
            check_all(rbuf, n, peer, rank);

            if (rank == 0) {
                double t0 = MPI_Wtime();
                for (long long r = 0; r < reps; ++r) {
                    MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG_PONG, MPI_COMM_WORLD, &st);
                    check_status(&st, peer, TAG_PONG, n, rank);
                    check_ends(rbuf, n, peer, rank);
                }
                double t = MPI_Wtime() - t0;
                double oneway = t / (2.0 * (double)reps);
                double mbs = (n > 0 && oneway > 0.0) ? (double)n / oneway / 1e6 : 0.0;
                printf("pingpong: %ld bytes  one-way %.9f  bandwidth %.3f MB/s\n", n, oneway, mbs);
                fflush(stdout);
            } else {
                for (long long r = 0; r < reps; ++r) {
                    MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, &st);
                    check_status(&st, peer, TAG_PING, n, rank);
                    check_ends(rbuf, n, peer, rank);
                    MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG_PONG, MPI_COMM_WORLD);
                }
            }
        }
        free(sbuf);
        free(rbuf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
