// The calibration's fit (calibrate_fit.hpp).
#include "calibrate_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace xsim::calibrate {
namespace {

// The band of `bytes` (factors 1 below the first band).
net::SizeBand band_of(const Model& m, uint64_t bytes) {
  net::SizeBand b;
  for (const net::SizeBand& x : m.bands)
    if (x.from <= bytes) b = x;
  return b;
}

// Latencies of one message crossed by a ping-pong one-way trip: 2 links for eager, 6 for rendezvous (a
// request to send and a clear-to-send, zero bytes each, before the data).
int links_of(const Model& m, uint64_t bytes) { return bytes > m.eager_limit ? 6 : 2; }

std::string ps_text(double seconds) {
  char b[48];
  std::snprintf(b, sizeof b, "%.0fps", std::max(0.0, std::round(seconds * 1e12)));
  return b;
}

}  // namespace

namespace {
Model fit_monotone(const Measurements& meas, double tolerance);  // fit() on the monotone envelope
}  // namespace

double predict_one_way(const Model& m, uint64_t bytes) {
  const net::SizeBand b = band_of(m, bytes);
  const int k = links_of(m, bytes);
  // As the simulator does (net::Network::banded_latency): the band's bandwidth in whole bits per second.
  const double bps = b.bandwidth == 1.0 ? m.bandwidth_bps : std::max(1.0, std::round(m.bandwidth_bps * b.bandwidth));
  const double transfer = 8.0 * static_cast<double>(bytes) / bps;
  // The request and the clear-to-send carry no data: no band applies to them (bands start above 0 bytes).
  return m.send_overhead + m.recv_overhead + (k - 2) * m.link_latency + 2 * m.link_latency * b.latency + transfer;
}

Model fit(const Measurements& meas, double tolerance) {
  const size_t n = meas.sizes.size();
  if (n < 2 || meas.one_way.size() != n)
    throw std::invalid_argument("the fit needs one-way times for at least two message sizes");
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && meas.sizes[i] <= meas.sizes[i - 1]) throw std::invalid_argument("message sizes must increase");
    if (!(meas.one_way[i] > 0)) throw std::invalid_argument("one-way times must be positive");
  }
  if (meas.send_overhead < 0 || meas.recv_overhead < 0 || meas.burst_interval < 0)
    throw std::invalid_argument("overheads must not be negative");
  // A larger message never takes less time: a size measured slower than a larger one was disturbed (another
  // process, a timer interrupt). The fit uses the monotone envelope, each time capped by the larger sizes'.
  Measurements smooth = meas;
  for (size_t i = n - 1; i-- > 0;) smooth.one_way[i] = std::min(smooth.one_way[i], smooth.one_way[i + 1]);
  return fit_monotone(smooth, tolerance);
}

namespace {
Model fit_monotone(const Measurements& meas, double tolerance) {
  const size_t n = meas.sizes.size();
  Model m;
  m.send_overhead = meas.send_overhead;
  m.recv_overhead = meas.recv_overhead;
  // Where the overheads overlap the transfer (shared memory: the time inside MPI_Send and MPI_Recv adds up to
  // more than a whole small message's trip), the model keeps them to half the smallest one-way time, in
  // their measured proportion: the rest is the network's latency.
  const double least = *std::min_element(meas.one_way.begin(), meas.one_way.end());
  if (m.send_overhead + m.recv_overhead > least / 2) {
    const double f = least / 2 / (m.send_overhead + m.recv_overhead);
    m.send_overhead *= f;
    m.recv_overhead *= f;
  }
  m.eager_limit = meas.eager_limit;
  // The sender of a burst is busy max(o_s, g) per message: a gap only where the burst is slower than o_s.
  m.gap = meas.burst_interval > 1.1 * meas.send_overhead ? meas.burst_interval : 0;
  // A ping-pong injects one message per round trip: a gap longer than the shortest round trip contradicts the
  // ping-pong's own times (a slow burst is the sender's CPU, not its NIC), so the gap is capped there.
  m.gap = std::min(m.gap, 2 * least);
  // y = T - o_s - o_r = k l + x c (x: bits, c = 1 / bandwidth), least squares on the relative error.
  double skk = 0, skx = 0, sxx = 0, sky = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double w = 1.0 / (meas.one_way[i] * meas.one_way[i]);
    const double k = links_of(m, meas.sizes[i]), x = 8.0 * static_cast<double>(meas.sizes[i]);
    const double y = meas.one_way[i] - m.send_overhead - m.recv_overhead;
    skk += w * k * k;
    skx += w * k * x;
    sxx += w * x * x;
    sky += w * k * y;
    sxy += w * x * y;
  }
  const double det = skk * sxx - skx * skx;
  double l = 0, c = 0;
  if (std::fabs(det) > 0) {
    l = (sky * sxx - skx * sxy) / det;
    c = (skk * sxy - skx * sky) / det;
  }
  if (!(c > 0)) {  // no usable slope: the largest message's time over its bits
    const double x = 8.0 * static_cast<double>(meas.sizes[n - 1]);
    c = std::max(1e-15, (meas.one_way[n - 1] - m.send_overhead - m.recv_overhead) / x);
  }
  // The latency is lowered to the least any latency-dominated size needs, so that every band's latency
  // factor is at least 1 (the network's smallest latency is the simulator's lookahead).
  for (size_t i = 0; i < n; ++i) {
    const double k = links_of(m, meas.sizes[i]), x = 8.0 * static_cast<double>(meas.sizes[i]);
    const double y = meas.one_way[i] - m.send_overhead - m.recv_overhead;
    const double need = (y - x * c) / k;
    if (k * l >= x * c && need > 0 && need < l) l = need;
  }
  m.link_latency = std::max(l, 0.5e-9);
  m.bandwidth_bps = 1.0 / c;
  // From here on the model holds what the file can state: times in whole picoseconds, the bandwidth in
  // whole bits per second. The bands are fitted to those values and written with every digit, so the file
  // reproduces the printed model at every size, whatever was measured.
  auto whole_ps = [](double s) { return std::round(s * 1e12) * 1e-12; };  // as SimTime::seconds()
  m.link_latency = whole_ps(m.link_latency);
  m.send_overhead = whole_ps(m.send_overhead);
  m.recv_overhead = whole_ps(m.recv_overhead);
  m.gap = whole_ps(m.gap);
  m.bandwidth_bps = std::max(1.0, std::round(m.bandwidth_bps));
  // Bands, from the smallest size up: a size the model (with the bands so far) misses by more than the
  // tolerance starts a band whose factors make the line meet it; the band then covers the larger sizes until
  // one is missed again.
  for (size_t i = 0; i < n; ++i) {
    const uint64_t s = meas.sizes[i];
    const double t = meas.one_way[i];
    if (std::fabs(t / predict_one_way(m, s) - 1) <= tolerance) continue;
    net::SizeBand b{s, 1.0, 1.0};
    const double fixed = m.send_overhead + m.recv_overhead + (links_of(m, s) - 2) * m.link_latency;
    const double lat = 2 * m.link_latency, tx = 8.0 * static_cast<double>(s) / m.bandwidth_bps;
    const double target = t - fixed;
    if (lat >= tx && (target - tx) / lat >= 1) {
      b.latency = (target - tx) / lat;
    } else if (target - lat > 0 && tx > 0) {
      b.bandwidth = tx / (target - lat);
    } else if ((target - tx) / lat >= 1) {
      b.latency = (target - tx) / lat;
    }
    b.latency = std::clamp(b.latency, 1.0, 1e6);
    b.bandwidth = std::clamp(b.bandwidth, 1e-6, 1e6);
    if (m.bands.empty() && b.latency == 1.0 && b.bandwidth == 1.0) continue;  // nothing the factors can fix
    m.bands.push_back(b);
  }
  return m;
}
}  // namespace

std::string to_toml(const Model& m, const Measurements& meas) {
  std::string s;
  char line[256];
  s += "# xsim network calibration, written by xsim-calibrate";
  if (!meas.host.empty()) s += " on " + meas.host;
  s += " (" + std::to_string(meas.processes) + " native MPI processes).\n";
  s += "# Load it with -xsim-config FILE. The model (docs/network-model.md, docs/validation.md): loggp on a\n";
  s += "# star, every rank its own node; a ping-pong message of s bytes takes, one way,\n";
  s += "#   eager (s <= eager):  send_overhead + 2 x latency + 8 s / bandwidth + recv_overhead\n";
  s += "#   rendezvous:          the same + 4 x latency (request to send, clear to send)\n";
  s += "# with the [[network.band]] factors for the sizes where one line does not fit.\n#\n";
  s += "# measured one-way time against this model:\n";
  s += "#        bytes   measured_us      model_us    error\n";
  for (size_t i = 0; i < meas.sizes.size(); ++i) {
    const double p = predict_one_way(m, meas.sizes[i]);
    std::snprintf(line, sizeof line, "# %12llu  %12.3f  %12.3f  %+6.1f%%\n", static_cast<unsigned long long>(meas.sizes[i]),
                  meas.one_way[i] * 1e6, p * 1e6, (p / meas.one_way[i] - 1) * 100);
    s += line;
  }
  std::snprintf(line, sizeof line,
                "# measured: MPI_Send of 8 B %.3f us, MPI_Recv of 8 B that had arrived %.3f us, burst of 8-B "
                "MPI_Isends %.3f us per message\n",
                meas.send_overhead * 1e6, meas.recv_overhead * 1e6, meas.burst_interval * 1e6);
  s += line;
  s += "\n[model]\nname = \"loggp\"\n";
  std::snprintf(line, sizeof line, "eager = %llu                # bytes: MPI_Send returned before a late receive up to this size\n",
                static_cast<unsigned long long>(m.eager_limit));
  s += line;
  s += "contention = \"endpoint\"\n";
  s += "\n[network]\ntopology = \"star\"          # sized from the number of ranks: each rank its own node\n";
  s += "latency = \"" + ps_text(m.link_latency) + "\"    # per link; a message crosses two\n";
  std::snprintf(line, sizeof line, "bandwidth = \"%.0fbps\"    # %.3f GB/s\n", std::round(m.bandwidth_bps),
                m.bandwidth_bps / 8e9);
  s += line;
  s += "send_overhead = \"" + ps_text(m.send_overhead) + "\"\n";
  s += "recv_overhead = \"" + ps_text(m.recv_overhead) + "\"\n";
  s += "gap = \"" + ps_text(m.gap) + "\"\n";
  for (const net::SizeBand& b : m.bands) {
    std::snprintf(line, sizeof line, "\n[[network.band]]            # messages from %llu bytes\nfrom = %llu\n"
                  "latency_factor = %.17g\nbandwidth_factor = %.17g\n",
                  static_cast<unsigned long long>(b.from), static_cast<unsigned long long>(b.from), b.latency,
                  b.bandwidth);
    s += line;
  }
  return s;
}

}  // namespace xsim::calibrate
