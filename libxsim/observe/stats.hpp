// Statistics of a run: per-rank and per-MPI-function counts, bytes and virtual times, and the communication
// matrix, with their file formats (CSV and JSON, docs/observability.md). The runtime accumulates them while
// ranks run and merges the native processes' parts at the end; this header holds the pure parts: the
// records, their merge and serialisation, the matrix layout and the formatting.
// Layer: libxsim/observe (pure; no MPI, no engine).
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace xsim::obs {

// "S.FFFFFFFFFFFF": picoseconds as seconds, exactly (no rounding), e.g. 200320000 -> "0.000200320000".
std::string seconds_text(int64_t ps);
// The text as a JSON string literal, quotes included.
std::string json_string(const std::string& s);

// The part of a blocked interval [from, to] that was spent waiting for the peer to send: a rank blocked
// from `from` until a message sent at `sent_at` arrived at `to` was waiting until `sent_at` and watching
// the message travel afterwards (communication). Clamped to [0, to - from].
inline int64_t wait_part(int64_t from, int64_t to, int64_t sent_at) {
  if (sent_at <= from) return 0;
  if (sent_at >= to) return to - from;
  return sent_at - from;
}

// One MPI function over all ranks that called it.
struct FunctionStats {
  uint64_t calls = 0;
  uint64_t ranks = 0;               // ranks that called it at least once
  int64_t time_ps = 0;              // virtual time inside the calls
  int64_t wait_ps = 0;              // of which waiting for peers (the rest is communication)
  int64_t min_ps = std::numeric_limits<int64_t>::max();
  int64_t max_ps = 0;
  uint64_t messages_sent = 0, bytes_sent = 0, messages_received = 0, bytes_received = 0;

  void add_call(int64_t time, int64_t wait, uint64_t msgs_sent, uint64_t b_sent, uint64_t msgs_recv, uint64_t b_recv);
  void merge(const FunctionStats& o);
  bool operator==(const FunctionStats&) const = default;
};
using FunctionTable = std::map<std::string, FunctionStats>;

// A table as text (one line per function) and back; merge_serialized adds a serialised table into `into`.
std::string serialize(const FunctionTable& t);
void merge_serialized(FunctionTable& into, const std::string& text);

// One virtual rank.
struct RankRow {
  int64_t rank = 0;
  int64_t node = 0;                 // simulated node holding the rank's core
  int64_t finish_ps = 0;            // virtual time the rank ended
  int64_t compute_ps = 0;           // processor model and xsim_compute
  int64_t mpi_ps = 0;               // inside MPI calls = communication + wait
  int64_t wait_ps = 0;
  uint64_t calls = 0;
  uint64_t messages_sent = 0, bytes_sent = 0, messages_received = 0, bytes_received = 0;
};

// Whole-run sums written with the tables.
struct RunTotals {
  int64_t ranks = 0;
  int64_t simulated_ps = 0;         // largest finish time
  uint64_t calls = 0, messages = 0, bytes = 0;
  int64_t compute_ps = 0, mpi_ps = 0, wait_ps = 0;
  void add(const RankRow& r);
  void merge(const RunTotals& o);
};

std::string ranks_csv_header();
void append_rank_csv(std::string& out, const RankRow& r);
// JSON: ranks_json_head, then the rows (each appended with first = true for the very first), then the tail.
std::string ranks_json_head();
void append_rank_json(std::string& out, const RankRow& r, bool first);
std::string ranks_json_tail(const RunTotals& t);

std::string functions_csv(const FunctionTable& t);
std::string functions_json(const FunctionTable& t, const RunTotals& totals);

// Which cells the communication matrix has: ranks (up to `limit` ranks), simulated nodes (when there are
// fewer nodes than ranks and at most `limit`), or else contiguous blocks of ranks (at most `limit`).
struct MatrixLayout {
  enum class Unit { rank, node, block };
  Unit unit = Unit::rank;
  int64_t cells = 0;
  int64_t ranks = 0;
  int64_t block = 1;                // ranks per cell (Unit::block)

  static MatrixLayout choose(int64_t ranks, int64_t nodes, int64_t limit);
  int64_t cell(int64_t rank, int64_t node) const {
    switch (unit) {
      case Unit::rank: return rank;
      case Unit::node: return node;
      default: return rank / block;
    }
  }
  const char* unit_name() const;
  std::string label(int64_t cell) const;
};

// Row = sender's cell, column = receiver's cell; `bytes` and `messages` hold cells x cells values.
std::string matrix_csv(const MatrixLayout& m, const uint64_t* bytes);
std::string matrix_json(const MatrixLayout& m, const uint64_t* bytes, const uint64_t* messages);

}  // namespace xsim::obs
