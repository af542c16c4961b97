// Trace events as the runtime records them: one compact, fixed-size record per MPI call entry/exit and per
// message sent or received, in the virtual time of the rank that records it (picoseconds). Records of one
// rank are appended in the order they happen, so their times never decrease.
// Layer: libxsim/observe (pure data; no MPI, no engine).
#pragma once
#include <cstdint>

namespace xsim::obs {

enum class EventKind : uint8_t { Enter = 1, Leave = 2, Send = 3, Recv = 4 };

constexpr uint64_t kNoContext = ~uint64_t{0};

struct TraceEvent {
  int64_t time;     // virtual time, ps
  uint64_t value;   // Enter/Leave: region (index in the recording process's region table); Send/Recv: bytes
  uint64_t ctx;     // Send/Recv: message context; Enter: point-to-point context of the call's communicator
                    // (kNoContext when the call names none)
  uint64_t seq;     // Send/Recv: the sender's send sequence number (the message's identity with its sender)
  int32_t peer;     // Send: destination world rank; Recv: source world rank
  int32_t tag;      // Send/Recv: the message tag
  EventKind kind;
  uint8_t pad[7];
};
static_assert(sizeof(TraceEvent) == 48, "trace events are 48 bytes");

inline TraceEvent enter_event(int64_t t, uint32_t region, uint64_t ctx) {
  return TraceEvent{t, region, ctx, 0, -1, 0, EventKind::Enter, {}};
}
inline TraceEvent leave_event(int64_t t, uint32_t region) {
  return TraceEvent{t, region, kNoContext, 0, -1, 0, EventKind::Leave, {}};
}
inline TraceEvent message_event(EventKind k, int64_t t, int32_t peer, int32_t tag, uint64_t ctx, uint64_t bytes,
                                uint64_t seq) {
  return TraceEvent{t, bytes, ctx, seq, peer, tag, k, {}};
}

}  // namespace xsim::obs
