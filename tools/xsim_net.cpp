// xsim-net: inspect a network configuration without running anything (docs/network-config.md).
// Pure C++: reads the same -xsim-mn strings and TOML files as the simulator (through libxsim's config
// layer), builds the network model and answers route, latency and summary queries about it.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "network_config.hpp"
#include "options.hpp"
#include "xsim/netmodel/hierarchy.hpp"
#include "xsim/units.hpp"

namespace {

using namespace xsim;

const char* kUsage =
    "usage: xsim-net [--mn SPEC] [--np M] [--config FILE] [--placement block|roundrobin|file:PATH]\n"
    "                [--bytes SIZE] [--key K] COMMAND\n"
    "\n"
    "Commands (SRC and DST are virtual ranks, placed on cores as configured):\n"
    "  hops SRC DST            total hop count of the route, alone on one line\n"
    "  latency SRC DST BYTES   message latency in seconds, alone on one line\n"
    "  route SRC DST           the route level by level: hops, link latency, bandwidth\n"
    "  links SRC DST           the route's links in the order a message crosses them, as link contention\n"
    "                          (-xsim-contention links) sees them: link id, latency, bandwidth\n"
    "  summary                 cores, ranks, diameter, average hops and latency under uniform random\n"
    "                          traffic (all ordered pairs of distinct ranks up to 4096 ranks, else 1,000,000\n"
    "                          pairs sampled with a fixed seed), minimum latency\n"
    "  matrix --csv FILE       rank-to-rank latency matrix (seconds, --bytes per message) as CSV\n"
    "  matrix --svg FILE       the same as an SVG heat map\n"
    "  matrix options: --max N  at most N rows/columns (default 4096 for CSV, 256 for SVG); above it ranks\n"
    "                          are grouped into blocks, each cell the mean over up to 8x8 evenly spaced pairs\n"
    "\n"
    "Options:\n"
    "  --mn SPEC        network: the same strings as -xsim-mn (a preset such as ethernet, or an inline spec\n"
    "                   such as torus:8x8x8:lat=7us:bw=8.8Gbps/star:2:lat=0.32us:bw=9.6Gbps); default ethernet\n"
    "  --np M           virtual ranks (default: the config file's np, else one per core of the network;\n"
    "                   needed when a level takes its size from the rank count, e.g. a preset)\n"
    "  --config FILE    TOML configuration ([network], [simulation] np) as for -xsim-config; --mn, --np and\n"
    "                   --placement override it\n"
    "  --placement P    block (default), roundrobin or file:PATH\n"
    "  --bytes SIZE     message size for summary and matrix (default 0)\n"
    "  --key K          message key for keyed routes (dragonfly Valiant routing; default 0)\n"
    "  -h, --help       this help\n";

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "xsim-net: %s\n(see xsim-net --help)\n", msg.c_str());
  std::exit(2);
}

int64_t parse_count(const std::string& s, const char* what) {
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    usage_error(std::string(what) + " \"" + s + "\" is not a non-negative integer");
  return std::stoll(s);
}

std::string secs(SimTime t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", t.seconds());
  return buf;
}

struct Tool {
  BuiltNetwork b;
  int64_t ranks = 0;
  uint64_t bytes = 0;
  uint64_t key = 0;

  int rank_arg(const std::string& s, const char* what) const {
    int64_t r = parse_count(s, what);
    if (r >= ranks)
      usage_error(std::string(what) + " " + s + " is not a rank: there are " + std::to_string(ranks) + " ranks (0.." +
                  std::to_string(ranks - 1) + ")");
    return static_cast<int>(r);
  }
  net::Route route(int64_t src, int64_t dst) const {
    return b.network->route_keyed(b.core(src), b.core(dst), key);
  }
  SimTime latency(int64_t src, int64_t dst, uint64_t n) const {
    return b.network->message_latency(b.core(src), b.core(dst), n, key);
  }

  int cmd_links(int src, int dst) const {
    std::vector<net::Link> links;
    if (!b.network->route_links(b.core(src), b.core(dst), key, links))
      throw std::runtime_error("this network does not list the links of its routes (a twisted torus too large for "
                               "its exact route tables); -xsim-contention links refuses it too");
    std::printf("links rank %d (core %d) -> rank %d (core %d): %zu\n", src, b.core(src), dst, b.core(dst), links.size());
    for (const net::Link& l : links)
      std::printf("  link %llu  %s  %s\n", static_cast<unsigned long long>(l.id), format_time(l.latency).c_str(),
                  format_bandwidth(l.bandwidth_bps).c_str());
    return 0;
  }

  int cmd_route(int src, int dst) const {
    const int cs = b.core(src), cd = b.core(dst);
    std::printf("route rank %d (core %d) -> rank %d (core %d)%s\n", src, cs, dst, cd,
                key ? (" key " + std::to_string(key)).c_str() : "");
    const auto* h = dynamic_cast<const net::Hierarchy*>(b.network.get());
    const NetworkSpec& r = b.resolved;
    auto line = [&](size_t level, const char* what, const net::Route& x) {
      std::printf("  level %zu %-44s %-22s %3d hops  %12s  min bandwidth %s\n", level,
                  format_network_level(r.levels[level], false).c_str(), what, x.hops,
                  format_time(x.latency).c_str(), x.hops ? format_bandwidth(x.min_bandwidth_bps).c_str() : "-");
    };
    if (!h) {
      line(0, "", route(src, dst));
    } else {
      size_t d = 0, n = static_cast<size_t>(h->levels());
      auto idx = [&](int core, size_t i) {
        return core / h->cores_per_endpoint(static_cast<int>(i)) % h->level(static_cast<int>(i)).endpoints();
      };
      while (d < n && idx(cs, d) == idx(cd, d)) ++d;
      for (size_t i = 0; i < n; ++i) {
        const net::Network& L = h->level(static_cast<int>(i));
        if (i < d) {
          std::printf("  level %zu %-44s same endpoint %d\n", i, format_network_level(r.levels[i], false).c_str(),
                      idx(cs, i));
        } else if (i == d) {
          line(i, ("endpoint " + std::to_string(idx(cs, i)) + " -> " + std::to_string(idx(cd, i))).c_str(),
               L.route_keyed(idx(cs, i), idx(cd, i), key));
        } else {
          line(i, "source to exit", L.to_gateway(idx(cs, i)));
          line(i, "entry to destination", L.from_gateway(idx(cd, i)));
        }
      }
    }
    net::Route t = route(src, dst);
    std::printf("total: %d hops, link latency %s, min bandwidth %s\n", t.hops, format_time(t.latency).c_str(),
                t.hops ? format_bandwidth(t.min_bandwidth_bps).c_str() : "-");
    const net::Overheads& o = b.network->overheads();
    std::printf("latency of %s: %s s (%s, overheads %s + %s)\n", format_size(bytes).c_str(),
                secs(latency(src, dst, bytes)).c_str(), format_time(latency(src, dst, bytes)).c_str(),
                format_time(o.send).c_str(), format_time(o.recv).c_str());
    return 0;
  }

  int cmd_summary() const {
    std::printf("network:        %s\n", b.network->describe().c_str());
    std::printf("spec:           %s\n", format_network_inline(b.resolved).c_str());
    std::printf("cores:          %d (%" PRId64 " nodes x %" PRId64 " cores)\n", b.network->endpoints(), b.nodes,
                b.cores_per_node);
    std::printf("ranks:          %" PRId64 ", placement %s%s\n", ranks, b.resolved.placement.c_str(),
                b.resolved.placement == "file" ? (" " + b.resolved.placement_file).c_str() : "");
    std::printf("min latency:    %s s (%s)\n", secs(b.network->min_latency()).c_str(),
                format_time(b.network->min_latency()).c_str());
    if (ranks < 2) {
      std::printf("pairs:          none (fewer than 2 ranks)\n");
      return 0;
    }
    long double sum_hops = 0, sum_lat = 0;
    int max_hops = 0;
    SimTime max_lat = SimTime::zero();
    uint64_t pairs = 0;
    auto visit = [&](int64_t s, int64_t d) {
      net::Route r = route(s, d);
      SimTime l = latency(s, d, bytes);
      sum_hops += r.hops;
      sum_lat += static_cast<long double>(l.ps());
      max_hops = std::max(max_hops, r.hops);
      max_lat = max(max_lat, l);
      ++pairs;
    };
    const bool exact = ranks <= 4096;
    if (exact) {
      for (int64_t s = 0; s < ranks; ++s)
        for (int64_t d = 0; d < ranks; ++d)
          if (s != d) visit(s, d);
    } else {
      std::mt19937_64 rng(20240601);
      std::uniform_int_distribution<int64_t> pick(0, ranks - 1);
      while (pairs < 1'000'000) {
        int64_t s = pick(rng), d = pick(rng);
        if (s != d) visit(s, d);
      }
    }
    std::printf("pairs:          %" PRIu64 " %s\n", pairs,
                exact ? "(all ordered pairs of distinct ranks)" : "(sampled uniformly, fixed seed 20240601)");
    std::printf("diameter:       %d hops%s\n", max_hops, exact ? "" : " (largest seen in the sample)");
    std::printf("average hops:   %.6Lf\n", sum_hops / pairs);
    std::printf("average latency (%s): %.12Lg s\n", format_size(bytes).c_str(), sum_lat / pairs * 1e-12L);
    std::printf("max latency (%s):     %s s%s\n", format_size(bytes).c_str(), secs(max_lat).c_str(),
                exact ? "" : " (largest seen in the sample)");
    return 0;
  }

  // The matrix, `cells` x `cells`, each cell the mean latency (seconds) between two blocks of ranks.
  std::vector<double> matrix(int64_t limit, int64_t& cells, int64_t& block) const {
    block = (ranks + limit - 1) / limit;
    cells = (ranks + block - 1) / block;
    std::vector<double> m(static_cast<size_t>(cells * cells));
    auto members = [&](int64_t c) {
      int64_t lo = c * block, hi = std::min(ranks, lo + block);
      std::vector<int64_t> v;
      int64_t n = hi - lo, take = std::min<int64_t>(n, 8);
      for (int64_t i = 0; i < take; ++i) v.push_back(lo + i * n / take);
      return v;
    };
    for (int64_t i = 0; i < cells; ++i) {
      std::vector<int64_t> a = members(i);
      for (int64_t j = 0; j < cells; ++j) {
        std::vector<int64_t> c = members(j);
        long double s = 0;
        for (int64_t x : a)
          for (int64_t y : c) s += latency(x, y, bytes).seconds();
        m[static_cast<size_t>(i * cells + j)] = static_cast<double>(s / (a.size() * c.size()));
      }
    }
    return m;
  }

  std::string block_label(int64_t c, int64_t block) const {
    if (block == 1) return std::to_string(c);
    return std::to_string(c * block) + "-" + std::to_string(std::min(ranks, (c + 1) * block) - 1);
  }

  int cmd_csv(const std::string& file, int64_t limit) const {
    int64_t cells, block;
    std::vector<double> m = matrix(limit, cells, block);
    std::FILE* f = std::fopen(file.c_str(), "w");
    if (!f) usage_error("cannot write " + file + ": " + std::strerror(errno));
    std::fprintf(f, "%s", block == 1 ? "src\\dst" : "src_ranks\\dst_ranks");
    for (int64_t j = 0; j < cells; ++j) std::fprintf(f, ",%s", block_label(j, block).c_str());
    std::fprintf(f, "\n");
    for (int64_t i = 0; i < cells; ++i) {
      std::fprintf(f, "%s", block_label(i, block).c_str());
      for (int64_t j = 0; j < cells; ++j) std::fprintf(f, ",%.12g", m[static_cast<size_t>(i * cells + j)]);
      std::fprintf(f, "\n");
    }
    if (std::fclose(f) != 0) usage_error("cannot write " + file);
    std::printf("wrote %s: %" PRId64 " x %" PRId64 " %s, latency in seconds for %s messages\n", file.c_str(), cells,
                cells, block == 1 ? "ranks" : ("blocks of " + std::to_string(block) + " ranks").c_str(),
                format_size(bytes).c_str());
    return 0;
  }

  // Colour for t in [0, 1]: dark blue -> teal -> yellow.
  static std::string colour(double t) {
    static const double anchors[][3] = {{24, 28, 84}, {33, 102, 172}, {38, 166, 154}, {166, 217, 106}, {253, 240, 160}};
    t = std::clamp(t, 0.0, 1.0) * 4;
    int i = std::min(3, static_cast<int>(t));
    double f = t - i;
    char buf[16];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(anchors[i][0] + f * (anchors[i + 1][0] - anchors[i][0]) + 0.5),
                  static_cast<int>(anchors[i][1] + f * (anchors[i + 1][1] - anchors[i][1]) + 0.5),
                  static_cast<int>(anchors[i][2] + f * (anchors[i + 1][2] - anchors[i][2]) + 0.5));
    return buf;
  }

  int cmd_svg(const std::string& file, int64_t limit) const {
    int64_t cells, block;
    std::vector<double> m = matrix(limit, cells, block);
    double lo = *std::min_element(m.begin(), m.end()), hi = *std::max_element(m.begin(), m.end());
    const int px = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(24, 640 / cells)));
    const int side = static_cast<int>(cells) * px, left = 90, top = 60, legend_w = 22;
    const int width = left + side + 140, height = top + side + 70;
    std::FILE* f = std::fopen(file.c_str(), "w");
    if (!f) usage_error("cannot write " + file + ": " + std::strerror(errno));
    auto esc = [](std::string s) {
      std::string o;
      for (char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
      return o;
    };
    std::fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                    "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width, height);
    std::fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\">%s</text>\n", left,
                 esc("Latency of " + format_size(bytes) + " messages: " + format_network_inline(b.resolved, false) +
                     " (" + std::to_string(ranks) + " ranks, " + b.resolved.placement + ")").c_str());
    std::fprintf(f, "<g shape-rendering=\"crispEdges\">\n");
    const double span = hi > lo ? hi - lo : 1;
    for (int64_t i = 0; i < cells; ++i) {
      int64_t j = 0;
      while (j < cells) {  // merge runs of equal colour into one rectangle
        std::string c = colour((m[static_cast<size_t>(i * cells + j)] - lo) / span);
        int64_t k = j + 1;
        while (k < cells && colour((m[static_cast<size_t>(i * cells + k)] - lo) / span) == c) ++k;
        std::fprintf(f, "<rect x=\"%" PRId64 "\" y=\"%" PRId64 "\" width=\"%" PRId64 "\" height=\"%d\" fill=\"%s\"/>\n",
                     left + j * px, top + i * px, (k - j) * px, px, c.c_str());
        j = k;
      }
    }
    std::fprintf(f, "</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>\n", left,
                 top, side, side);
    // Axis ticks: about 5 per axis, at block boundaries.
    const int64_t step = std::max<int64_t>(1, (cells + 4) / 5);
    for (int64_t c = 0; c < cells; c += step) {
      double pos = c * px + px / 2.0;
      std::string label = std::to_string(c * block);
      std::fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", left + pos, top - 6, label.c_str());
      std::fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n", left - 6,
                   top + pos, label.c_str());
    }
    std::fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">destination rank%s</text>\n", left + side / 2,
                 top + side + 22, block > 1 ? (" (blocks of " + std::to_string(block) + ")").c_str() : "");
    std::fprintf(f, "<text transform=\"translate(%d,%d) rotate(-90)\" text-anchor=\"middle\">source rank</text>\n", 24,
                 top + side / 2);
    // Colour scale legend.
    const int lx = left + side + 30, lh = std::max(120, side);
    std::fprintf(f, "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n");
    for (int s = 0; s <= 8; ++s)
      std::fprintf(f, "<stop offset=\"%.3f\" stop-color=\"%s\"/>\n", s / 8.0, colour(s / 8.0).c_str());
    std::fprintf(f, "</linearGradient></defs>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#scale)\" "
                    "stroke=\"black\"/>\n", lx, top, legend_w, lh);
    for (int s = 0; s <= 4; ++s) {
      double v = lo + (hi - lo) * s / 4.0;
      std::fprintf(f, "<text x=\"%d\" y=\"%.1f\" dominant-baseline=\"middle\">%s</text>\n", lx + legend_w + 6,
                   top + lh - lh * s / 4.0, esc(format_time(SimTime::from_seconds(v))).c_str());
    }
    std::fprintf(f, "<text x=\"%d\" y=\"%d\">latency</text>\n</svg>\n", lx, top - 22);
    if (std::fclose(f) != 0) usage_error("cannot write " + file);
    std::printf("wrote %s: %" PRId64 " x %" PRId64 " cells, latency %s .. %s\n", file.c_str(), cells, cells,
                format_time(SimTime::from_seconds(lo)).c_str(), format_time(SimTime::from_seconds(hi)).c_str());
    return 0;
  }
};

}  // namespace

namespace {

struct Cli {
  std::string mn, np, config, placement, bytes = "0", key = "0";
  std::vector<std::string> cmd;  // the command and its arguments
  bool help = false;
};

Cli parse_cli(const std::vector<std::string>& args) {
  Cli c;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> std::string {
      std::string n = name;
      if (a.rfind(n + "=", 0) == 0) return a.substr(n.size() + 1);
      if (i + 1 >= args.size()) usage_error(n + " needs a value");
      return args[++i];
    };
    auto is = [&](const char* name) { return a == name || a.rfind(std::string(name) + "=", 0) == 0; };
    if (a == "-h" || a == "--help" || a == "help") {
      c.help = true;
      return c;
    } else if (is("--mn")) {
      c.mn = value("--mn");
    } else if (is("--np")) {
      c.np = value("--np");
    } else if (is("--config")) {
      c.config = value("--config");
    } else if (is("--placement")) {
      c.placement = value("--placement");
    } else if (is("--bytes")) {
      c.bytes = value("--bytes");
    } else if (is("--key")) {
      c.key = value("--key");
    } else if (c.cmd.empty() && a.size() > 1 && a[0] == '-') {
      usage_error("unknown option " + a);
    } else {
      c.cmd.push_back(a);
    }
  }
  return c;
}

// Builds the network through the simulator's own option parser, so that --mn and -xsim-mn read exactly the
// same strings. Returns false (having said why) on bad input.
bool setup(Tool& t, const Cli& c) {
  try {
    std::vector<std::string> xs = {"xsim-net"};
    if (!c.config.empty()) xs.push_back("-xsim-config=" + c.config);
    if (!c.mn.empty()) xs.push_back("-xsim-mn=" + c.mn);
    if (!c.np.empty()) xs.push_back("-xsim-np=" + c.np);
    if (!c.placement.empty()) xs.push_back("-xsim-placement=" + c.placement);
    std::vector<char*> av;
    for (auto& s : xs) av.push_back(s.data());
    av.push_back(nullptr);
    int ac = static_cast<int>(xs.size());
    Options o = parse_options(ac, av.data(), nullptr);
    t.b = build_network(o.network, o.np);
    t.ranks = o.np ? o.np : t.b.network->endpoints();
    t.bytes = parse_size(c.bytes);
    t.key = static_cast<uint64_t>(parse_count(c.key, "--key"));
  } catch (const std::exception& e) {
    std::string msg = e.what();
    for (size_t p; (p = msg.find("-xsim-mn")) != std::string::npos;) msg.replace(p, 8, "--mn");
    for (size_t p; (p = msg.find("-xsim-np")) != std::string::npos;) msg.replace(p, 8, "--np");
    std::fprintf(stderr, "xsim-net: %s\n", msg.c_str());
    return false;
  }
  return true;
}

// matrix --csv FILE | --svg FILE [--max N]
int matrix_command(Tool& t, const std::vector<std::string>& cmd) {
  std::string csv, svg;
  int64_t limit = 0;
  for (size_t i = 1; i < cmd.size(); ++i) {
    if ((cmd[i] == "--csv" || cmd[i] == "--svg" || cmd[i] == "--max") && i + 1 < cmd.size()) {
      if (cmd[i] == "--csv") csv = cmd[i + 1];
      if (cmd[i] == "--svg") svg = cmd[i + 1];
      if (cmd[i] == "--max") limit = parse_count(cmd[i + 1], "--max");
      ++i;
    } else {
      usage_error("usage: xsim-net [options] matrix --csv FILE | --svg FILE [--max N]");
    }
  }
  if (csv.empty() && svg.empty()) usage_error("matrix needs --csv FILE or --svg FILE");
  if (!csv.empty()) t.cmd_csv(csv, limit > 0 ? limit : 4096);
  if (!svg.empty()) t.cmd_svg(svg, limit > 0 ? limit : 256);
  return 0;
}

int run_command(Tool& t, const std::vector<std::string>& cmd) {
  const std::string& c = cmd[0];
  auto want = [&](size_t n, const char* form) {
    if (cmd.size() != n + 1) usage_error(std::string("usage: xsim-net [options] ") + form);
  };
  if (c == "hops") {
    want(2, "hops SRC DST");
    std::printf("%d\n", t.route(t.rank_arg(cmd[1], "SRC"), t.rank_arg(cmd[2], "DST")).hops);
    return 0;
  }
  if (c == "latency") {
    want(3, "latency SRC DST BYTES");
    uint64_t n = parse_size(cmd[3]);
    std::printf("%s\n", secs(t.latency(t.rank_arg(cmd[1], "SRC"), t.rank_arg(cmd[2], "DST"), n)).c_str());
    return 0;
  }
  if (c == "route") {
    want(2, "route SRC DST");
    return t.cmd_route(t.rank_arg(cmd[1], "SRC"), t.rank_arg(cmd[2], "DST"));
  }
  if (c == "links") {
    want(2, "links SRC DST");
    return t.cmd_links(t.rank_arg(cmd[1], "SRC"), t.rank_arg(cmd[2], "DST"));
  }
  if (c == "summary") {
    want(0, "summary");
    return t.cmd_summary();
  }
  if (c == "matrix") return matrix_command(t, cmd);
  usage_error("unknown command \"" + c + "\"; give hops, latency, route, links, summary or matrix");
}

}  // namespace

int main(int argc, char** argv) {
  const Cli cli = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
  if (cli.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (cli.cmd.empty()) usage_error("no command given (hops, latency, route, summary or matrix)");
  Tool t;
  if (!setup(t, cli)) return 2;
  try {
    return run_command(t, cli.cmd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xsim-net: %s\n", e.what());
    return 2;
  }
}
