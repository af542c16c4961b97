#include "observe/stats.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace xsim::obs {

std::string seconds_text(int64_t ps) {
  char buf[48];
  const char* sign = ps < 0 ? "-" : "";
  uint64_t a = ps < 0 ? static_cast<uint64_t>(-(ps + 1)) + 1 : static_cast<uint64_t>(ps);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%012" PRIu64, sign, a / 1000000000000ull, a % 1000000000000ull);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

void FunctionStats::add_call(int64_t time, int64_t wait, uint64_t msgs_sent, uint64_t b_sent, uint64_t msgs_recv,
                             uint64_t b_recv) {
  ++calls;
  time_ps += time;
  wait_ps += wait;
  min_ps = std::min(min_ps, time);
  max_ps = std::max(max_ps, time);
  messages_sent += msgs_sent;
  bytes_sent += b_sent;
  messages_received += msgs_recv;
  bytes_received += b_recv;
}

void FunctionStats::merge(const FunctionStats& o) {
  calls += o.calls;
  ranks += o.ranks;
  time_ps += o.time_ps;
  wait_ps += o.wait_ps;
  min_ps = std::min(min_ps, o.min_ps);
  max_ps = std::max(max_ps, o.max_ps);
  messages_sent += o.messages_sent;
  bytes_sent += o.bytes_sent;
  messages_received += o.messages_received;
  bytes_received += o.bytes_received;
}

std::string serialize(const FunctionTable& t) {
  std::string s;
  char buf[400];
  for (const auto& [name, f] : t) {
    std::snprintf(buf, sizeof buf,
                  "\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRIu64
                  "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
                  f.calls, f.ranks, f.time_ps, f.wait_ps, f.min_ps, f.max_ps, f.messages_sent, f.bytes_sent,
                  f.messages_received, f.bytes_received);
    s += name;
    s += buf;
  }
  return s;
}

void merge_serialized(FunctionTable& into, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    size_t tab = line.find('\t');
    if (tab == std::string::npos || tab == 0) throw std::runtime_error("malformed function statistics: " + line);
    FunctionStats f;
    int n = std::sscanf(line.c_str() + tab,
                        "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNd64 "\t%" SCNd64 "\t%" SCNd64 "\t%" SCNd64 "\t%" SCNu64
                        "\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64,
                        &f.calls, &f.ranks, &f.time_ps, &f.wait_ps, &f.min_ps, &f.max_ps, &f.messages_sent,
                        &f.bytes_sent, &f.messages_received, &f.bytes_received);
    if (n != 10) throw std::runtime_error("malformed function statistics: " + line);
    into[line.substr(0, tab)].merge(f);
  }
}

void RunTotals::add(const RankRow& r) {
  merge(RunTotals{1, r.finish_ps, r.calls, r.messages_sent, r.bytes_sent, r.compute_ps, r.mpi_ps, r.wait_ps});
}

void RunTotals::merge(const RunTotals& o) {
  ranks += o.ranks;
  simulated_ps = std::max(simulated_ps, o.simulated_ps);
  calls += o.calls;
  messages += o.messages;
  bytes += o.bytes;
  compute_ps += o.compute_ps;
  mpi_ps += o.mpi_ps;
  wait_ps += o.wait_ps;
}

std::string ranks_csv_header() {
  return "rank,node,finish_s,compute_s,communication_s,wait_s,mpi_s,calls,messages_sent,bytes_sent,"
         "messages_received,bytes_received\n";
}

void append_rank_csv(std::string& out, const RankRow& r) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%" PRId64 ",%" PRId64 ",", r.rank, r.node);
  out += buf;
  out += seconds_text(r.finish_ps) + "," + seconds_text(r.compute_ps) + "," + seconds_text(r.mpi_ps - r.wait_ps) +
         "," + seconds_text(r.wait_ps) + "," + seconds_text(r.mpi_ps);
  std::snprintf(buf, sizeof buf, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", r.calls,
                r.messages_sent, r.bytes_sent, r.messages_received, r.bytes_received);
  out += buf;
}

std::string ranks_json_head() { return "{\"format\": \"xsim-stats-ranks\", \"version\": 1, \"ranks\": [\n"; }

void append_rank_json(std::string& out, const RankRow& r, bool first) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "%s{\"rank\": %" PRId64 ", \"node\": %" PRId64
                ", \"finish_s\": %s, \"compute_s\": %s, \"communication_s\": %s, \"wait_s\": %s, \"mpi_s\": %s"
                ", \"calls\": %" PRIu64 ", \"messages_sent\": %" PRIu64 ", \"bytes_sent\": %" PRIu64
                ", \"messages_received\": %" PRIu64 ", \"bytes_received\": %" PRIu64 "}",
                first ? "  " : ",\n  ", r.rank, r.node, seconds_text(r.finish_ps).c_str(),
                seconds_text(r.compute_ps).c_str(), seconds_text(r.mpi_ps - r.wait_ps).c_str(),
                seconds_text(r.wait_ps).c_str(), seconds_text(r.mpi_ps).c_str(), r.calls, r.messages_sent,
                r.bytes_sent, r.messages_received, r.bytes_received);
  out += buf;
}

namespace {
std::string totals_json(const RunTotals& t) {
  char buf[600];
  std::snprintf(buf, sizeof buf,
                "{\"ranks\": %" PRId64 ", \"simulated_time_s\": %s, \"calls\": %" PRIu64 ", \"messages\": %" PRIu64
                ", \"bytes\": %" PRIu64 ", \"compute_s\": %s, \"communication_s\": %s, \"wait_s\": %s, \"mpi_s\": %s}",
                t.ranks, seconds_text(t.simulated_ps).c_str(), t.calls, t.messages, t.bytes,
                seconds_text(t.compute_ps).c_str(), seconds_text(t.mpi_ps - t.wait_ps).c_str(),
                seconds_text(t.wait_ps).c_str(), seconds_text(t.mpi_ps).c_str());
  return buf;
}
}  // namespace

std::string ranks_json_tail(const RunTotals& t) { return "\n],\n\"totals\": " + totals_json(t) + "}\n"; }

std::string functions_csv(const FunctionTable& t) {
  std::string s =
      "function,calls,ranks,time_s,communication_s,wait_s,min_s,mean_s,max_s,messages_sent,bytes_sent,"
      "messages_received,bytes_received\n";
  char buf[200];
  for (const auto& [name, f] : t) {
    int64_t mean = f.calls ? f.time_ps / static_cast<int64_t>(f.calls) : 0;
    std::snprintf(buf, sizeof buf, ",%" PRIu64 ",%" PRIu64 ",", f.calls, f.ranks);
    s += name + buf + seconds_text(f.time_ps) + "," + seconds_text(f.time_ps - f.wait_ps) + "," +
         seconds_text(f.wait_ps) + "," + seconds_text(f.calls ? f.min_ps : 0) + "," + seconds_text(mean) + "," +
         seconds_text(f.max_ps);
    std::snprintf(buf, sizeof buf, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", f.messages_sent, f.bytes_sent,
                  f.messages_received, f.bytes_received);
    s += buf;
  }
  return s;
}

std::string functions_json(const FunctionTable& t, const RunTotals& totals) {
  std::string s = "{\"format\": \"xsim-stats-functions\", \"version\": 1, \"functions\": [\n";
  bool first = true;
  char buf[600];
  for (const auto& [name, f] : t) {
    int64_t mean = f.calls ? f.time_ps / static_cast<int64_t>(f.calls) : 0;
    std::snprintf(buf, sizeof buf,
                  ", \"calls\": %" PRIu64 ", \"ranks\": %" PRIu64
                  ", \"time_s\": %s, \"communication_s\": %s, \"wait_s\": %s, \"min_s\": %s, \"mean_s\": %s"
                  ", \"max_s\": %s, \"messages_sent\": %" PRIu64 ", \"bytes_sent\": %" PRIu64
                  ", \"messages_received\": %" PRIu64 ", \"bytes_received\": %" PRIu64 "}",
                  f.calls, f.ranks, seconds_text(f.time_ps).c_str(), seconds_text(f.time_ps - f.wait_ps).c_str(),
                  seconds_text(f.wait_ps).c_str(), seconds_text(f.calls ? f.min_ps : 0).c_str(),
                  seconds_text(mean).c_str(), seconds_text(f.max_ps).c_str(), f.messages_sent, f.bytes_sent,
                  f.messages_received, f.bytes_received);
    s += (first ? "  {\"name\": " : ",\n  {\"name\": ") + json_string(name) + buf;
    first = false;
  }
  s += "\n],\n\"totals\": " + totals_json(totals) + "}\n";
  return s;
}

MatrixLayout MatrixLayout::choose(int64_t ranks, int64_t nodes, int64_t limit) {
  MatrixLayout m;
  m.ranks = ranks;
  limit = std::max<int64_t>(1, limit);
  if (ranks <= limit) {
    m.unit = Unit::rank;
    m.cells = ranks;
  } else if (nodes < ranks && nodes <= limit) {
    m.unit = Unit::node;
    m.cells = nodes;
  } else {
    m.unit = Unit::block;
    m.block = (ranks + limit - 1) / limit;
    m.cells = (ranks + m.block - 1) / m.block;
  }
  return m;
}

const char* MatrixLayout::unit_name() const {
  switch (unit) {
    case Unit::rank: return "rank";
    case Unit::node: return "node";
    default: return "ranks";
  }
}

std::string MatrixLayout::label(int64_t c) const {
  if (unit != Unit::block) return std::to_string(c);
  int64_t lo = c * block, hi = std::min(ranks, lo + block) - 1;
  return std::to_string(lo) + "-" + std::to_string(hi);
}

std::string matrix_csv(const MatrixLayout& m, const uint64_t* bytes) {
  std::string s = m.unit_name();
  for (int64_t c = 0; c < m.cells; ++c) s += "," + m.label(c);
  s += "\n";
  for (int64_t r = 0; r < m.cells; ++r) {
    s += m.label(r);
    for (int64_t c = 0; c < m.cells; ++c) s += "," + std::to_string(bytes[r * m.cells + c]);
    s += "\n";
  }
  return s;
}

std::string matrix_json(const MatrixLayout& m, const uint64_t* bytes, const uint64_t* messages) {
  std::string s = "{\"format\": \"xsim-stats-matrix\", \"version\": 1, \"unit\": " + json_string(m.unit_name()) +
                  ", \"cells\": " + std::to_string(m.cells) + ",\n\"labels\": [";
  for (int64_t c = 0; c < m.cells; ++c) s += (c ? ", " : "") + json_string(m.label(c));
  auto rows = [&](const char* key, const uint64_t* v) {
    s += "],\n" + json_string(key) + ": [\n";
    for (int64_t r = 0; r < m.cells; ++r) {
      s += r ? ",\n  [" : "  [";
      for (int64_t c = 0; c < m.cells; ++c) s += (c ? "," : "") + std::to_string(v[r * m.cells + c]);
      s += "]";
    }
    s += "\n";
  };
  rows("bytes", bytes);
  rows("messages", messages);
  s += "]}\n";
  return s;
}

}  // namespace xsim::obs
