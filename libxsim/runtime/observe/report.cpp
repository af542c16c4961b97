#include "report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
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

void write_report(Engine& e, const Options& opt, double wall_seconds, int exit_code) {
  const auto& ranks = e.ranks();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // mins: compute, mpi ; maxs: compute, mpi, end time, rss ; sums: compute, mpi, messages, bytes, switches, rss
  int64_t mins[2] = {kMax, kMax};
  int64_t maxs[4] = {0, 0, 0, 0};
  int64_t sums[6] = {0, 0, 0, 0, 0, 0};
  for (const Rank& r : ranks) {
    int64_t c = r.stats.compute.ps(), m = r.stats.mpi.ps();
    mins[0] = std::min(mins[0], c);
    mins[1] = std::min(mins[1], m);
    maxs[0] = std::max(maxs[0], c);
    maxs[1] = std::max(maxs[1], m);
    maxs[2] = std::max(maxs[2], r.clock.ps());
    sums[0] += c;
    sums[1] += m;
    sums[2] += static_cast<int64_t>(r.stats.messages);
    sums[3] += static_cast<int64_t>(r.stats.bytes);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  int64_t rss = static_cast<int64_t>(ru.ru_maxrss) * 1024;
  maxs[3] = rss;
  sums[4] = static_cast<int64_t>(e.context_switches());
  sums[5] = rss;
  // privatization: processes with it on, bytes the rank images use, ranks with an image; largest image
  const privatize::Privatizer* priv = e.privatizer();
  int64_t psums[3] = {priv ? 1 : 0, priv ? static_cast<int64_t>(priv->committed_bytes()) : 0,
                      priv ? static_cast<int64_t>(priv->ranks_started()) : 0};
  int64_t pmax[1] = {priv ? static_cast<int64_t>(priv->image_bytes()) : 0};
  // the window exchange: native messages and bytes sent (sums); seconds inside the native MPI (max, sum);
  // the run's CPU time outside the exchange (max, sum)
  int64_t xsums[2] = {0, 0};
  double xmax[2] = {0, 0}, xsum[2] = {0, 0};
  xmax[1] = xsum[1] = e.run_cpu_seconds();
  if (const native::Exchange* x = e.exchange()) {
    xsums[0] = static_cast<int64_t>(x->native_messages());
    xsums[1] = static_cast<int64_t>(x->bytes_sent());
    xmax[0] = xsum[0] = x->native_seconds();
    xmax[1] = xsum[1] = std::max(0.0, e.run_cpu_seconds() - x->native_cpu_seconds());
  }
  int64_t failed[2] = {e.failed_ranks(), e.detections()};
  int64_t ulfm[4] = {0, 0, 0, 0};  // revokes, agreements, shrinks, their virtual time (ps, all ranks)
  {
    uint64_t u[4];
    ulfm_counts(&u[0], &u[1], &u[2], &u[3]);
    for (int i = 0; i < 4; ++i) ulfm[i] = static_cast<int64_t>(u[i]);
  }
  // Link contention: flows delayed on the way (each process counts its receivers') and their delay (ps).
  const LinkContention* lc = e.link_contention();
  const LinkContention* on = e.onnode_contention();
  int64_t link_delays[5] = {lc ? static_cast<int64_t>(lc->delayed()) : 0, lc ? lc->total_delay().ps() : 0,
                            on ? static_cast<int64_t>(on->flows()) : 0, on ? static_cast<int64_t>(on->delayed()) : 0,
                            on ? on->total_delay().ps() : 0};
  // memory folding (fold_range.hpp): folded allocations, their peak requested bytes, messages sent folded
  // and the physical memory at the end (PSS: RSS counts the shared block once per place it is mapped)
  int64_t fold[4] = {static_cast<int64_t>(fold::g_state.allocations), static_cast<int64_t>(fold::g_state.peak_bytes),
                     static_cast<int64_t>(fold::g_state.messages), opt.fold ? pss_bytes() : 0};
  int64_t skipped = static_cast<int64_t>(e.polls_skipped());
  // stacks touched (StackPool's sample): ranks measured, their bytes; the most one rank touched
  int64_t stack_sum[2] = {static_cast<int64_t>(e.stacks().touched_samples()),
                          static_cast<int64_t>(e.stacks().touched_bytes())};
  int64_t stack_max[1] = {static_cast<int64_t>(e.stacks().touched_max())};
  // noise (docs/noise.md): per rank min, max, sum of the noise (ps); node time factors min, max
  int64_t noise_min[1] = {kMax}, noise_max[1] = {0}, noise_sum[1] = {0};
  double speed_min[1] = {1e300}, speed_max[1] = {0};
  for (const Rank& r : ranks) {
    if (!e.varied()) break;  // no noise, no speed factors: nothing to gather
    const int64_t z = e.noise_of(r.index).ps();
    noise_min[0] = std::min(noise_min[0], z);
    noise_max[0] = std::max(noise_max[0], z);
    noise_sum[0] += z;
    speed_min[0] = std::min(speed_min[0], e.node_speed(r.index));
    speed_max[0] = std::max(speed_max[0], e.node_speed(r.index));
  }
  if (e.nprocs() > 1) {
    if (opt.poll_skip) native::allreduce_sum(&skipped, 1);
    if (opt.noise.kind != proc::NoiseSpec::Kind::none || opt.node_speed.kind != proc::NodeSpeedSpec::Kind::none) {
      native::allreduce_min(noise_min, 1);
      native::allreduce_max(noise_max, 1);
      native::allreduce_sum(noise_sum, 1);
      speed_min[0] = -speed_min[0];
      native::allreduce_max(speed_min, 1);
      speed_min[0] = -speed_min[0];
      native::allreduce_max(speed_max, 1);
    }
    if (opt.fold) native::allreduce_sum(fold, 4);
    if (lc) native::allreduce_sum(link_delays, 5);
    if (e.faults()) native::allreduce_sum(failed, 2);
    native::allreduce_sum(ulfm, 4);
    native::allreduce_sum(xsums, 2);
    native::allreduce_max(xmax, 2);
    native::allreduce_sum(xsum, 2);
    native::allreduce_min(mins, 2);
    native::allreduce_max(maxs, 4);
    native::allreduce_sum(sums, 6);
    native::allreduce_sum(psums, 3);
    native::allreduce_sum(stack_sum, 2);
    native::allreduce_max(stack_max, 1);
    native::allreduce_max(pmax, 1);
  }
  const bool kernels = opt.kernels.mode == KernelMode::model, audit = opt.kernels.mode == KernelMode::audit;
  std::string extra;
  for (ReportLines fn : g_extra_lines) extra += fn();  // collective: every process sums its figures
  if (e.proc() != 0 || !opt.report) {
    if (kernels) report_kernels(e, opt, stderr);  // collective
    if (audit) report_audit(e, opt, stderr);      // collective
    return;
  }
  const double n = static_cast<double>(e.world_size());
  auto s = [](int64_t ps) { return static_cast<double>(ps) * 1e-12; };
  FILE* f = stderr;
  std::fprintf(f, "xsim: ================================ run report ================================\n");
  std::fprintf(f, "xsim: virtual ranks       %lld on %d native process%s\n", static_cast<long long>(e.world_size()),
               e.nprocs(), e.nprocs() == 1 ? "" : "es");
  std::fprintf(f, "xsim: network             %s\n", e.network().describe().c_str());
  std::fprintf(f, "xsim: processor model     %s\n",
               opt.cpu == CpuModel::none ? "none (computation costs no virtual time)"
                                          : ("scaled, factor " + std::to_string(opt.cpu_scale)).c_str());
  std::fprintf(f, "xsim: simulated time      %.9f s\n", s(maxs[2]));
  std::fprintf(f, "xsim: compute per rank    min %.9f s  avg %.9f s  max %.9f s\n", s(mins[0]), s(sums[0]) / n,
               s(maxs[0]));
  std::fprintf(f, "xsim: MPI time per rank   min %.9f s  avg %.9f s  max %.9f s\n", s(mins[1]), s(sums[1]) / n,
               s(maxs[1]));
  if (e.noise())
    std::fprintf(f, "xsim: noise               %s; injected %.9f s in all, per rank min %.9f s  avg %.9f s  "
                 "max %.9f s (part of the compute time)\n",
                 e.noise()->describe().c_str(), s(noise_sum[0]), s(noise_min[0]), s(noise_sum[0]) / n,
                 s(noise_max[0]));
  if (opt.node_speed.kind != proc::NodeSpeedSpec::Kind::none)
    std::fprintf(f, "xsim: node speeds         %s: time factors from %.6f to %.6f\n", opt.node_speed.text.c_str(),
                 speed_min[0], speed_max[0]);
  if (opt.node_drift.on())
    std::fprintf(f, "xsim: node drift          %s: each node's time factor x (1 + %g x Z), a new Z every %s\n",
                 opt.node_drift.text.c_str(), opt.node_drift.sigma, format_time(opt.node_drift.interval).c_str());
  std::fprintf(f, "xsim: messages            %lld (%s of payload)\n", static_cast<long long>(sums[2]),
               format_size(static_cast<uint64_t>(sums[3])).c_str());
  if (lc)  // docs/network-model.md "Link contention"
    std::fprintf(f, "xsim: link contention     %llu messages crossed the system network's links; %lld of them waited for a "
                 "link, %.9f s on average\n",
                 static_cast<unsigned long long>(lc->flows()), static_cast<long long>(link_delays[0]),
                 link_delays[0] ? s(link_delays[1]) / static_cast<double>(link_delays[0]) : 0.0);
  if (on)
    std::fprintf(f, "xsim: on-node links       %lld messages between the cores of a node crossed their links; %lld of "
                 "them waited for a link, %.9f s on average\n",
                 static_cast<long long>(link_delays[2]), static_cast<long long>(link_delays[3]),
                 link_delays[3] ? s(link_delays[4]) / static_cast<double>(link_delays[3]) : 0.0);
  if (e.faults()) {  // docs/resilience.md
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
                 static_cast<long long>(failed[0]), opt.faults.size(), list.c_str(), static_cast<long long>(failed[1]));
  }
  if (ulfm[0] + ulfm[1] + ulfm[2] > 0)  // docs/resilience.md
    std::fprintf(f,
                 "xsim: recovery (ULFM)     %lld revokes, %lld agreements, %lld shrinks (calls, all ranks); "
                 "agree and shrink took %.9f s per rank on average\n",
                 static_cast<long long>(ulfm[0]), static_cast<long long>(ulfm[1]), static_cast<long long>(ulfm[2]),
                 s(ulfm[3]) / n);
  if (kernels) report_kernels(e, opt, f);  // docs/real-programs.md "Kernel models"
  if (audit) report_audit(e, opt, f);      // docs/real-programs.md "Checking a calibration on the program"
  std::fprintf(f, "xsim: simulator wall time %.3f s\n", wall_seconds);
  std::fprintf(f, "xsim: context switches    %lld (%.3g per second)\n", static_cast<long long>(sums[4]),
               wall_seconds > 0 ? static_cast<double>(sums[4]) / wall_seconds : 0.0);
  if (opt.poll_skip)  // docs/virtual-clocks.md "Polling loops"
    std::fprintf(f, "xsim: polls skipped       %lld (-xsim-poll-skip: ranks waited for their next arrival instead)\n",
                 static_cast<long long>(skipped));
  std::fprintf(f, "xsim: messages per second %.3g\n", wall_seconds > 0 ? static_cast<double>(sums[2]) / wall_seconds : 0.0);
  if (e.nprocs() > 1) {
    std::fprintf(f, "xsim: windows             %llu (lookahead %s); %lld native messages, %s between processes\n",
                 static_cast<unsigned long long>(e.windows()), format_time(e.lookahead()).c_str(),
                 static_cast<long long>(xsums[0]), format_size(static_cast<uint64_t>(xsums[1])).c_str());
    std::fprintf(f, "xsim: window exchange     %.3f s in the native MPI per process (max), %.3f s average, %.1f%% of the wall time\n",
                 xmax[0], xsum[0] / e.nprocs(), wall_seconds > 0 ? 100.0 * xsum[0] / e.nprocs() / wall_seconds : 0.0);
  }
  std::fprintf(f, "xsim: simulation CPU time %.3f s per process (max), %.3f s average%s\n", xmax[1], xsum[1] / e.nprocs(),
               e.nprocs() > 1 ? ", outside the window exchange" : "");
  std::fprintf(f, "xsim: peak memory (RSS)   %s per native process (max), %s in total, %.1f KiB per virtual rank\n",
               format_size(static_cast<uint64_t>(maxs[3])).c_str(), format_size(static_cast<uint64_t>(sums[5])).c_str(),
               static_cast<double>(sums[5]) / 1024.0 / n);
  if (stack_sum[0] > 0)  // what -xsim-memory-check's estimate (one page per rank) can be compared with
    std::fprintf(f, "xsim: stack touched       avg %s, max %s per rank (of %s each; measured on %lld ranks as they "
                 "ended, one in %zu)\n",
                 format_size(static_cast<uint64_t>(stack_sum[1] / stack_sum[0])).c_str(),
                 format_size(static_cast<uint64_t>(stack_max[0])).c_str(), format_size(e.stack_size()).c_str(),
                 static_cast<long long>(stack_sum[0]), StackPool::kSampleEvery);
  if (opt.fold)  // docs/real-programs.md "Memory folding"
    std::fprintf(f, "xsim: memory folding      %lld allocations of %s or more folded, peak %s of them against %s "
                 "peak resident (RSS, counting shared pages once per mapping) and %s physical at the end (PSS; sums "
                 "over native processes); %lld messages carried only their first and last 4K; contents of folded "
                 "memory are not kept: this run is for timing only\n",
                 static_cast<long long>(fold[0]), format_size(opt.fold).c_str(),
                 format_size(static_cast<uint64_t>(fold[1])).c_str(), format_size(static_cast<uint64_t>(sums[5])).c_str(),
                 format_size(static_cast<uint64_t>(fold[3])).c_str(), static_cast<long long>(fold[2]));
  if (psums[0] == 0) {
    std::fprintf(f, "xsim: private globals     %s\n", privatize::note().c_str());
  } else {
    std::string parts;
    if (priv) {
      for (const privatize::Region& r : priv->regions()) {
        std::string obj = r.spec.object;
        if (size_t slash = obj.rfind('/'); slash != std::string::npos) obj = obj.substr(slash + 1);
        parts += (parts.empty() ? "" : ", ") + obj + (r.spec.tls ? " TLS " : " data ") + privatize::human_size(r.len) +
                 (r.method == privatize::Method::copy ? " copied" : " mapped");
      }
    }
    std::fprintf(f, "xsim: private globals     %s per rank%s%s%s; images in use %s for %lld ranks (%s per rank)\n",
                 privatize::human_size(static_cast<uint64_t>(pmax[0])).c_str(), parts.empty() ? "" : " (", parts.c_str(),
                 parts.empty() ? "" : ")", privatize::human_size(static_cast<uint64_t>(psums[1])).c_str(),
                 static_cast<long long>(psums[2]),
                 privatize::human_size(psums[2] > 0 ? static_cast<uint64_t>(psums[1] / psums[2]) : 0).c_str());
    if (psums[0] < e.nprocs())
      std::fprintf(f, "xsim:                     on in %lld of %d native processes\n", static_cast<long long>(psums[0]),
                   e.nprocs());
  }
  std::fputs(extra.c_str(), f);
  std::fprintf(f, "xsim: exit code           %d\n", exit_code);
  std::fprintf(f, "xsim: =============================================================================\n");
  std::fflush(f);
}

}  // namespace xsim
