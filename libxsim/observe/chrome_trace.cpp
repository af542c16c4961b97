#include "observe/chrome_trace.hpp"

#include <cinttypes>
#include <cstdio>

#include "observe/mpi_calls.hpp"
#include "observe/stats.hpp"

namespace xsim::obs {

std::string micros_text(int64_t ps) {
  char buf[40];
  const char* sign = ps < 0 ? "-" : "";
  uint64_t a = ps < 0 ? static_cast<uint64_t>(-(ps + 1)) + 1 : static_cast<uint64_t>(ps);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%06" PRIu64, sign, a / 1000000, a % 1000000);
  return buf;
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

std::string flow_id(int64_t sender, uint64_t seq) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "\"0x%" PRIx64 "\"", (static_cast<uint64_t>(sender) << 32) | (seq & 0xffffffffu));
  return buf;
}

std::string context_name(const std::map<uint64_t, std::string>& contexts, uint64_t ctx) {
  auto it = contexts.find(ctx);
  if (it != contexts.end()) return it->second;
  return "context " + std::to_string(ctx);
}

void message(std::string& out, const TraceEvent& e, int64_t rank, int64_t node,
             const std::map<uint64_t, std::string>& contexts) {
  const bool send = e.kind == EventKind::Send;
  char buf[400];
  std::snprintf(buf, sizeof buf,
                ",\n{\"name\": \"message\", \"cat\": \"message\", \"ph\": \"%s\", %s\"id\": %s, \"pid\": %" PRId64
                ", \"tid\": %" PRId64 ", \"ts\": %s, \"args\": {\"%s\": %d, \"tag\": %d, \"bytes\": %" PRIu64
                ", \"comm\": ",
                send ? "s" : "f", send ? "" : "\"bp\": \"e\", ",
                flow_id(send ? rank : e.peer, e.seq).c_str(), node, rank, micros_text(e.time).c_str(),
                send ? "to" : "from", e.peer, e.tag, e.value);
  out += buf;
  out += json_string(context_name(contexts, e.ctx)) + "}}";
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
  char buf[400];
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
        const std::string& name = e.value < regions.size() ? regions[e.value] : std::string("MPI_?");
        const bool coll = collective_op(name) >= 0;
        std::snprintf(buf, sizeof buf,
                      ",\n{\"name\": %s, \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
                      ", \"ts\": %s, \"dur\": %s, \"args\": {",
                      json_string(name).c_str(), coll ? "mpi,collective" : "mpi", node, rank,
                      micros_text(enter->time).c_str(), micros_text(e.time - enter->time).c_str());
        out += buf;
        if (enter->ctx != kNoContext && names_communicator(name))
          out += "\"comm\": " + json_string(context_name(contexts, enter->ctx)) + ", ";
        std::snprintf(buf, sizeof buf,
                      "\"messages_sent\": %" PRIu64 ", \"bytes_sent\": %" PRIu64 ", \"messages_received\": %" PRIu64
                      ", \"bytes_received\": %" PRIu64 "}}",
                      msgs_sent, bytes_sent, msgs_recv, bytes_recv);
        out += buf;
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
