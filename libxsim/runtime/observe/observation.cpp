#include "observation.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "comm.hpp"
#include "engine.hpp"
#include "host_clock.hpp"
#include "native/gather.hpp"
#include "observe/chrome_trace.hpp"
#include "observe/mpi_calls.hpp"
#include "observe/stats.hpp"
#include "observe/trace_buffer.hpp"
#include "observer.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "xsim.h"
#include "xsim/units.hpp"
#ifdef XSIM_HAVE_OTF2
#include "trace_otf2.hpp"
#endif

namespace xsim {

namespace {
// "dir/name" -> ("dir", "name"); a trailing ".otf2" or ".json" is not part of the name.
std::pair<std::string, std::string> split_trace_path(std::string base) {
  for (const char* ext : {".otf2", ".json"}) {
    std::string x = ext;
    if (base.size() > x.size() && base.compare(base.size() - x.size(), x.size(), x) == 0) base.resize(base.size() - x.size());
  }
  size_t slash = base.rfind('/');
  if (slash == std::string::npos) return {".", base};
  return {slash == 0 ? "/" : base.substr(0, slash), base.substr(slash + 1)};
}

// A file written only by native process 0; the others get a null one and write nothing.
class RootFile {
 public:
  RootFile(bool root, const std::string& path, std::vector<std::string>& errors) : path_(path) {
    if (!root) return;
    f_ = std::fopen(path.c_str(), "w");
    if (!f_) errors.push_back("cannot write " + path + ": " + std::strerror(errno));
  }
  ~RootFile() {
    if (f_) std::fclose(f_);
  }
  void write(const std::string& s) {
    if (f_ && std::fwrite(s.data(), 1, s.size(), f_) != s.size()) failed_ = true;
  }
  // Closes; true when everything reached the file.
  bool close(std::vector<std::string>& errors) {
    if (!f_) return true;
    bool ok = !failed_ && std::fflush(f_) == 0 && !std::ferror(f_);
    std::fclose(f_);
    f_ = nullptr;
    if (!ok) errors.push_back("writing " + path_ + " failed: " + std::strerror(errno));
    return ok;
  }

 private:
  std::string path_;
  FILE* f_ = nullptr;
  bool failed_ = false;
};

// True when stderr ends at a terminal: directly, or through the launcher. Under mpiexec a rank's stderr is a
// pipe to the launcher's proxy, which forwards to the launcher's own stderr: follow the parents (a few
// levels, while their stderr is a pipe) to the first one whose stderr is not a pipe.
bool stderr_reaches_terminal() {
  if (isatty(STDERR_FILENO) == 1) return true;
  pid_t pid = getppid();
  for (int depth = 0; depth < 4 && pid > 1; ++depth) {
    char link[64], target[256];
    std::snprintf(link, sizeof link, "/proc/%d/fd/2", static_cast<int>(pid));
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return false;
    target[n] = '\0';
    if (!std::strncmp(target, "/dev/pts/", 9) || !std::strncmp(target, "/dev/tty", 8)) return true;
    if (std::strncmp(target, "pipe:", 5) != 0) return false;
    std::snprintf(link, sizeof link, "/proc/%d/stat", static_cast<int>(pid));
    FILE* f = std::fopen(link, "r");
    if (!f) return false;
    char stat[512];
    size_t len = std::fread(stat, 1, sizeof stat - 1, f);
    std::fclose(f);
    stat[len] = '\0';
    const char* close_paren = std::strrchr(stat, ')');  // "pid (name) state ppid ..."
    int ppid = 0;
    if (!close_paren || std::sscanf(close_paren + 1, " %*c %d", &ppid) != 1) return false;
    pid = ppid;
  }
  return false;
}

// "161.4 MiB": sizes as people read them (format_size prints exact sizes).
std::string human_size(uint64_t b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, unit[u]);
  return buf;
}

std::string size_of_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return "?";
  std::fseek(f, 0, SEEK_END);
  long n = std::ftell(f);
  std::fclose(f);
  return human_size(static_cast<uint64_t>(n < 0 ? 0 : n));
}

}  // namespace

// The trace region that marks an injected process failure (docs/resilience.md, docs/observability.md).
constexpr const char* kFailureRegion = "xsim: process failure (injected)";
// The region of a noise detour (obs::kDetourRegion, as a C string for the region table).
constexpr const char* kDetourName = obs::kDetourRegion.data();

class Observation final : public Observer {
 public:
  Observation(const Options& opt, Engine& e)
      : opt_(opt), e_(e), nlocal_(e.ranks().size()), per_(nlocal_) {
    if (!opt.trace.empty()) {
      auto [dir, name] = split_trace_path(opt.trace);
      trace_dir_ = dir;
      trace_name_ = name;
      trace_ = std::make_unique<obs::TraceBuffer>(
          nlocal_, opt.trace_buffer, dir + "/." + name + ".xsim-spill." + std::to_string(e.proc()));
    }
    if (!opt.stats.empty()) {
      int64_t nodes = 0;
      for (int64_t r = 0; r < e.world_size(); ++r) nodes = std::max(nodes, e.node_of(r) + 1);
      layout_ = obs::MatrixLayout::choose(e.world_size(), nodes, opt.stats_matrix);
      const size_t cells = static_cast<size_t>(layout_.cells);
      matrix_bytes_.assign(cells * cells, 0);
      matrix_msgs_.assign(cells * cells, 0);
    }
  }

  // ---- hooks ----------------------------------------------------------------------------------------

  void enter(Rank& r, const char* name, MPI_Comm comm) override {
    if (r.mpi_depth != 1) return;
    PerRank& p = per_[static_cast<size_t>(r.index)];
    p.call = name;
    p.region = region(name);
    p.enter_ps = r.clock.ps();
    p.call_wait = 0;
    p.idle_pending = false;
    p.sent0 = r.stats.messages;
    p.sent_bytes0 = r.stats.bytes;
    p.recv0 = p.recv;
    p.recv_bytes0 = p.recv_bytes;
    if (trace_) {
      uint64_t ctx = obs::kNoContext;
      if (comm != MPI_COMM_NULL)
        if (Comm* c = comm_lookup(comm)) ctx = name_contexts(*c);
      trace_->add(static_cast<size_t>(r.index), obs::enter_event(r.clock.ps(), p.region, ctx));
    }
  }

  void leave(Rank& r) override {
    if (r.mpi_depth != 1) return;
    PerRank& p = per_[static_cast<size_t>(r.index)];
    if (p.call) close_call(r, p);
  }

  void sent(Rank& r, const Message& m) override {
    if (trace_) {
      see_context(m.ctx);
      trace_->add(static_cast<size_t>(r.index), obs::message_event(obs::EventKind::Send, r.clock.ps(), m.dst, m.tag,
                                                                  m.ctx, m.bytes(), m.seq));
    }
    if (!matrix_bytes_.empty()) {
      const size_t cell = static_cast<size_t>(layout_.cell(m.src, e_.node_of(m.src)) * layout_.cells +
                                              layout_.cell(m.dst, e_.node_of(m.dst)));
      matrix_bytes_[cell] += m.bytes();
      ++matrix_msgs_[cell];
    }
  }

  void received(Rank& r, const Message& m) override {
    PerRank& p = per_[static_cast<size_t>(r.index)];
    ++p.recv;
    p.recv_bytes += m.bytes();
    if (p.idle_pending && m.t_arrive.ps() == p.idle_to) {
      // The arrival that woke the rank: waiting until its sender sent it, communication after.
      const SimTime latency = e_.network().message_latency(e_.core_of(m.src), e_.core_of(m.dst), m.bytes());
      p.call_wait += obs::wait_part(p.idle_from, p.idle_to, m.t_arrive.ps() - latency.ps());
      p.idle_pending = false;
    }
    if (trace_) {
      see_context(m.ctx);
      trace_->add(static_cast<size_t>(r.index), obs::message_event(obs::EventKind::Recv, r.clock.ps(), m.src, m.tag,
                                                                  m.ctx, m.bytes(), m.seq));
    }
  }

  void idle(Rank& r, SimTime from, SimTime to) override {
    PerRank& p = per_[static_cast<size_t>(r.index)];
    if (p.idle_pending) p.call_wait += p.idle_to - p.idle_from;  // woken by something else: all waiting
    p.idle_from = from.ps();
    p.idle_to = to.ps();
    p.idle_pending = true;
  }

  void failed(Rank& r) override {  // the call it was in ends here; then a zero-length region marks the failure
    PerRank& p = per_[static_cast<size_t>(r.index)];
    if (p.call) close_call(r, p);
    if (trace_) {
      const uint32_t fail_region = region(kFailureRegion);
      trace_->add(static_cast<size_t>(r.index), obs::enter_event(r.clock.ps(), fail_region, obs::kNoContext));
      trace_->add(static_cast<size_t>(r.index), obs::leave_event(r.clock.ps(), fail_region));
    }
  }

  // A detour between two MPI calls is a region of its own (Enter and Leave). One inside a traced call (a
  // computation charged from a callback) stays part of the call: calls hold no nested regions.
  void detour(Rank& r, SimTime from, SimTime to) override {
    if (!trace_ || per_[static_cast<size_t>(r.index)].call) return;
    const uint32_t reg = region(kDetourName);
    trace_->add(static_cast<size_t>(r.index), obs::enter_event(from.ps(), reg, obs::kNoContext));
    trace_->add(static_cast<size_t>(r.index), obs::leave_event(to.ps(), reg));
  }

  // ---- the end ----------------------------------------------------------------------------------------

  bool finish() {
    // Ranks still inside a call (a deadlock): the call ends at the rank's clock.
    for (const Rank& cr : e_.ranks()) {
      Rank& r = const_cast<Rank&>(cr);
      PerRank& p = per_[static_cast<size_t>(r.index)];
      if (p.call) close_call(r, p);
    }
    std::vector<std::string> errors;
    std::vector<std::string> wrote;
    if (!opt_.stats.empty()) write_stats(errors, wrote);
    if (trace_) write_trace(errors, wrote);
    if (e_.proc() == 0) {
      for (const std::string& w : wrote) std::fprintf(stderr, "xsim: %s\n", w.c_str());
      for (const std::string& err : errors) std::fprintf(stderr, "xsim: %s\n", err.c_str());
      std::fflush(stderr);
    }
    return !native::any_true(!errors.empty());
  }

 private:
  struct PerRank {
    const char* call = nullptr;       // the outermost MPI call the rank is in, or null
    uint32_t region = 0;
    int64_t enter_ps = 0;
    int64_t call_wait = 0;            // waiting inside the current call so far
    int64_t idle_from = 0, idle_to = 0;
    bool idle_pending = false;        // blocked interval not yet explained by an arrival
    uint64_t sent0 = 0, sent_bytes0 = 0, recv0 = 0, recv_bytes0 = 0;  // counters at the call's entry
    uint64_t recv = 0, recv_bytes = 0;
    int64_t wait = 0;
    uint64_t calls = 0;
  };
  struct FunctionAcc {
    obs::FunctionStats stats;
    std::vector<bool> seen;           // local ranks that called it
  };

  uint32_t region(const char* name) {
    if (name == last_name_) return last_region_;
    auto [it, fresh] = region_of_.try_emplace(name, static_cast<uint32_t>(regions_.size()));
    if (fresh) {
      regions_.push_back(name);
      functions_.emplace_back();
    }
    last_name_ = name;
    last_region_ = it->second;
    return it->second;
  }

  void see_context(uint64_t ctx) {
    if (ctx == last_ctx_) return;  // messages mostly come in runs on one context
    contexts_seen_.insert(ctx);
    last_ctx_ = ctx;
  }

  // Names the communicator's two contexts (first sight wins); returns its point-to-point context.
  uint64_t name_contexts(const Comm& c) {
    const uint64_t p2p = c.p2p_ctx();
    if (contexts_.find(p2p) == contexts_.end()) {
      std::string name = describe_comm(c.handle);
      if (c.is_inter) name += " (intercommunicator)";
      contexts_[p2p] = name;
      contexts_[p2p + 1] = name + " (collectives)";
    }
    return p2p;
  }

  void close_call(Rank& r, PerRank& p) {
    const int64_t now = r.clock.ps();
    if (p.idle_pending) p.call_wait += p.idle_to - p.idle_from;
    p.idle_pending = false;
    const int64_t time = now - p.enter_ps;
    p.call_wait = std::min(p.call_wait, time);
    p.wait += p.call_wait;
    ++p.calls;
    if (!opt_.stats.empty()) {
      FunctionAcc& f = functions_[p.region];
      f.stats.add_call(time, p.call_wait, r.stats.messages - p.sent0, r.stats.bytes - p.sent_bytes0, p.recv - p.recv0,
                       p.recv_bytes - p.recv_bytes0);
      if (f.seen.empty()) f.seen.resize(nlocal_);
      if (!f.seen[static_cast<size_t>(r.index)]) {
        f.seen[static_cast<size_t>(r.index)] = true;
        ++f.stats.ranks;
      }
    }
    if (trace_) trace_->add(static_cast<size_t>(r.index), obs::leave_event(now, p.region));
    p.call = nullptr;
  }

  obs::RankRow row(const Rank& r) const {
    const PerRank& p = per_[static_cast<size_t>(r.index)];
    obs::RankRow w;
    w.rank = r.world;
    w.node = e_.node_of(r.world);
    w.finish_ps = r.clock.ps();
    w.compute_ps = r.stats.compute.ps();
    w.mpi_ps = r.stats.mpi.ps();
    w.wait_ps = std::min(p.wait, w.mpi_ps);
    w.calls = p.calls;
    w.messages_sent = r.stats.messages;
    w.bytes_sent = r.stats.bytes;
    w.messages_received = p.recv;
    w.bytes_received = p.recv_bytes;
    return w;
  }

  // Streams text produced rank by rank to native process 0's file `out`.
  template <class Produce>
  void stream_ranks(RootFile& out, Produce produce_rank) {
    size_t next = 0;
    native::stream_to_root(
        [&](std::string& chunk) {
          while (next < nlocal_ && chunk.size() < (4u << 20)) produce_rank(chunk, next++);
          return next < nlocal_;
        },
        [&](const std::string& chunk) { out.write(chunk); });
  }

  void write_stats(std::vector<std::string>& errors, std::vector<std::string>& wrote) {
    const bool root = e_.proc() == 0;
    const std::string& prefix = opt_.stats;
    // Totals first (the JSON files carry them).
    obs::RunTotals local;
    for (const Rank& r : e_.ranks()) local.add(row(r));
    char line[400];
    std::snprintf(line, sizeof line, "%lld %lld %llu %llu %llu %lld %lld %lld", static_cast<long long>(local.ranks),
                  static_cast<long long>(local.simulated_ps), static_cast<unsigned long long>(local.calls),
                  static_cast<unsigned long long>(local.messages), static_cast<unsigned long long>(local.bytes),
                  static_cast<long long>(local.compute_ps), static_cast<long long>(local.mpi_ps),
                  static_cast<long long>(local.wait_ps));
    obs::RunTotals totals;
    for (const std::string& s : native::gather_strings(line)) {
      obs::RunTotals t;
      long long a, b, f, g, h;
      unsigned long long c, d, x;
      if (std::sscanf(s.c_str(), "%lld %lld %llu %llu %llu %lld %lld %lld", &a, &b, &c, &d, &x, &f, &g, &h) == 8) {
        t.ranks = a, t.simulated_ps = b, t.calls = c, t.messages = d, t.bytes = x, t.compute_ps = f, t.mpi_ps = g,
        t.wait_ps = h;
        totals.merge(t);
      }
    }
    {  // per rank, CSV and JSON, streamed
      RootFile csv(root, prefix + ".ranks.csv", errors);
      csv.write(obs::ranks_csv_header());
      stream_ranks(csv, [&](std::string& out, size_t i) { obs::append_rank_csv(out, row(e_.ranks()[i])); });
      csv.close(errors);
      RootFile json(root, prefix + ".ranks.json", errors);
      json.write(obs::ranks_json_head());
      bool first = e_.first_rank_of(e_.proc()) == 0;
      stream_ranks(json, [&](std::string& out, size_t i) {
        obs::append_rank_json(out, row(e_.ranks()[i]), first);
        first = false;
      });
      json.write(obs::ranks_json_tail(totals));
      json.close(errors);
    }
    // per function
    obs::FunctionTable table;
    for (size_t i = 0; i < regions_.size(); ++i)
      if (functions_[i].stats.calls) table[regions_[i]].merge(functions_[i].stats);
    obs::FunctionTable all;
    for (const std::string& s : native::gather_strings(obs::serialize(table))) obs::merge_serialized(all, s);
    if (root) {
      RootFile csv(true, prefix + ".functions.csv", errors);
      csv.write(obs::functions_csv(all));
      csv.close(errors);
      RootFile json(true, prefix + ".functions.json", errors);
      json.write(obs::functions_json(all, totals));
      json.close(errors);
    }
    // communication matrix
    native::reduce_sum_to_root(matrix_bytes_.data(), matrix_bytes_.size());
    native::reduce_sum_to_root(matrix_msgs_.data(), matrix_msgs_.size());
    if (root) {
      RootFile csv(true, prefix + ".matrix.csv", errors);
      csv.write(obs::matrix_csv(layout_, matrix_bytes_.data()));
      csv.close(errors);
      RootFile json(true, prefix + ".matrix.json", errors);
      json.write(obs::matrix_json(layout_, matrix_bytes_.data(), matrix_msgs_.data()));
      json.close(errors);
      wrote.push_back("statistics: " + prefix + ".{ranks,functions}.{csv,json} (" + std::to_string(totals.ranks) +
                      " ranks, " + std::to_string(all.size()) + " MPI functions), " + prefix + ".matrix.{csv,json} (" +
                      std::to_string(layout_.cells) + " x " + std::to_string(layout_.cells) + ", per " +
                      layout_.unit_name() + (layout_.unit == obs::MatrixLayout::Unit::block
                                                 ? " block of " + std::to_string(layout_.block)
                                                 : std::string()) +
                      ")");
    }
  }

  void write_trace(std::vector<std::string>& errors, std::vector<std::string>& wrote) {
    const bool root = e_.proc() == 0;
    const double t0 = host_now();
    // Global tables: every process's region names and message contexts, merged at process 0 and sent back.
    std::string mine;
    for (const char* n : regions_) mine += std::string("R\t") + n + "\n";
    for (uint64_t c : contexts_seen_) contexts_.try_emplace(c, std::string());
    for (const auto& [ctx, name] : contexts_) {
      std::string clean = name;
      for (char& ch : clean)
        if (ch == '\t' || ch == '\n') ch = ' ';
      mine += "C\t" + std::to_string(ctx) + "\t" + clean + "\n";
    }
    std::string merged;
    if (root) {
      std::set<std::string> names;
      std::map<uint64_t, std::string> ctxs;
      for (const std::string& part : native::gather_strings(mine)) {
        std::istringstream in(part);
        std::string l;
        while (std::getline(in, l)) {
          if (l.rfind("R\t", 0) == 0) {
            names.insert(l.substr(2));
          } else if (l.rfind("C\t", 0) == 0) {
            size_t tab = l.find('\t', 2);
            uint64_t ctx = std::stoull(l.substr(2, tab - 2));
            std::string name = tab == std::string::npos ? "" : l.substr(tab + 1);
            std::string& have = ctxs[ctx];
            if (have.empty()) have = name;
          }
        }
      }
      for (const std::string& n : names) merged += "R\t" + n + "\n";
      for (const auto& [ctx, name] : ctxs)
        merged += "C\t" + std::to_string(ctx) + "\t" + (name.empty() ? "context " + std::to_string(ctx) : name) + "\n";
    } else {
      native::gather_strings(mine);
    }
    merged = native::bcast_string(merged);
    std::vector<std::string> region_names;
    std::map<uint64_t, std::string> context_names;
    std::vector<std::pair<uint64_t, std::string>> comms;
    {
      std::istringstream in(merged);
      std::string l;
      while (std::getline(in, l)) {
        if (l.rfind("R\t", 0) == 0) {
          region_names.push_back(l.substr(2));
        } else if (l.rfind("C\t", 0) == 0) {
          size_t tab = l.find('\t', 2);
          uint64_t ctx = std::stoull(l.substr(2, tab - 2));
          context_names[ctx] = l.substr(tab + 1);
          comms.emplace_back(ctx, l.substr(tab + 1));
        }
      }
    }
    std::map<std::string, uint32_t> region_id;
    for (size_t i = 0; i < region_names.size(); ++i) region_id[region_names[i]] = static_cast<uint32_t>(i);
    std::vector<uint32_t> local_region(regions_.size());
    std::vector<std::string> local_names(regions_.size());
    for (size_t i = 0; i < regions_.size(); ++i) {
      local_names[i] = regions_[i];
      local_region[i] = region_id[local_names[i]];
    }
    // Latest event time (the trace's length).
    int64_t end = 0;
    for (const Rank& r : e_.ranks()) end = std::max(end, r.clock.ps());
    end = -native::min_all(-end);
    const uint64_t local_events = trace_->total();
    const std::string base = trace_dir_ + "/" + trace_name_;
    std::string parts;

    if (opt_.trace_json) {
      RootFile json(root, base + ".json", errors);
      json.write(obs::chrome_head("xsim: " + std::to_string(e_.world_size()) + " virtual ranks"));
      std::vector<obs::TraceEvent> ev;
      stream_ranks(json, [&](std::string& out, size_t i) {
        const Rank& r = e_.ranks()[i];
        const int64_t node = e_.node_of(r.world);
        obs::chrome_rank_metadata(out, r.world, node);
        trace_->read(i, ev);
        obs::chrome_rank_events(out, r.world, node, ev, local_names, context_names);
      });
      json.write(obs::chrome_tail("\"generator\": \"xsim " XSIM_VERSION_STRING "\", \"ranks\": " +
                                  std::to_string(e_.world_size()) + ", \"time_unit\": \"virtual microseconds\""));
      if (json.close(errors) && root) parts += base + ".json (" + size_of_file(base + ".json") + ")";
    }
    if (opt_.trace_otf2) {
#ifdef XSIM_HAVE_OTF2
      Otf2Definitions defs{region_names, comms};
      uint64_t n = 0;
      std::string err = write_otf2(trace_dir_, trace_name_, e_, *trace_, defs, local_region, end, n);
      if (!err.empty()) {
        if (root) errors.push_back("OTF2 trace " + base + ".otf2: " + err);
      } else if (root) {
        parts = base + ".otf2 (" + std::to_string(n) + " events)" + (parts.empty() ? "" : " and " + parts);
      }
#else
      if (root)
        errors.push_back("this xsim was built without OTF2 (libotf2-trace-dev): no " + base +
                         ".otf2; use -xsim-trace-format json, or rebuild with OTF2");
#endif
    }
    // How much was recorded, everywhere.
    std::vector<uint64_t> counts = native::gather_u64({local_events, trace_->spills(), trace_->spilled_bytes()});
    if (root && !parts.empty()) {
      uint64_t total = 0, spills = 0, spilled = 0;
      for (size_t i = 0; i + 2 < counts.size(); i += 3) total += counts[i], spills += counts[i + 1], spilled += counts[i + 2];
      char buf[200];
      std::snprintf(buf, sizeof buf, "; %llu events recorded (%s), written in %.2f s",
                    static_cast<unsigned long long>(total), human_size(total * sizeof(obs::TraceEvent)).c_str(),
                    host_now() - t0);
      std::string spill_note = spills ? "; " + std::to_string(spills) + " spills to disk (" + human_size(spilled) + ")" : "";
      wrote.push_back("trace: " + parts + buf + spill_note);
    }
  }

  const Options& opt_;
  Engine& e_;
  size_t nlocal_;
  std::vector<PerRank> per_;
  std::unique_ptr<obs::TraceBuffer> trace_;
  std::string trace_dir_, trace_name_;
  // MPI functions seen here: region index -> name, and per-function accumulators.
  std::unordered_map<const char*, uint32_t> region_of_;
  std::vector<const char*> regions_;
  std::vector<FunctionAcc> functions_;
  const char* last_name_ = nullptr;
  uint32_t last_region_ = 0;
  std::map<uint64_t, std::string> contexts_;   // message context -> communicator name
  std::set<uint64_t> contexts_seen_;
  uint64_t last_ctx_ = obs::kNoContext;
  obs::MatrixLayout layout_;
  std::vector<uint64_t> matrix_bytes_, matrix_msgs_;

  friend bool observe_end(Observing& o, Engine& e);
};

Observing::Observing() = default;
Observing::Observing(Observing&&) noexcept = default;
Observing::~Observing() = default;

Observing observe_begin(const Options& opt, Engine& e) {
  Observing o;
  if (!opt.trace.empty() || !opt.stats.empty()) {
    o.observation = std::make_unique<Observation>(opt, e);
    e.set_observer(o.observation.get());
  }
  if (e.proc() == 0) {
    const bool terminal = stderr_reaches_terminal();
    if (opt.progress == ProgressMode::on || (opt.progress == ProgressMode::automatic && terminal)) {
      o.progress = std::make_unique<Progress>(e, terminal);
      e.set_progress(o.progress.get());
    }
  }
  return o;
}

bool observe_end(Observing& o, Engine& e) {
  if (o.progress) e.set_progress(nullptr);  // the engine finished it at the end of the run
  bool ok = true;
  if (o.observation) {
    ok = o.observation->finish();
    e.set_observer(nullptr);
  }
  return ok;
}

}  // namespace xsim
