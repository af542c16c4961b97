// TraceBuffer: the trace events of one native process's virtual ranks, kept per rank in memory until they
// exceed a limit, then moved to a spill file (one block per rank and spill) so that long traced runs need
// bounded memory. Reading a rank back yields its events in recording order: spilled blocks first, in spill
// order, then what is still in memory. The spill file is unlinked as soon as it is created, so nothing is
// left behind if the process dies. Layer: libxsim/observe (pure; POSIX file I/O only). Not thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "observe/events.hpp"

namespace xsim::obs {

class TraceBuffer {
 public:
  // `ranks`: local ranks (indices 0..ranks-1); `limit_bytes`: memory for events before a spill (at least one
  // event); `spill_path`: where the spill file goes (created on the first spill).
  TraceBuffer(size_t ranks, uint64_t limit_bytes, std::string spill_path);
  ~TraceBuffer();
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;

  void add(size_t rank, const TraceEvent& e) {
    per_rank_[rank].push_back(e);
    if (++held_ >= limit_events_) spill();
  }
  size_t ranks() const { return per_rank_.size(); }
  // Events recorded for `rank` (in memory and spilled).
  uint64_t count(size_t rank) const { return spilled_count_[rank] + per_rank_[rank].size(); }
  uint64_t total() const { return total_spilled_ + held_; }
  uint64_t spills() const { return spills_; }
  uint64_t spilled_bytes() const { return file_size_; }
  // Replaces `out` with every event of `rank`, in recording order.
  void read(size_t rank, std::vector<TraceEvent>& out) const;
  // Moves everything held in memory to the spill file now.
  void spill();

 private:
  struct Block {
    uint64_t offset;  // bytes into the spill file
    uint64_t count;   // events
  };
  void write_out(const void* data, size_t n);
  std::vector<std::vector<TraceEvent>> per_rank_;
  std::vector<std::vector<Block>> blocks_;
  std::vector<uint64_t> spilled_count_;
  uint64_t limit_events_;
  uint64_t held_ = 0, total_spilled_ = 0, spills_ = 0;
  std::string path_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  std::vector<char> staging_;
};

}  // namespace xsim::obs
