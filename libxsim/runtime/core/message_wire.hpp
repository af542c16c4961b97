// The wire format of simulated messages between native processes: what one window's native message carries
// after native::Exchange's header (native/exchange.hpp frames it, this file fills and reads it). Each
// simulated message travels as its Message header followed by its payload (a folded message's: its head and
// tail), back to back; the receiver makes a fresh Message of the same size for each. Both processes run
// the same build, so the header's layout needs no conversion. Layer: libxsim/runtime/core (xsim_core):
// Engine::route_remote packs, Engine::run unpacks.
#pragma once
#include <cstring>

#include "native/exchange.hpp"
#include "records.hpp"

namespace xsim::wire {

// Appends `m` (header and payload) to the outbox for native process `proc`.
inline void pack(native::Exchange& x, int proc, const Message& m) {
  const size_t n = sizeof(Message) + m.stored_bytes();  // a folded message: its head and tail only
  std::memcpy(x.append(proc, n), &m, n);
}

// Calls `take(Message*)` for each message packed in `n` bytes at `data`, in packing order; each is a new
// Message (Message::create) that `take` owns.
template <class Take>
void unpack(const char* data, size_t n, Take&& take) {
  for (size_t at = 0; at < n;) {
    Message header;
    std::memcpy(static_cast<void*>(&header), data + at, sizeof header);
    const uint64_t bytes = header.stored_bytes();
    Message* m = header.folded() ? Message::create_folded(header.bytes()) : Message::create(bytes);
    std::memcpy(static_cast<void*>(m), data + at, sizeof(Message) + bytes);
    at += sizeof(Message) + bytes;
    take(m);
  }
}

}  // namespace xsim::wire
