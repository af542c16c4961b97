#include "report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "api_ext.hpp"
#include "engine.hpp"
#include "fold_range.hpp"
#include "native/exchange.hpp"
#include "options.hpp"
#include "privatize.hpp"
#include "xsim/units.hpp"

namespace xsim {

KernelTally& kernel_tally() {
  static KernelTally t;
  return t;
}

int audit_class(const proc::KernelCall& c) {
  if (proc::compute_bound(c.kernel)) {
    const int64_t d = proc::kernel_shape_dim(c);
    return d < 16 ? 0 : d < 64 ? 1 : d < 256 ? 2 : 3;
  }
  const double b = proc::kernel_work(c);
  return b < 65536 ? 0 : b < 1048576 ? 1 : b < 16777216 ? 2 : 3;
}

const char* audit_class_name(proc::Kernel k, int cls) {
  static const char* const dims[] = {"d<16", "d<64", "d<256", "d>=256"};
  static const char* const bytes[] = {"<64K", "<1M", "<16M", ">=16M"};
  return proc::compute_bound(k) ? dims[cls] : bytes[cls];
}

namespace {
// Sums the kernel models' figures over the native processes (collective: every process calls it under
// -xsim-kernels model) and, on process 0, prints them: one line of totals and one of the families called.
void report_kernels(Engine& e, const Options& opt, FILE* f) {
  const KernelTally& t = kernel_tally();
  int64_t v[2 * proc::kKernelCount];
  for (int i = 0; i < proc::kKernelCount; ++i) {
    v[i] = static_cast<int64_t>(t.calls[i]);
    v[proc::kKernelCount + i] = t.ps[i];
  }
  if (e.nprocs() > 1) native::allreduce_sum(v, 2 * proc::kKernelCount);
  if (e.proc() != 0 || !opt.report) return;
  int64_t calls = 0, ps = 0;
  std::string families;
  for (int i = 0; i < proc::kKernelCount; ++i) {
    calls += v[i];
    ps += v[proc::kKernelCount + i];
    if (v[i] == 0) continue;
    char b[96];
    std::snprintf(b, sizeof b, "%s%s %lld (%.9f s)", families.empty() ? "" : ", ",
                  proc::kernel_name(static_cast<proc::Kernel>(i)), static_cast<long long>(v[i]),
                  static_cast<double>(v[proc::kKernelCount + i]) * 1e-12);
    families += b;
  }
  std::fprintf(f, "xsim: kernel models       %lld BLAS calls modelled, not run: %.9f s of virtual time in all ranks "
               "(%s)\n", static_cast<long long>(calls), static_cast<double>(ps) * 1e-12,
               t.model ? t.model->describe().c_str() : "");
  if (calls > 0) std::fprintf(f, "xsim:                     %s\n", families.c_str());
}

// -xsim-kernels audit (collective, like report_kernels): per family and size class, the calls, their measured
// time and the model's, and the model's error, on process 0.
void report_audit(Engine& e, const Options& opt, FILE* f) {
  const KernelTally& t = kernel_tally();
  constexpr int C = KernelTally::kAuditClasses, K = proc::kKernelCount;
  std::vector<int64_t> v(3 * K * C);
  for (int i = 0; i < K; ++i)
    for (int c = 0; c < C; ++c) {
      v[static_cast<size_t>((0 * K + i) * C + c)] = static_cast<int64_t>(t.audit_calls[i][c]);
      v[static_cast<size_t>((1 * K + i) * C + c)] = t.audit_measured[i][c];
      v[static_cast<size_t>((2 * K + i) * C + c)] = t.audit_model[i][c];
    }
  if (e.nprocs() > 1) native::allreduce_sum(v.data(), static_cast<int>(v.size()));
  if (e.proc() != 0 || !opt.report) return;
  auto at = [&](int what, int i, int c) { return v[static_cast<size_t>((what * K + i) * C + c)]; };
  double measured = 0, model = 0;
  for (int i = 0; i < K; ++i)
    for (int c = 0; c < C; ++c) measured += static_cast<double>(at(1, i, c)), model += static_cast<double>(at(2, i, c));
  std::fprintf(f, "xsim: kernel audit        BLAS calls run and timed (thread CPU time) beside the model (%s): "
               "measured %.6f s, model %.6f s (%+.1f%%) in all ranks\n",
               t.model ? t.model->describe().c_str() : "", measured * 1e-12, model * 1e-12,
               measured > 0 ? (model / measured - 1) * 100 : 0.0);
  for (int i = 0; i < K; ++i)
    for (int c = 0; c < C; ++c) {
      if (at(0, i, c) == 0) continue;
      const double ms = static_cast<double>(at(1, i, c)) * 1e-12, md = static_cast<double>(at(2, i, c)) * 1e-12;
      std::fprintf(f, "xsim:   %-6s %-7s %10lld calls  measured %12.6f s  model %12.6f s  %+7.1f%%\n",
                   proc::kernel_name(static_cast<proc::Kernel>(i)), audit_class_name(static_cast<proc::Kernel>(i), c),
                   static_cast<long long>(at(0, i, c)), ms, md, ms > 0 ? (md / ms - 1) * 100 : 0.0);
    }
}
}  // namespace

namespace {
std::vector<ReportLines> g_extra_lines;
}  // namespace

void add_report_lines(ReportLines fn) {
  if (std::find(g_extra_lines.begin(), g_extra_lines.end(), fn) == g_extra_lines.end()) g_extra_lines.push_back(fn);
}

namespace {
// The process's proportional set size in bytes (-1 if unknown): its physical memory, each page once.
int64_t pss_bytes() {
  FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (!f) return -1;
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "Pss:", 4) == 0) kib = std::atoll(line + 4);
  std::fclose(f);
  return kib < 0 ? -1 : kib * 1024;
}
}  // namespace

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// The report's figures, first this process's, then (gather_figures) the run's: each struct is reduced across
// the native processes in one call, so its fields are all int64_t (or all double), in a row.
struct Mins {
  int64_t compute = kMax, mpi = kMax, noise = kMax;  // per rank (ps)
};
struct Maxs {
  int64_t compute = 0, mpi = 0, end = 0, rss = 0;  // per rank (ps), the last clock, per process (bytes)
  int64_t noise = 0, image = 0, stack_touched = 0;  // per rank (ps), privatized image, stack sample
};
struct Sums {
  int64_t compute = 0, mpi = 0, messages = 0, bytes = 0, switches = 0, rss = 0;
  int64_t noise = 0, polls_skipped = 0;
  int64_t priv_processes = 0, priv_bytes = 0, priv_ranks = 0;        // privatization on, image bytes, ranks
  int64_t stack_samples = 0, stack_bytes = 0;                         // StackPool's sample
  int64_t native_messages = 0, native_bytes = 0;                      // the window exchange
  int64_t failed = 0, detections = 0;                                 // injected failures
  int64_t revokes = 0, agreements = 0, shrinks = 0, ulfm_ps = 0;      // ULFM calls, their virtual time
  int64_t link_delayed = 0, link_delay_ps = 0;                        // system network links
  int64_t onnode_flows = 0, onnode_delayed = 0, onnode_delay_ps = 0;  // links inside nodes
  int64_t fold_allocations = 0, fold_peak = 0, fold_messages = 0, fold_pss = 0;  // memory folding
};
struct Seconds {
  double exchange = 0, cpu = 0;  // in the native MPI's window exchange; the run's CPU time outside it
};
struct Figures {
  Mins min;
  Maxs max;
  Sums sum;
  Seconds max_s, sum_s;
  double speed_min = 1e300, speed_max = 0;  // node time factors
};
// The number of 8-byte fields of one of the structs above, reduced as an array from its first field.
template <class T>
int fields(const T&) {
  static_assert(std::is_standard_layout_v<T> && sizeof(T) % 8 == 0, "fields of 8 bytes in a row");
  return static_cast<int>(sizeof(T) / 8);
}

// Gathers the run's figures (collective: every native process calls it).
Figures gather_figures(Engine& e, const Options& opt) {
  Figures g;
  for (const Rank& r : e.ranks()) {
    const int64_t c = r.stats.compute.ps(), m = r.stats.mpi.ps();
    g.min.compute = std::min(g.min.compute, c), g.min.mpi = std::min(g.min.mpi, m);
    g.max.compute = std::max(g.max.compute, c), g.max.mpi = std::max(g.max.mpi, m);
    g.max.end = std::max(g.max.end, r.clock.ps());
    g.sum.compute += c, g.sum.mpi += m;
    g.sum.messages += static_cast<int64_t>(r.stats.messages);
    g.sum.bytes += static_cast<int64_t>(r.stats.bytes);
    if (!e.varied()) continue;  // no noise, no speed factors: nothing more to gather
    const int64_t z = e.noise_of(r.index).ps();
    g.min.noise = std::min(g.min.noise, z), g.max.noise = std::max(g.max.noise, z), g.sum.noise += z;
    g.speed_min = std::min(g.speed_min, e.node_speed(r.index));
    g.speed_max = std::max(g.speed_max, e.node_speed(r.index));
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  g.max.rss = g.sum.rss = static_cast<int64_t>(ru.ru_maxrss) * 1024;
  g.sum.switches = static_cast<int64_t>(e.context_switches());
  g.sum.polls_skipped = static_cast<int64_t>(e.polls_skipped());
  if (const privatize::Privatizer* priv = e.privatizer()) {
    g.sum.priv_processes = 1;
    g.sum.priv_bytes = static_cast<int64_t>(priv->committed_bytes());
    g.sum.priv_ranks = static_cast<int64_t>(priv->ranks_started());
    g.max.image = static_cast<int64_t>(priv->image_bytes());
  }
  g.sum.stack_samples = static_cast<int64_t>(e.stacks().touched_samples());
  g.sum.stack_bytes = static_cast<int64_t>(e.stacks().touched_bytes());
  g.max.stack_touched = static_cast<int64_t>(e.stacks().touched_max());
  g.max_s.cpu = g.sum_s.cpu = e.run_cpu_seconds();
  if (const native::Exchange* x = e.exchange()) {
    g.sum.native_messages = static_cast<int64_t>(x->native_messages());
    g.sum.native_bytes = static_cast<int64_t>(x->bytes_sent());
    g.max_s.exchange = g.sum_s.exchange = x->native_seconds();
    g.max_s.cpu = g.sum_s.cpu = std::max(0.0, e.run_cpu_seconds() - x->native_cpu_seconds());
  }
  g.sum.failed = e.failed_ranks(), g.sum.detections = e.detections();
  uint64_t u[4];
  ulfm_counts(&u[0], &u[1], &u[2], &u[3]);
  g.sum.revokes = static_cast<int64_t>(u[0]), g.sum.agreements = static_cast<int64_t>(u[1]);
  g.sum.shrinks = static_cast<int64_t>(u[2]), g.sum.ulfm_ps = static_cast<int64_t>(u[3]);
  if (const LinkContention* lc = e.link_contention())  // each process counts its receivers' flows
    g.sum.link_delayed = static_cast<int64_t>(lc->delayed()), g.sum.link_delay_ps = lc->total_delay().ps();
  if (const LinkContention* on = e.onnode_contention()) {
    g.sum.onnode_flows = static_cast<int64_t>(on->flows()), g.sum.onnode_delayed = static_cast<int64_t>(on->delayed());
    g.sum.onnode_delay_ps = on->total_delay().ps();
  }
  // memory folding (fold_range.hpp); the physical memory at the end as PSS (RSS counts the shared block
  // once per place it is mapped)
  g.sum.fold_allocations = static_cast<int64_t>(fold::g_state.allocations);
  g.sum.fold_peak = static_cast<int64_t>(fold::g_state.peak_bytes);
  g.sum.fold_messages = static_cast<int64_t>(fold::g_state.messages);
  g.sum.fold_pss = opt.fold ? pss_bytes() : 0;
  if (e.nprocs() > 1) {
    native::allreduce_min(&g.min.compute, fields(g.min));
    native::allreduce_max(&g.max.compute, fields(g.max));
    native::allreduce_sum(&g.sum.compute, fields(g.sum));
    native::allreduce_max(&g.max_s.exchange, fields(g.max_s));
    native::allreduce_sum(&g.sum_s.exchange, fields(g.sum_s));
    double speeds[2] = {-g.speed_min, g.speed_max};
    native::allreduce_max(speeds, 2);
    g.speed_min = -speeds[0], g.speed_max = speeds[1];
  }
  return g;
}

double seconds(int64_t ps) { return static_cast<double>(ps) * 1e-12; }

// The model and virtual-time lines: ranks, network, processor model, times, noise, messages, links,
// failures and recovery.
void print_model(FILE* f, Engine& e, const Options& opt, const Figures& g) {
  const double n = static_cast<double>(e.world_size());
  std::fprintf(f, "xsim: virtual ranks       %lld on %d native process%s\n", static_cast<long long>(e.world_size()),
               e.nprocs(), e.nprocs() == 1 ? "" : "es");
  std::fprintf(f, "xsim: network             %s\n", e.network().describe().c_str());
  std::fprintf(f, "xsim: processor model     %s\n",
               opt.cpu == CpuModel::none ? "none (computation costs no virtual time)"
                                          : ("scaled, factor " + std::to_string(opt.cpu_scale)).c_str());
  std::fprintf(f, "xsim: simulated time      %.9f s\n", seconds(g.max.end));
  std::fprintf(f, "xsim: compute per rank    min %.9f s  avg %.9f s  max %.9f s\n", seconds(g.min.compute),
               seconds(g.sum.compute) / n, seconds(g.max.compute));
  std::fprintf(f, "xsim: MPI time per rank   min %.9f s  avg %.9f s  max %.9f s\n", seconds(g.min.mpi),
               seconds(g.sum.mpi) / n, seconds(g.max.mpi));
  if (e.noise())
    std::fprintf(f, "xsim: noise               %s; injected %.9f s in all, per rank min %.9f s  avg %.9f s  "
                 "max %.9f s (part of the compute time)\n",
                 e.noise()->describe().c_str(), seconds(g.sum.noise), seconds(g.min.noise), seconds(g.sum.noise) / n,
                 seconds(g.max.noise));
  if (opt.node_speed.kind != proc::NodeSpeedSpec::Kind::none)
    std::fprintf(f, "xsim: node speeds         %s: time factors from %.6f to %.6f\n", opt.node_speed.text.c_str(),
                 g.speed_min, g.speed_max);
  if (opt.node_drift.on())
    std::fprintf(f, "xsim: node drift          %s: each node's time factor x (1 + %g x Z), a new Z every %s\n",
                 opt.node_drift.text.c_str(), opt.node_drift.sigma, format_time(opt.node_drift.interval).c_str());
  std::fprintf(f, "xsim: messages            %lld (%s of payload)\n", static_cast<long long>(g.sum.messages),
               format_size(static_cast<uint64_t>(g.sum.bytes)).c_str());
  if (const LinkContention* lc = e.link_contention())  // docs/network-model.md "Link contention"
    std::fprintf(f, "xsim: link contention     %llu messages crossed the system network's links; %lld of them waited for a "
                 "link, %.9f s on average\n",
                 static_cast<unsigned long long>(lc->flows()), static_cast<long long>(g.sum.link_delayed),
                 g.sum.link_delayed ? seconds(g.sum.link_delay_ps) / static_cast<double>(g.sum.link_delayed) : 0.0);
  if (e.onnode_contention())
    std::fprintf(f, "xsim: on-node links       %lld messages between the cores of a node crossed their links; %lld of "
                 "them waited for a link, %.9f s on average\n",
                 static_cast<long long>(g.sum.onnode_flows), static_cast<long long>(g.sum.onnode_delayed),
                 g.sum.onnode_delayed ? seconds(g.sum.onnode_delay_ps) / static_cast<double>(g.sum.onnode_delayed) : 0.0);
}

// Failures and recovery (docs/resilience.md).
void print_resilience(FILE* f, Engine& e, const Options& opt, const Figures& g) {
  const double n = static_cast<double>(e.world_size());
  if (e.faults()) {
    std::string list;
    size_t shown = 0;
    for (const auto& [rank, t] : opt.faults) {
      if (++shown > 8) {
        list += ", ...";
        break;
      }
      char b[64];
      std::snprintf(b, sizeof b, "%s%lld at %.9f s", list.empty() ? "" : ", ", static_cast<long long>(rank), t.seconds());
      list += b;
    }
    std::fprintf(f, "xsim: failures            %lld of %zu injected failures happened (ranks %s); %lld operations "
                 "reported one (MPIX_ERR_PROC_FAILED)\n",
                 static_cast<long long>(g.sum.failed), opt.faults.size(), list.c_str(),
                 static_cast<long long>(g.sum.detections));
  }
  if (g.sum.revokes + g.sum.agreements + g.sum.shrinks > 0)
    std::fprintf(f,
                 "xsim: recovery (ULFM)     %lld revokes, %lld agreements, %lld shrinks (calls, all ranks); "
                 "agree and shrink took %.9f s per rank on average\n",
                 static_cast<long long>(g.sum.revokes), static_cast<long long>(g.sum.agreements),
                 static_cast<long long>(g.sum.shrinks), seconds(g.sum.ulfm_ps) / n);
}

// The simulator's own costs: wall time, switches, polls, messages per second, windows, CPU time.
void print_engine(FILE* f, Engine& e, const Options& opt, const Figures& g, double wall_seconds) {
  const double per_s = wall_seconds > 0 ? 1.0 / wall_seconds : 0.0;
  std::fprintf(f, "xsim: simulator wall time %.3f s\n", wall_seconds);
  std::fprintf(f, "xsim: context switches    %lld (%.3g per second)\n", static_cast<long long>(g.sum.switches),
               static_cast<double>(g.sum.switches) * per_s);
  if (opt.poll_skip)  // docs/virtual-clocks.md "Polling loops"
    std::fprintf(f, "xsim: polls skipped       %lld (-xsim-poll-skip: ranks waited for their next arrival instead)\n",
                 static_cast<long long>(g.sum.polls_skipped));
  std::fprintf(f, "xsim: messages per second %.3g\n", static_cast<double>(g.sum.messages) * per_s);
  if (e.nprocs() > 1) {
    std::fprintf(f, "xsim: windows             %llu (lookahead %s); %lld native messages, %s between processes\n",
                 static_cast<unsigned long long>(e.windows()), format_time(e.lookahead()).c_str(),
                 static_cast<long long>(g.sum.native_messages),
                 format_size(static_cast<uint64_t>(g.sum.native_bytes)).c_str());
    std::fprintf(f, "xsim: window exchange     %.3f s in the native MPI per process (max), %.3f s average, %.1f%% of the wall time\n",
                 g.max_s.exchange, g.sum_s.exchange / e.nprocs(), 100.0 * g.sum_s.exchange / e.nprocs() * per_s);
  }
  std::fprintf(f, "xsim: simulation CPU time %.3f s per process (max), %.3f s average%s\n", g.max_s.cpu,
               g.sum_s.cpu / e.nprocs(), e.nprocs() > 1 ? ", outside the window exchange" : "");
}

// Memory: peak RSS, the stacks the ranks touched, folding, privatized globals.
void print_memory(FILE* f, Engine& e, const Options& opt, const Figures& g) {
  std::fprintf(f, "xsim: peak memory (RSS)   %s per native process (max), %s in total, %.1f KiB per virtual rank\n",
               format_size(static_cast<uint64_t>(g.max.rss)).c_str(), format_size(static_cast<uint64_t>(g.sum.rss)).c_str(),
               static_cast<double>(g.sum.rss) / 1024.0 / static_cast<double>(e.world_size()));
  if (g.sum.stack_samples > 0)  // what -xsim-memory-check's estimate (one page per rank) can be compared with
    std::fprintf(f, "xsim: stack touched       avg %s, max %s per rank (of %s each; measured on %lld ranks as they "
                 "ended, one in %zu)\n",
                 format_size(static_cast<uint64_t>(g.sum.stack_bytes / g.sum.stack_samples)).c_str(),
                 format_size(static_cast<uint64_t>(g.max.stack_touched)).c_str(), format_size(e.stack_size()).c_str(),
                 static_cast<long long>(g.sum.stack_samples), StackPool::kSampleEvery);
  if (opt.fold)  // docs/real-programs.md "Memory folding"
    std::fprintf(f, "xsim: memory folding      %lld allocations of %s or more folded, peak %s of them against %s "
                 "peak resident (RSS, counting shared pages once per mapping) and %s physical at the end (PSS; sums "
                 "over native processes); %lld messages carried only their first and last 4K; contents of folded "
                 "memory are not kept: this run is for timing only\n",
                 static_cast<long long>(g.sum.fold_allocations), format_size(opt.fold).c_str(),
                 format_size(static_cast<uint64_t>(g.sum.fold_peak)).c_str(),
                 format_size(static_cast<uint64_t>(g.sum.rss)).c_str(),
                 format_size(static_cast<uint64_t>(g.sum.fold_pss)).c_str(), static_cast<long long>(g.sum.fold_messages));
  if (g.sum.priv_processes == 0) {
    std::fprintf(f, "xsim: private globals     %s\n", privatize::note().c_str());
    return;
  }
  std::string parts;
  if (const privatize::Privatizer* priv = e.privatizer()) {
    for (const privatize::Region& r : priv->regions()) {
      std::string obj = r.spec.object;
      if (size_t slash = obj.rfind('/'); slash != std::string::npos) obj = obj.substr(slash + 1);
      parts += (parts.empty() ? "" : ", ") + obj + (r.spec.tls ? " TLS " : " data ") + privatize::human_size(r.len) +
               (r.method == privatize::Method::copy ? " copied" : " mapped");
    }
  }
  std::fprintf(f, "xsim: private globals     %s per rank%s%s%s; images in use %s for %lld ranks (%s per rank)\n",
               privatize::human_size(static_cast<uint64_t>(g.max.image)).c_str(), parts.empty() ? "" : " (", parts.c_str(),
               parts.empty() ? "" : ")", privatize::human_size(static_cast<uint64_t>(g.sum.priv_bytes)).c_str(),
               static_cast<long long>(g.sum.priv_ranks),
               privatize::human_size(g.sum.priv_ranks > 0 ? static_cast<uint64_t>(g.sum.priv_bytes / g.sum.priv_ranks) : 0)
                   .c_str());
  if (g.sum.priv_processes < e.nprocs())
    std::fprintf(f, "xsim:                     on in %lld of %d native processes\n",
                 static_cast<long long>(g.sum.priv_processes), e.nprocs());
}
}  // namespace

void write_report(Engine& e, const Options& opt, double wall_seconds, int exit_code) {
  const Figures g = gather_figures(e, opt);  // collective
  const bool kernels = opt.kernels.mode == KernelMode::model, audit = opt.kernels.mode == KernelMode::audit;
  std::string extra;
  for (ReportLines fn : g_extra_lines) extra += fn();  // collective: every process sums its figures
  if (e.proc() != 0 || !opt.report) {
    if (kernels) report_kernels(e, opt, stderr);  // collective
    if (audit) report_audit(e, opt, stderr);      // collective
    return;
  }
  FILE* f = stderr;
  std::fprintf(f, "xsim: ================================ run report ================================\n");
  print_model(f, e, opt, g);
  print_resilience(f, e, opt, g);
  if (kernels) report_kernels(e, opt, f);  // docs/real-programs.md "Kernel models"
  if (audit) report_audit(e, opt, f);      // docs/real-programs.md "Checking a calibration on the program"
  print_engine(f, e, opt, g, wall_seconds);
  print_memory(f, e, opt, g);
  std::fputs(extra.c_str(), f);
  std::fprintf(f, "xsim: exit code           %d\n", exit_code);
  std::fprintf(f, "xsim: =============================================================================\n");
  std::fflush(f);
}

}  // namespace xsim
