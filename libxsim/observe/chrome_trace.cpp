#include "observe/chrome_trace.hpp"

#include <charconv>
#include <cinttypes>
#include <cstdio>

#include "observe/mpi_calls.hpp"
#include "observe/stats.hpp"

namespace xsim::obs {

namespace {

// Appenders without printf: the JSON of a big trace is written at a few hundred MB/s.
void put(std::string& o, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  o.append(buf, r.ptr);
}
void put(std::string& o, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  o.append(buf, r.ptr);
}
void put(std::string& o, int v) { put(o, static_cast<int64_t>(v)); }
// Picoseconds as microseconds with six decimals, exactly.
void put_micros(std::string& o, int64_t ps) {
  uint64_t a = static_cast<uint64_t>(ps);
  if (ps < 0) {
    o += '-';
    a = static_cast<uint64_t>(-(ps + 1)) + 1;
  }
  put(o, a / 1000000);
  char frac[7];
  uint64_t f = a % 1000000;
  for (int i = 5; i >= 0; --i, f /= 10) frac[i] = static_cast<char>('0' + f % 10);
  o += '.';
  o.append(frac, 6);
}

}  // namespace

std::string micros_text(int64_t ps) {
  std::string s;
  put_micros(s, ps);
  return s;
}

std::string chrome_head(const std::string& title) {
  return "{\"traceEvents\": [\n{\"name\": \"trace_title\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": " +
         json_string(title) + "}}";
}

std::string chrome_tail(const std::string& other) {
  return "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": {" + other + "}}\n";
}

void chrome_rank_metadata(std::string& out, int64_t rank, int64_t node) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                ",\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %" PRId64 ", \"args\": {\"name\": \"node %" PRId64
                "\"}},\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
                ", \"args\": {\"name\": \"rank %" PRId64 "\"}}",
                node, node, node, rank, rank);
  out += buf;
}

namespace {

void put_flow_id(std::string& o, int64_t sender, uint64_t seq) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, (static_cast<uint64_t>(sender) << 32) | (seq & 0xffffffffu), 16);
  o += "\"0x";
  o.append(buf, r.ptr);
  o += '"';
}

const std::string& context_name(const std::map<uint64_t, std::string>& contexts, uint64_t ctx, std::string& scratch) {
  auto it = contexts.find(ctx);
  if (it != contexts.end()) return it->second;
  scratch = "context " + std::to_string(ctx);
  return scratch;
}

void message(std::string& o, const TraceEvent& e, int64_t rank, int64_t node,
             const std::map<uint64_t, std::string>& contexts) {
  const bool send = e.kind == EventKind::Send;
  o += send ? ",\n{\"name\": \"message\", \"cat\": \"message\", \"ph\": \"s\", \"id\": "
            : ",\n{\"name\": \"message\", \"cat\": \"message\", \"ph\": \"f\", \"bp\": \"e\", \"id\": ";
  put_flow_id(o, send ? rank : e.peer, e.seq);
  o += ", \"pid\": ";
  put(o, node);
  o += ", \"tid\": ";
  put(o, rank);
  o += ", \"ts\": ";
  put_micros(o, e.time);
  o += send ? ", \"args\": {\"to\": " : ", \"args\": {\"from\": ";
  put(o, e.peer);
  o += ", \"tag\": ";
  put(o, e.tag);
  o += ", \"bytes\": ";
  put(o, e.value);
  o += ", \"comm\": ";
  std::string scratch;
  o += json_string(context_name(contexts, e.ctx, scratch));
  o += "}}";
}

// A complete ("X") slice of rank `rank` on node `node` from `from` to `to` (ps), up to its open "args" object:
// the caller writes the arguments and closes it with "}}". `name` needs no escaping.
void slice_head(std::string& o, const std::string& name, const char* cat, int64_t rank, int64_t node, int64_t from,
                int64_t to) {
  o += ",\n{\"name\": \"";
  o += name;
  o += "\", \"cat\": \"";
  o += cat;
  o += "\", \"ph\": \"X\", \"pid\": ";
  put(o, node);
  o += ", \"tid\": ";
  put(o, rank);
  o += ", \"ts\": ";
  put_micros(o, from);
  o += ", \"dur\": ";
  put_micros(o, to - from);
  o += ", \"args\": {";
}

}  // namespace

void chrome_rank_events(std::string& out, int64_t rank, int64_t node, const std::vector<TraceEvent>& events,
                        const std::vector<std::string>& regions, const std::map<uint64_t, std::string>& contexts) {
  // Only outermost calls are recorded, so calls never nest. A call's messages are written after the call's
  // own event, so that viewers binding a flow to "the enclosing slice" find it already open.
  bool in_call = false;
  const TraceEvent* enter = nullptr;
  std::string flows;
  uint64_t msgs_sent = 0, bytes_sent = 0, msgs_recv = 0, bytes_recv = 0;
  for (const TraceEvent& e : events) {
    switch (e.kind) {
      case EventKind::Enter:
        in_call = true;
        enter = &e;
        flows.clear();
        msgs_sent = bytes_sent = msgs_recv = bytes_recv = 0;
        break;
      case EventKind::Leave: {
        if (!in_call) break;
        static const std::string unknown = "MPI_?";
        const std::string& name = e.value < regions.size() ? regions[e.value] : unknown;
        if (name == kDetourRegion) {  // a noise detour, outside any call: no communicator, no messages
          slice_head(out, name, "noise", rank, node, enter->time, e.time);
          out += "}}";
          in_call = false;
          break;
        }
        const bool coll = collective_op(name) >= 0;
        slice_head(out, name, coll ? "mpi,collective" : "mpi", rank, node, enter->time, e.time);  // MPI names need no escaping
        if (enter->ctx != kNoContext && names_communicator(name)) {
          std::string scratch;
          out += "\"comm\": " + json_string(context_name(contexts, enter->ctx, scratch)) + ", ";
        }
        out += "\"messages_sent\": ";
        put(out, msgs_sent);
        out += ", \"bytes_sent\": ";
        put(out, bytes_sent);
        out += ", \"messages_received\": ";
        put(out, msgs_recv);
        out += ", \"bytes_received\": ";
        put(out, bytes_recv);
        out += "}}";
        out += flows;
        flows.clear();
        in_call = false;
        break;
      }
      case EventKind::Send:
      case EventKind::Recv:
        if (e.kind == EventKind::Send) {
          ++msgs_sent;
          bytes_sent += e.value;
        } else {
          ++msgs_recv;
          bytes_recv += e.value;
        }
        message(in_call ? flows : out, e, rank, node, contexts);
        break;
    }
  }
  out += flows;  // a call still open at the end (the rank never left it)
}

}  // namespace xsim::obs
