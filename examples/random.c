/* random.c - the random micro-benchmark.
 *
 * In round k every rank r sends one int to dst = perm_k(r), where perm_k is a pseudo-random permutation of
 * [0, p) that every rank can evaluate (and invert) in O(1) memory: a keyed 4-round balanced Feistel network
 * over [0, 4^h) (4^h >= p, the next even power of two) restricted to [0, p) by cycle-walking. Feistel
 * networks are bijections whatever the round function, and cycle-walking keeps that on [0, p).
 * The receiver takes the message with MPI_Recv(MPI_ANY_SOURCE, tag = k & 0x7fff), and checks that it came
 * from src = perm_k^-1(r) and carries payload(src, k). The send is an MPI_Isend completed with MPI_Wait
 * after the receive, so real MPI cannot deadlock. Timed from just after MPI_Init to after the last round.
 *
 *   random [rounds] [seed]      rounds >= 1 (default p), seed >= 0 (default 1)
 */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FEISTEL_ROUNDS 4

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

/* splitmix64 finalizer: a good 64-bit mixing bijection. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The permutation of one round: domain [0, p), half width h bits, one key per Feistel round. */
typedef struct {
    uint64_t p;
    unsigned h;
    uint64_t mask;
    uint64_t key[FEISTEL_ROUNDS];
} perm_t;

static void perm_init(perm_t *pm, uint64_t p, uint64_t seed, uint64_t round)
{
    pm->p = p;
    pm->h = 0;
    while (pm->h < 32 && (1ULL << (2 * pm->h)) < p)
        ++pm->h;
    pm->mask = (1ULL << pm->h) - 1;
    for (int i = 0; i < FEISTEL_ROUNDS; ++i)
        pm->key[i] = mix64(mix64(seed ^ 0x5851f42d4c957f2dULL) ^ (round * FEISTEL_ROUNDS + (uint64_t)i));
}

static uint64_t feistel_f(uint64_t half, uint64_t key)
{
    return mix64(half ^ key);
}

static uint64_t encrypt(const perm_t *pm, uint64_t x)
{
    uint64_t l = x >> pm->h, r = x & pm->mask;
    for (int i = 0; i < FEISTEL_ROUNDS; ++i) {
        uint64_t nl = r, nr = (l ^ feistel_f(r, pm->key[i])) & pm->mask;
        l = nl;
        r = nr;
    }
    return (l << pm->h) | r;
}

static uint64_t decrypt(const perm_t *pm, uint64_t y)
{
    uint64_t l = y >> pm->h, r = y & pm->mask;
    for (int i = FEISTEL_ROUNDS - 1; i >= 0; --i) {
        uint64_t pr = l, pl = (r ^ feistel_f(l, pm->key[i])) & pm->mask;
        l = pl;
        r = pr;
    }
    return (l << pm->h) | r;
}

static uint64_t perm_apply(const perm_t *pm, uint64_t x)
{
    uint64_t y = encrypt(pm, x);
    while (y >= pm->p) /* cycle-walking: stays on x's cycle, which must re-enter [0, p) */
        y = encrypt(pm, y);
    return y;
}

static uint64_t perm_invert(const perm_t *pm, uint64_t y)
{
    uint64_t x = decrypt(pm, y);
    while (x >= pm->p)
        x = decrypt(pm, x);
    return x;
}

static int payload(uint64_t src, uint64_t round, uint64_t seed)
{
    return (int)(mix64(mix64(src * 0x100000001b3ULL + seed) ^ round) & 0x7fffffff);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    static const char usage_text[] =
        "usage: random [rounds] [seed]   (rounds >= 1, default: number of ranks; seed >= 0, default 1)\n";
    long long rounds = size, seed = 1;
    int bad = 0;
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 0;
    }
    if (argc > 3)
        bad = 1;
    if (!bad && argc >= 2 && parse_ll(argv[1], 1, 1000000000LL, &rounds) != 0)
        bad = 1;
    if (!bad && argc >= 3 && parse_ll(argv[2], 0, INT64_MAX, &seed) != 0)
        bad = 1;
    if (bad) {
        if (rank == 0)
            fputs(usage_text, stderr);
        MPI_Finalize();
        return 2;
    }

    for (long long k = 0; k < rounds; ++k) {
        perm_t pm;
        perm_init(&pm, (uint64_t)size, (uint64_t)seed, (uint64_t)k);
        const int dst = (int)perm_apply(&pm, (uint64_t)rank);
        const int src = (int)perm_invert(&pm, (uint64_t)rank);
        if (dst < 0 || dst >= size || src < 0 || src >= size || (int)perm_invert(&pm, (uint64_t)dst) != rank) {
            char msg[160];
            snprintf(msg, sizeof msg, "rank %d round %lld: permutation is not a bijection (dst %d, src %d)", rank,
                     k, dst, src);
            fail(msg);
        }
        const int tag = (int)(k & 0x7fff);
        int out = payload((uint64_t)rank, (uint64_t)k, (uint64_t)seed), in = -1;
        MPI_Request req;
        MPI_Status st;
        MPI_Isend(&out, 1, MPI_INT, dst, tag, MPI_COMM_WORLD, &req);
        MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        const int want = payload((uint64_t)src, (uint64_t)k, (uint64_t)seed);
        if (st.MPI_SOURCE != src || st.MPI_TAG != tag || in != want) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "rank %d round %lld: got %d from %d tag %d, expected %d from %d tag %d", rank, k, in,
                     st.MPI_SOURCE, st.MPI_TAG, want, src, tag);
            fail(msg);
        }
    }
    double t = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("random: %d ranks, %lld rounds, %lld messages ok\n", size, rounds, (long long)size * rounds);
        printf("random: virtual time %.9f\n", tmax);
        printf("random: average time per round %.9f\n", tmax / (double)rounds);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
