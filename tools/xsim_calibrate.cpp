// xsim-calibrate: measures the machine it runs on with plain MPI (no xsim) and writes the xsim configuration
// that reproduces it (docs/validation.md):
//   mpiexec -np 2 xsim-calibrate [--out FILE.toml] [--quick] [--max-size SIZE]
// Ranks 0 and 1 measure; further ranks wait. Measured, each as the median of repeated batches: ping-pong
// one-way time for 1 B to --max-size (default 16 MiB, powers of two), the time inside MPI_Send of 8 B to a
// posted receive (o_s) and inside MPI_Recv of 8 B that have arrived (o_r), the per-message time of a burst
// of 8-B MPI_Isends (the gap), and the eager limit (the largest size whose MPI_Send returns before a late
// receiver posts). Then calibrate_fit.hpp fits the model, prints it beside the measurements, and writes it.
// With --kernels or --node it runs as one process without MPI (calibrate_host.hpp): the BLAS's kernels and
// the node's shared resources instead of the network.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate_fit.hpp"
#include "calibrate_host.hpp"
#include "xsim/units.hpp"

namespace {

using xsim::calibrate::Measurements;
using xsim::calibrate::Model;

int g_rank = 0;

// An error every rank knows of (the arguments, the output file): rank 0 says it, all end with `code`.
[[noreturn]] void die(const std::string& why, int code = 2) {
  if (g_rank == 0) {
    std::fprintf(stderr, "xsim-calibrate: %s\n", why.c_str());
    std::fflush(stderr);
  }
  MPI_Finalize();
  std::exit(code);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void spin(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

// Median one-way time (half a round trip) of `bytes` between ranks 0 and 1: `batches` batches of `reps`
// round trips each, after one warm-up batch.
double pingpong(std::vector<char>& buf, uint64_t bytes, int reps, int batches) {
  std::vector<double> per;
  const int count = static_cast<int>(bytes);
  for (int b = -1; b < batches; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < reps; ++i) {
      if (g_rank == 0) {
        MPI_Send(buf.data(), count, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf.data(), count, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (g_rank == 1) {
        MPI_Recv(buf.data(), count, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), count, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    }
    const double t = (MPI_Wtime() - t0) / reps / 2;
    if (b >= 0) per.push_back(t);
  }
  double m = median(per);
  MPI_Bcast(&m, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return m;
}

// o_s: MPI_Send of 8 B to a receive posted before; o_r: MPI_Recv of 8 B that arrived before (rank 1 waits
// 20 us first). Medians of `reps` tries.
void overheads(int reps, double* os, double* orr) {
  std::vector<double> s, r;
  double v = 1;
  for (int i = 0; i < reps; ++i) {
    MPI_Request q;
    if (g_rank == 1) MPI_Irecv(&v, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &q);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0) {
      const double t0 = MPI_Wtime();
      MPI_Send(&v, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
      s.push_back(MPI_Wtime() - t0);
    } else if (g_rank == 1) {
      MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0) {
      MPI_Send(&v, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    } else if (g_rank == 1) {
      spin(20e-6);  // the message is there by now
      const double t0 = MPI_Wtime();
      MPI_Recv(&v, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      r.push_back(MPI_Wtime() - t0);
    }
  }
  double out[2] = {g_rank == 0 ? median(s) : 0, g_rank == 1 ? median(r) : 0};
  MPI_Allreduce(MPI_IN_PLACE, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  *os = out[0];
  *orr = out[1];
}

// Per-message time of a burst of `count` 8-B MPI_Isends from rank 0 (receives posted before), median of
// `batches`.
double burst(int count, int batches) {
  std::vector<double> per;
  std::vector<double> sb(static_cast<size_t>(count), 1.0), rb(static_cast<size_t>(count));
  std::vector<MPI_Request> q(static_cast<size_t>(count));
  for (int b = 0; b < batches; ++b) {
    if (g_rank == 1)
      for (int i = 0; i < count; ++i) MPI_Irecv(&rb[static_cast<size_t>(i)], 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, &q[static_cast<size_t>(i)]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0) {
      const double t0 = MPI_Wtime();
      for (int i = 0; i < count; ++i) MPI_Isend(&sb[static_cast<size_t>(i)], 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, &q[static_cast<size_t>(i)]);
      MPI_Waitall(count, q.data(), MPI_STATUSES_IGNORE);
      per.push_back((MPI_Wtime() - t0) / count);
    } else if (g_rank == 1) {
      MPI_Waitall(count, q.data(), MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double m = g_rank == 0 ? median(per) : 0;
  MPI_Bcast(&m, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return m;
}

// Whether MPI_Send of `bytes` returns before a receive posted `delay` seconds late (eager), by a majority
// of three tries.
bool sends_eagerly(std::vector<char>& buf, uint64_t bytes, double delay) {
  int eager_votes = 0;
  for (int t = 0; t < 3; ++t) {
    MPI_Barrier(MPI_COMM_WORLD);
    int eager = 0;
    if (g_rank == 0) {
      const double t0 = MPI_Wtime();
      MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, 1, 5, MPI_COMM_WORLD);
      eager = MPI_Wtime() - t0 < delay / 2;
    } else if (g_rank == 1) {
      spin(delay);
      MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Bcast(&eager, 1, MPI_INT, 0, MPI_COMM_WORLD);
    eager_votes += eager;
  }
  return eager_votes >= 2;
}

}  // namespace

namespace {

struct Args {
  std::string out = "xsim-calibration.toml";
  bool quick = false, help = false;
  uint64_t max_size = 16u << 20;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if ((s == "--out" || s == "-o") && i + 1 < argc) {
      a.out = argv[++i];
    } else if (s.rfind("--out=", 0) == 0) {
      a.out = s.substr(6);
    } else if (s == "--quick") {
      a.quick = true;
    } else if (s == "--max-size" && i + 1 < argc) {
      try {
        a.max_size = xsim::parse_size(argv[++i]);
      } catch (const std::invalid_argument& e) {
        die(std::string("--max-size: ") + e.what());
      }
      if (a.max_size < 1024 || a.max_size > (uint64_t{1} << 30)) die("--max-size must be between 1K and 1G");
    } else if (s == "-h" || s == "--help") {
      a.help = true;
      return a;  // what follows is not read
    } else {
      die("unknown argument \"" + s + "\" (see --help)");
    }
  }
  return a;
}

void print_help() {
  std::printf("usage: mpiexec -np 2 xsim-calibrate [--out FILE.toml] [--quick] [--max-size SIZE]\n"
              "  measures this machine with plain MPI and writes the xsim configuration that reproduces it\n"
              "  (default FILE: xsim-calibration.toml; --quick: fewer repetitions, up to 1 MiB, for tests;\n"
              "  --max-size: largest ping-pong message, default 16M). Load it with -xsim-config FILE.\n"
              "usage: xsim-calibrate --kernels [--node] [--blas LIB] [--quick] [--budget S] [--clock GHZ]\n"
              "                      [--flops-per-cycle N] --out FILE.toml\n"
              "       xsim-calibrate --node --out FILE.toml\n"
              "  one process, no MPI: --kernels times the BLAS LIB (default libblas.so.3, one thread) and fits\n"
              "  [kernels] (dgemm and dtrsm shapes within --budget seconds, default 100, 20 with --quick);\n"
              "  --node times a memory-bound and a compute-bound loop on one core and on all and writes [node].\n");
}

// The output must be writable before minutes of measuring, not found unwritable after them.
void check_writable(const std::string& out) {
  int writable = 1;
  std::string why;
  if (g_rank == 0) {
    std::FILE* f = std::fopen(out.c_str(), "w");
    if (!f) {
      writable = 0;
      why = "cannot write " + out + ": " + std::strerror(errno);
    } else {
      std::fclose(f);
    }
  }
  MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!writable) die(why);  // rank 0 holds the reason
}

// Ping-pong over sizes, the overheads, the burst interval and the eager limit, between ranks 0 and 1.
Measurements measure(int size, uint64_t max_size, bool quick) {
  Measurements meas;
  meas.processes = size;
  char host[256] = "";
  if (gethostname(host, sizeof host) == 0) meas.host = host;
  std::vector<char> buf(static_cast<size_t>(max_size), 1);
  const int batches = quick ? 3 : 7;
  for (uint64_t s = 1; s <= max_size; s *= 2) {
    // about 2 ms per batch at this size's expected cost, between 2 and 400 round trips
    const int reps = s <= 4096 ? (quick ? 40 : 400) : s <= (256u << 10) ? (quick ? 10 : 60) : (quick ? 2 : 6);
    meas.sizes.push_back(s);
    meas.one_way.push_back(pingpong(buf, s, reps, batches));
  }
  overheads(quick ? 50 : 400, &meas.send_overhead, &meas.recv_overhead);
  meas.burst_interval = burst(quick ? 100 : 1000, batches);
  // Eager limit: the largest power of two from 64 B that is sent eagerly, all smaller ones too.
  const double delay = 2e-3;
  meas.eager_limit = 0;
  for (uint64_t s = 64; s <= std::min<uint64_t>(max_size, 4u << 20); s *= 2) {
    if (!sends_eagerly(buf, s, delay)) break;
    meas.eager_limit = s;
  }
  return meas;
}

// Rank 0: fits the measurements, writes the TOML and prints measured against fitted for every size.
void fit_and_write(const Measurements& meas, const std::string& out, double took, int size) {
  Model m;
  try {
    m = xsim::calibrate::fit(meas);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "xsim-calibrate: the measurements cannot be fitted: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const std::string toml = xsim::calibrate::to_toml(m, meas);
  std::FILE* f = std::fopen(out.c_str(), "w");
  if (!f || std::fwrite(toml.data(), 1, toml.size(), f) != toml.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "xsim-calibrate: cannot write %s: %s\n", out.c_str(), std::strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::printf("xsim-calibrate: measured in %.1f s between ranks 0 and 1 of %d\n", took, size);
  std::printf("  send overhead %.3f us, receive overhead %.3f us, burst %.3f us per message, eager limit %llu B\n",
              meas.send_overhead * 1e6, meas.recv_overhead * 1e6, meas.burst_interval * 1e6,
              static_cast<unsigned long long>(meas.eager_limit));
  std::printf("  fitted: link latency %.3f us (x2 per message), bandwidth %.3f GB/s, gap %.3f us, %zu size band(s)\n",
              m.link_latency * 1e6, m.bandwidth_bps / 8e9, m.gap * 1e6, m.bands.size());
  std::printf("  %12s %12s %12s %8s\n", "bytes", "measured_us", "model_us", "error");
  double worst = 0;
  for (size_t i = 0; i < meas.sizes.size(); ++i) {
    const double p = xsim::calibrate::predict_one_way(m, meas.sizes[i]);
    const double e = p / meas.one_way[i] - 1;
    worst = std::max(worst, std::abs(e));
    std::printf("  %12llu %12.3f %12.3f %+7.1f%%\n", static_cast<unsigned long long>(meas.sizes[i]),
                meas.one_way[i] * 1e6, p * 1e6, e * 100);
  }
  std::printf("  largest error %.1f%%; wrote %s (load it with -xsim-config %s)\n", worst * 100, out.c_str(), out.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (xsim::calibrate::host_mode(argc, argv)) return xsim::calibrate::host_main(argc, argv);
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args a = parse_args(argc, argv);
  if (a.help) {
    if (g_rank == 0) print_help();
    MPI_Finalize();
    return 0;
  }
  if (size < 2)
    die("needs 2 MPI processes (it measures messages between ranks 0 and 1): mpiexec -np 2 xsim-calibrate "
        "--out FILE.toml");
  if (a.quick) a.max_size = std::min<uint64_t>(a.max_size, 1u << 20);
  check_writable(a.out);
  const double start = MPI_Wtime();
  const Measurements meas = measure(size, a.max_size, a.quick);
  const double took = MPI_Wtime() - start;
  if (g_rank == 0) fit_and_write(meas, a.out, took, size);
  MPI_Finalize();
  return 0;
}
