// Memory folding on the message path (docs/real-programs.md "Memory folding"): folded messages, which carry
// only the first and last Message::kFoldEdge bytes of a send buffer inside a folded allocation, and the
// receive of large or folded data. Engine::send and Engine::match_recv (messages.cpp) call these out of
// line, so that the unfolded path keeps one comparison each. Layer: libxsim/runtime/core (xsim_core).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "engine_internal.hpp"
#include "fold_range.hpp"
#include "native/datatype.hpp"
#include "native/flatten.hpp"

namespace xsim {

// Memory folding (fold_range.hpp, docs/real-programs.md "Memory folding"): a contiguous send buffer inside a
// folded allocation travels as its first and last kFoldEdge bytes; the full size is the message's.
Message* make_folded_message(const void* buf, uint64_t bytes) {
  Message* m = Message::create_folded(bytes);
  const char* b = static_cast<const char*>(buf);
  std::memcpy(m->payload(), b, Message::kFoldEdge);
  std::memcpy(m->payload() + Message::kFoldEdge, b + bytes - Message::kFoldEdge, Message::kFoldEdge);
  ++fold::g_state.messages;
  return m;
}

// Calls f(at, len, pos) for each run of `count` elements of derived datatype `t` at `base` (char or const
// char), in type-map order, with pos the run's first byte in the packed stream; stops when f returns false.
template <class Byte, class F>
bool for_each_run(Byte* base, int count, MPI_Datatype t, F&& f) {
  int64_t extent = 0;
  const std::vector<native::Run>& runs = native::element_runs(t, &extent);  // kept on the datatype
  uint64_t pos = 0;
  for (int64_t i = 0; i < count; ++i)
    for (const native::Run& r : runs) {
      if (!f(base + i * extent + r.offset, static_cast<uint64_t>(r.length), pos)) return false;
      pos += static_cast<uint64_t>(r.length);
    }
  return true;
}

// A derived-datatype send of `bytes` packed bytes whose packed stream, outside its first and last
// kFoldEdge bytes, comes only from folded memory (HPL's panel: columns of a folded work array): its middle
// is meaningless, so it travels as a folded message (the stream's head and tail) and the middle is never
// read (reading it would fault in page after page of folded memory). Null when some middle byte comes from
// memory that is not folded: the caller packs the whole message.
Message* make_folded_typed_message(const void* buf, int count, MPI_Datatype type, uint64_t bytes) {
  constexpr uint64_t e = Message::kFoldEdge;
  const char* base = static_cast<const char*>(buf);
  const bool middle_folded = for_each_run(base, count, type, [&](const char* src, uint64_t len, uint64_t pos) {
    const uint64_t lo = std::max(pos, e), hi = std::min(pos + len, bytes - e);
    return lo >= hi || fold::folded_range(src + (lo - pos), hi - lo);
  });
  if (!middle_folded) return nullptr;
  Message* m = Message::create_folded(bytes);
  char* head = m->payload();
  char* tail = m->payload() + e;  // holds stream bytes [bytes - e, bytes)
  for_each_run(base, count, type, [&](const char* src, uint64_t len, uint64_t pos) {
    if (pos < e) std::memcpy(head + pos, src, std::min(len, e - pos));
    const uint64_t lo = std::max(pos, bytes - e);
    if (lo < pos + len) std::memcpy(tail + (lo - (bytes - e)), src + (lo - pos), pos + len - lo);
    return true;
  });
  ++fold::g_state.messages;
  return m;
}

// A folded message (head and, unless truncated to n < its size, tail of a packed stream) received into a
// derived datatype: the head and tail bytes are written where the type map puts them; of the middle, runs
// in folded memory are left alone and others are zeroed (the middle's contents were not kept).
void unpack_folded_edges(const Message& m, uint64_t n, const Request& q) {
  constexpr uint64_t e = Message::kFoldEdge;
  const char* head = m.payload();
  const char* tail = head + e;
  const uint64_t full = m.bytes(), tail_from = n == full ? full - e : n;  // no tail when truncated
  for_each_run(static_cast<char*>(q.buf), q.count, q.type, [&](char* dst, uint64_t len, uint64_t pos) {
    if (pos >= n) return false;
    len = std::min(len, n - pos);
    const uint64_t head_end = std::min(pos + len, e);
    if (pos < head_end) std::memcpy(dst, head + pos, head_end - pos);
    const uint64_t tail_lo = std::max(pos, tail_from);
    if (tail_lo < pos + len) std::memcpy(dst + (tail_lo - pos), tail + (tail_lo - (full - e)), pos + len - tail_lo);
    const uint64_t mid_lo = std::max(pos, e), mid_hi = std::min(pos + len, tail_from);
    if (mid_lo < mid_hi && !fold::folded_range(dst + (mid_lo - pos), mid_hi - mid_lo))
      std::memset(dst + (mid_lo - pos), 0, mid_hi - mid_lo);
    return true;
  });
}

// A full message of n packed bytes unpacked into a derived datatype while folding is on: a run of the type
// map that lies in folded memory gets only the bytes at the message's first and last kFoldEdge (as a
// contiguous folded buffer does: HPL's panel, a struct of matrix columns and its pivots last); the others
// are written whole.
void unpack_folding(const char* src, uint64_t n, const Request& q) {
  constexpr uint64_t e = Message::kFoldEdge;
  for_each_run(static_cast<char*>(q.buf), q.count, q.type, [&](char* dst, uint64_t len, uint64_t pos) {
    if (pos >= n) return false;
    len = std::min(len, n - pos);
    if (!fold::folded_range(dst, len)) {
      std::memcpy(dst, src + pos, len);
    } else {
      if (pos < e) std::memcpy(dst, src + pos, std::min(len, e - pos));
      const uint64_t lo = std::max(pos, n > e ? n - e : 0);
      if (lo < pos + len) std::memcpy(dst + (lo - pos), src + lo, pos + len - lo);
    }
    return true;
  });
}

// Receives n > kFoldedPayload bytes, or any part of a folded message: a folded message writes its head and
// (unless truncated) its tail; a full one into a folded contiguous buffer writes only its head and tail too
// (the rest of folded memory is not kept). Anything else is copied or unpacked whole.
void receive_bulk(const Request& q, Message* m, uint64_t n, bool contiguous) {
  constexpr uint64_t e = Message::kFoldEdge;
  const char* src = m->payload();
  if (!m->folded()) {
    if (!contiguous) return fold::g_state.len ? unpack_folding(src, n, q) : native::unpack(src, n, q.buf, q.count, q.type);
    if (!fold::folded_range(q.buf, n)) return (void)std::memcpy(q.buf, src, n);
    std::memcpy(q.buf, src, e);
    std::memcpy(static_cast<char*>(q.buf) + n - e, src + n - e, e);
    return;
  }
  const uint64_t full = m->bytes(), head = std::min(n, e), tail = n == full ? std::min(n - head, e) : 0;
  if (contiguous) {
    std::memcpy(q.buf, src, head);
    if (tail) std::memcpy(static_cast<char*>(q.buf) + n - tail, src + Message::kFoldedPayload - tail, tail);
    return;
  }
  if (!native::type_is_named(q.type)) return unpack_folded_edges(*m, n, q);
  std::vector<char> whole(n);  // a named padded type: unpacked from the full layout, the middle zeros
  std::memcpy(whole.data(), src, head);
  if (tail) std::memcpy(whole.data() + n - tail, src + Message::kFoldedPayload - tail, tail);
  native::unpack(whole.data(), n, q.buf, q.count, q.type);
}

}  // namespace xsim
