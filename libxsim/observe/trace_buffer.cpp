#include "observe/trace_buffer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace xsim::obs {

namespace {
constexpr size_t kStaging = 4 << 20;  // spill writes are batched into pieces of this size

[[noreturn]] void io_error(const std::string& what, const std::string& path) {
  throw std::runtime_error("trace spill file " + path + ": " + what + ": " + std::strerror(errno));
}
}  // namespace

TraceBuffer::TraceBuffer(size_t ranks, uint64_t limit_bytes, std::string spill_path)
    : per_rank_(ranks), blocks_(ranks), spilled_count_(ranks, 0),
      limit_events_(std::max<uint64_t>(1, limit_bytes / sizeof(TraceEvent))), path_(std::move(spill_path)) {}

TraceBuffer::~TraceBuffer() {
  if (fd_ >= 0) close(fd_);
}

void TraceBuffer::write_out(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t k = pwrite(fd_, p, n, static_cast<off_t>(file_size_));
    if (k < 0) {
      if (errno == EINTR) continue;
      io_error("write failed", path_);
    }
    p += k;
    n -= static_cast<size_t>(k);
    file_size_ += static_cast<uint64_t>(k);
  }
}

void TraceBuffer::spill() {
  if (held_ == 0) return;
  if (fd_ < 0) {
    fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) io_error("cannot create it", path_);
    unlink(path_.c_str());  // lives as long as the descriptor: nothing is left behind
  }
  uint64_t at = file_size_ + staging_.size();
  for (size_t r = 0; r < per_rank_.size(); ++r) {
    std::vector<TraceEvent>& v = per_rank_[r];
    if (v.empty()) continue;
    const size_t bytes = v.size() * sizeof(TraceEvent);
    blocks_[r].push_back({at, v.size()});
    at += bytes;
    spilled_count_[r] += v.size();
    total_spilled_ += v.size();
    if (staging_.size() + bytes > kStaging && !staging_.empty()) {
      write_out(staging_.data(), staging_.size());
      staging_.clear();
    }
    if (bytes >= kStaging) {
      write_out(v.data(), bytes);
    } else {
      const char* p = reinterpret_cast<const char*>(v.data());
      staging_.insert(staging_.end(), p, p + bytes);
    }
    std::vector<TraceEvent>().swap(v);  // give the memory back
  }
  if (!staging_.empty()) write_out(staging_.data(), staging_.size());
  staging_.clear();
  held_ = 0;
  ++spills_;
}

void TraceBuffer::read(size_t rank, std::vector<TraceEvent>& out) const {
  out.clear();
  out.reserve(count(rank));
  for (const Block& b : blocks_[rank]) {
    size_t at = out.size();
    out.resize(at + b.count);
    char* p = reinterpret_cast<char*>(out.data() + at);
    size_t n = b.count * sizeof(TraceEvent);
    uint64_t off = b.offset;
    while (n > 0) {
      ssize_t k = pread(fd_, p, n, static_cast<off_t>(off));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) io_error("read failed", path_);
      p += k;
      n -= static_cast<size_t>(k);
      off += static_cast<uint64_t>(k);
    }
  }
  out.insert(out.end(), per_rank_[rank].begin(), per_rank_[rank].end());
}

}  // namespace xsim::obs
