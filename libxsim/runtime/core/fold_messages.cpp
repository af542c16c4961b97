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

Message* Message::create_folded(uint64_t bytes) {
  void* p = std::malloc(sizeof(Message) + kFoldedPayload);
  if (!p) throw std::runtime_error("out of memory: cannot allocate a folded message");
  Message* m = static_cast<Message*>(p);
  m->size_kind = bytes | kFoldedBit;  // kind kData
  return m;
}

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

// A full message of n packed bytes unpacked into a derived datatype while folding is on: a run of the type
// map that lies in folded memory gets only the bytes at the message's first and last kFoldEdge (as a
// contiguous folded buffer does: HPL's panel, a struct of matrix columns and its pivots last); the others
// are written whole.
void unpack_folding(const char* src, uint64_t n, const Request& q) {
  constexpr uint64_t e = Message::kFoldEdge;
  char* base = static_cast<char*>(q.buf);
  uint64_t pos = 0;
  int64_t extent = 0;
  const std::vector<native::Run>& runs = native::element_runs(q.type, &extent);  // kept on the datatype
  for (int64_t i = 0; i < q.count && pos < n; ++i) {
    for (const native::Run& r : runs) {
      if (pos >= n) break;
      const uint64_t len = std::min<uint64_t>(static_cast<uint64_t>(r.length), n - pos);
      char* dst = base + i * extent + r.offset;
      if (!fold::folded_range(dst, len)) {
        std::memcpy(dst, src + pos, len);
      } else {
        if (pos < e) std::memcpy(dst, src + pos, std::min(len, e - pos));
        const uint64_t lo = std::max(pos, n > e ? n - e : 0);
        if (lo < pos + len) std::memcpy(dst + (lo - pos), src + lo, pos + len - lo);
      }
      pos += len;
    }
  }
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
  std::vector<char> whole(n);  // a derived datatype: unpacked from the full layout, the middle zeros
  std::memcpy(whole.data(), src, head);
  if (tail) std::memcpy(whole.data() + n - tail, src + Message::kFoldedPayload - tail, tail);
  native::unpack(whole.data(), n, q.buf, q.count, q.type);
}

}  // namespace xsim
