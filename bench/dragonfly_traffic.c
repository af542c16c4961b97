/* Sustained traffic on a dragonfly, for bench/dragonfly_routing.sh (docs/network-model.md "Adaptive routing").
 * Every rank (one per node) sends MSGS messages of BYTES bytes, one every BYTES / (LOAD * BW) seconds of
 * virtual time (LOAD: the offered load, a fraction of the injection bandwidth BW), to a destination given by
 * the pattern, and receives what is sent to it. Patterns (Kim, Dally, Scott, Abts, ISCA 2008, §4.2), with
 * NPG nodes per group:
 *   ur     uniform random: in round k every node sends to its image under a pseudo-random permutation of
 *          the nodes (a new one per round), so every node also receives one message per round;
 *   shift  node n sends to n + NPG (the same place in the next group);
 *   wc     worst case: every message of a node of group i goes to a node of group i + 1 drawn at random.
 * Prints the accepted throughput: the bytes delivered per node per second while the nodes inject (MSGS
 * periods from the first send), as a fraction of BW; and the drained throughput: all bytes over the time
 * from the first send to the last arrival (lower: the most loaded link's backlog drains after the end).
 * Usage: dragonfly_traffic PATTERN NPG MSGS BYTES LOAD BW_GBPS */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xsim.h>

static uint64_t mix(uint64_t x) { /* SplitMix64's output function */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A pseudo-random permutation of [0, n) for round k: a 4-round Feistel network on the smallest even
 * number of bits that holds n, cycle-walking back into range; inverse: the rounds backwards. */
static int half_bits(int n) {
  int b = 1;
  while ((1 << (2 * b)) < n) ++b;
  return b;
}
static int feistel(int x, int n, int k, int inverse) {
  const int b = half_bits(n), mask = (1 << b) - 1;
  do {
    int l = x >> b, r = x & mask;
    for (int i = 0; i < 4; ++i) {
      const int round = inverse ? 3 - i : i;
      if (!inverse) {
        const int f = (int)(mix(((uint64_t)k << 32) ^ ((uint64_t)round << 24) ^ (uint64_t)r) & (uint64_t)mask);
        const int t = r;
        r = l ^ f;
        l = t;
      } else {
        const int f = (int)(mix(((uint64_t)k << 32) ^ ((uint64_t)round << 24) ^ (uint64_t)l) & (uint64_t)mask);
        const int t = l;
        l = r ^ f;
        r = t;
      }
    }
    x = (l << b) | r;
  } while (x >= n);
  return x;
}

/* The destination of message k of node s. */
static int dest(const char* pattern, int s, int k, int n, int npg) {
  if (!strcmp(pattern, "ur")) return feistel(s, n, k, 0);
  const int next = (s / npg + 1) * npg % n;
  if (!strcmp(pattern, "shift")) return (s + npg) % n;
  return next + (int)(mix(((uint64_t)s << 32) ^ (uint64_t)k) % (uint64_t)npg); /* wc */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 7 || (strcmp(argv[1], "ur") && strcmp(argv[1], "shift") && strcmp(argv[1], "wc"))) {
    if (rank == 0) fprintf(stderr, "usage: dragonfly_traffic ur|shift|wc NPG MSGS BYTES LOAD BW_GBPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* pattern = argv[1];
  const int npg = atoi(argv[2]), msgs = atoi(argv[3]), bytes = atoi(argv[4]);
  const double load = atof(argv[5]), bw = atof(argv[6]) * 1e9;
  const double period = bytes * 8.0 / (load * bw);
  /* What this node receives: (source, message index) of every message sent to it. */
  int* from = malloc(sizeof(int) * (size_t)msgs * 4 + 64);
  int* tag = malloc(sizeof(int) * (size_t)msgs * 4 + 64);
  int expected = 0, cap = msgs * 4 + 16;
  for (int k = 0; k < msgs; ++k) {
    if (!strcmp(pattern, "ur")) {
      from[expected] = feistel(rank, n, k, 1), tag[expected++] = k;
    } else if (!strcmp(pattern, "shift")) {
      from[expected] = (rank - npg + n) % n, tag[expected++] = k;
    } else {
      const int g = ((rank / npg) - 1 + n / npg) % (n / npg);
      for (int s = g * npg; s < (g + 1) * npg; ++s)
        if (dest(pattern, s, k, n, npg) == rank) {
          if (expected == cap) {
            cap *= 2;
            from = realloc(from, sizeof(int) * (size_t)cap);
            tag = realloc(tag, sizeof(int) * (size_t)cap);
          }
          from[expected] = s, tag[expected++] = k;
        }
    }
  }
  char* sbuf = calloc((size_t)bytes, 1);
  char* rbuf = malloc((size_t)bytes);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)(expected + msgs));
  for (int i = 0; i < expected; ++i) MPI_Irecv(rbuf, bytes, MPI_BYTE, from[i], tag[i], MPI_COMM_WORLD, &reqs[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime(), first;
  MPI_Allreduce(&t0, &first, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (start < first) xsim_compute(first - start); /* every node starts at the same virtual time */
  for (int k = 0; k < msgs; ++k) {
    const double due = first + k * period, now = MPI_Wtime();
    if (due > now) xsim_compute(due - now);
    MPI_Isend(sbuf, bytes, MPI_BYTE, dest(pattern, rank, k, n, npg), k, MPI_COMM_WORLD, &reqs[expected + k]);
  }
  /* The messages delivered while the nodes inject (up to msgs periods after the first send). */
  const double window = msgs * period, now = MPI_Wtime();
  if (first + window > now) xsim_compute(first + window - now);
  int* done = malloc(sizeof(int) * (size_t)(expected + 1));
  MPI_Status* st = malloc(sizeof(MPI_Status) * (size_t)(expected + 1));
  int ndone = 0;
  long long delivered = 0, all = 0;
  if (expected) MPI_Testsome(expected, reqs, &ndone, done, st);
  delivered = ndone == MPI_UNDEFINED ? 0 : ndone;
  for (int i = 0; i < expected + msgs; ++i) MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
  double end = MPI_Wtime(), last;
  MPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&delivered, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("dragonfly_traffic: %s load %.3f accepted %.4f drained %.4f (last arrival %.3f us after the first send)\n",
           pattern, load, (double)all * bytes * 8.0 / ((double)n * window * bw),
           (double)msgs * bytes * 8.0 / ((last - first) * bw), (last - first) * 1e6);
  free(st), free(done);
  free(reqs), free(rbuf), free(sbuf), free(tag), free(from);
  MPI_Finalize();
  return 0;
}
