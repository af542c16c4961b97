// Unit tests of the observation's pure parts (libxsim/observe): the trace event buffer and its spill file,
// the statistics records (accumulation, merge, serialisation, matrix layout) and the file formatting.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "observe/chrome_trace.hpp"
#include "observe/mpi_calls.hpp"
#include "observe/stats.hpp"
#include "observe/trace_buffer.hpp"

using namespace xsim::obs;

namespace {

std::string temp_path(const char* tag) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/xsim_test_observe_" + tag + "_" + std::to_string(getpid());
}

TraceEvent numbered(size_t rank, int64_t i) {
  return message_event(EventKind::Send, i * 10, static_cast<int32_t>(rank), static_cast<int32_t>(i), 7,
                       static_cast<uint64_t>(i) * 3, static_cast<uint64_t>(i));
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(TraceBuffer, KeepsEventsInMemoryBelowTheLimit) {
  TraceBuffer b(2, 1 << 20, temp_path("mem"));
  for (int64_t i = 0; i < 10; ++i) b.add(static_cast<size_t>(i % 2), numbered(static_cast<size_t>(i % 2), i));
  EXPECT_EQ(b.spills(), 0u);
  EXPECT_EQ(b.total(), 10u);
  EXPECT_EQ(b.count(0), 5u);
  std::vector<TraceEvent> out;
  b.read(1, out);
  ASSERT_EQ(out.size(), 5u);
  for (size_t k = 0; k < out.size(); ++k) EXPECT_EQ(out[k].time, static_cast<int64_t>(2 * k + 1) * 10);
}

TEST(TraceBuffer, SpillsAndReadsBackInRecordingOrder) {
  const std::string path = temp_path("spill");
  // 7 events of 48 bytes fit in the limit: every 7th add spills everything held.
  TraceBuffer b(3, 7 * sizeof(TraceEvent), path);
  std::vector<std::vector<TraceEvent>> expect(3);
  for (int64_t i = 0; i < 1000; ++i) {
    size_t r = static_cast<size_t>((i * 7) % 3 == 0 ? 0 : (i % 5 == 0 ? 2 : 1));
    TraceEvent e = numbered(r, i);
    expect[r].push_back(e);
    b.add(r, e);
  }
  EXPECT_GT(b.spills(), 100u);
  EXPECT_GT(b.spilled_bytes(), 0u);
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the spill file must be unlinked at once";
  EXPECT_EQ(b.total(), 1000u);
  std::vector<TraceEvent> out;
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(b.count(r), expect[r].size());
    b.read(r, out);
    ASSERT_EQ(out.size(), expect[r].size()) << "rank " << r;
    for (size_t k = 0; k < out.size(); ++k) {
      EXPECT_EQ(out[k].time, expect[r][k].time);
      EXPECT_EQ(out[k].value, expect[r][k].value);
      EXPECT_EQ(out[k].seq, expect[r][k].seq);
      EXPECT_EQ(out[k].kind, EventKind::Send);
    }
  }
  b.spill();  // explicit spill of what is left; reading stays the same
  b.read(1, out);
  EXPECT_EQ(out.size(), expect[1].size());
}

TEST(TraceBuffer, SpillFailureIsReported) {
  TraceBuffer b(1, sizeof(TraceEvent), "/nonexistent-dir-xsim/spill");
  EXPECT_THROW(b.add(0, numbered(0, 1)), std::runtime_error);
}

TEST(Stats, WaitPartSplitsABlockedInterval) {
  EXPECT_EQ(wait_part(100, 200, 50), 0);     // sent before the rank blocked: all communication
  EXPECT_EQ(wait_part(100, 200, 100), 0);
  EXPECT_EQ(wait_part(100, 200, 130), 30);   // late sender: 30 waiting, 70 in flight
  EXPECT_EQ(wait_part(100, 200, 250), 100);  // clamped
}

TEST(Stats, SecondsAndMicrosAreExact) {
  EXPECT_EQ(seconds_text(0), "0.000000000000");
  EXPECT_EQ(seconds_text(200320000), "0.000200320000");
  EXPECT_EQ(seconds_text(3'000'000'000'001), "3.000000000001");
  EXPECT_EQ(seconds_text(-5), "-0.000000000005");
  EXPECT_EQ(micros_text(50'032'000), "50.032000");
  EXPECT_EQ(micros_text(1), "0.000001");
  EXPECT_EQ(micros_text(9'223'372'036'854'775'807), "9223372036854.775807");
}

TEST(Stats, JsonStringEscapes) {
  EXPECT_EQ(json_string("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
}

TEST(Stats, FunctionStatsAccumulateAndMerge) {
  FunctionStats a;
  a.add_call(100, 10, 1, 4, 0, 0);
  a.add_call(300, 0, 2, 8, 1, 4);
  EXPECT_EQ(a.calls, 2u);
  EXPECT_EQ(a.time_ps, 400);
  EXPECT_EQ(a.wait_ps, 10);
  EXPECT_EQ(a.min_ps, 100);
  EXPECT_EQ(a.max_ps, 300);
  EXPECT_EQ(a.bytes_sent, 12u);
  FunctionStats b;
  b.add_call(50, 50, 0, 0, 3, 12);
  b.ranks = 1;
  a.ranks = 2;
  a.merge(b);
  EXPECT_EQ(a.calls, 3u);
  EXPECT_EQ(a.ranks, 3u);
  EXPECT_EQ(a.min_ps, 50);
  EXPECT_EQ(a.messages_received, 4u);
  EXPECT_EQ(a.bytes_received, 16u);
}

TEST(Stats, FunctionTablesSerialiseAndMergeByName) {
  FunctionTable p0, p1;
  p0["MPI_Send"].add_call(10, 0, 1, 8, 0, 0);
  p0["MPI_Send"].ranks = 1;
  p0["MPI_Barrier"].add_call(70, 20, 2, 0, 2, 0);
  p1["MPI_Send"].add_call(30, 5, 1, 16, 0, 0);
  p1["MPI_Send"].ranks = 1;
  p1["MPI_Recv"].add_call(90, 40, 0, 0, 1, 24);
  FunctionTable all;
  merge_serialized(all, serialize(p0));
  merge_serialized(all, serialize(p1));
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all["MPI_Send"].calls, 2u);
  EXPECT_EQ(all["MPI_Send"].ranks, 2u);
  EXPECT_EQ(all["MPI_Send"].bytes_sent, 24u);
  EXPECT_EQ(all["MPI_Send"].max_ps, 30);
  EXPECT_EQ(all["MPI_Recv"].wait_ps, 40);
  FunctionTable again;
  merge_serialized(again, serialize(all));
  EXPECT_EQ(again, all);
  EXPECT_THROW(merge_serialized(again, "MPI_Send\t1\t2\n"), std::runtime_error);
}

TEST(Stats, RanksFilesCarryEveryColumn) {
  RankRow r;
  r.rank = 3;
  r.node = 1;
  r.finish_ps = 1'000'000;
  r.compute_ps = 400'000;
  r.mpi_ps = 600'000;
  r.wait_ps = 100'000;
  r.calls = 5;
  r.messages_sent = 2;
  r.bytes_sent = 64;
  r.messages_received = 1;
  r.bytes_received = 32;
  std::string csv = ranks_csv_header();
  append_rank_csv(csv, r);
  EXPECT_EQ(csv.substr(csv.find('\n') + 1),
            "3,1,0.000001000000,0.000000400000,0.000000500000,0.000000100000,0.000000600000,5,2,64,1,32\n");
  std::string json = ranks_json_head();
  append_rank_json(json, r, true);
  append_rank_json(json, r, false);
  RunTotals t;
  t.add(r);
  t.add(r);
  EXPECT_EQ(t.bytes, 128u);
  json += ranks_json_tail(t);
  EXPECT_EQ(count(json, "\"rank\": 3"), 2u);
  EXPECT_NE(json.find("\"communication_s\": 0.000000500000"), std::string::npos);
  EXPECT_NE(json.find("\"totals\": {\"ranks\": 2"), std::string::npos);
}

TEST(Stats, MatrixLayoutByRankNodeOrBlock) {
  MatrixLayout a = MatrixLayout::choose(64, 64, 256);
  EXPECT_EQ(a.unit, MatrixLayout::Unit::rank);
  EXPECT_EQ(a.cells, 64);
  EXPECT_EQ(a.cell(17, 17), 17);
  MatrixLayout b = MatrixLayout::choose(1024, 512, 512);  // dual-core nodes
  EXPECT_EQ(b.unit, MatrixLayout::Unit::node);
  EXPECT_EQ(b.cells, 512);
  EXPECT_EQ(b.cell(1023, 511), 511);
  MatrixLayout c = MatrixLayout::choose(1000, 1000, 256);  // one rank per node: blocks of ranks
  EXPECT_EQ(c.unit, MatrixLayout::Unit::block);
  EXPECT_EQ(c.block, 4);
  EXPECT_EQ(c.cells, 250);
  EXPECT_EQ(c.cell(999, 999), 249);
  EXPECT_EQ(c.label(249), "996-999");
  MatrixLayout d = MatrixLayout::choose(10, 10, 3);
  EXPECT_EQ(d.block, 4);
  EXPECT_EQ(d.cells, 3);
  EXPECT_EQ(d.label(2), "8-9");
}

TEST(Stats, MatrixFiles) {
  MatrixLayout m = MatrixLayout::choose(2, 2, 16);
  const uint64_t bytes[] = {0, 40, 8, 0};
  const uint64_t msgs[] = {0, 10, 1, 0};
  EXPECT_EQ(matrix_csv(m, bytes), "rank,0,1\n0,0,40\n1,8,0\n");
  std::string j = matrix_json(m, bytes, msgs);
  EXPECT_NE(j.find("\"unit\": \"rank\""), std::string::npos);
  EXPECT_NE(j.find("\"bytes\": [\n  [0,40],\n  [8,0]\n]"), std::string::npos);
  EXPECT_NE(j.find("\"messages\": [\n  [0,10],\n  [1,0]\n]"), std::string::npos);
}

TEST(MpiCalls, Classification) {
  EXPECT_EQ(collective_op("MPI_Barrier"), 0);
  EXPECT_EQ(collective_op("MPI_Allreduce"), 11);
  EXPECT_EQ(collective_op("MPI_Reduce_scatter_block"), 16);
  EXPECT_EQ(collective_op("MPI_Send"), -1);
  EXPECT_EQ(collective_op("MPI_Iallreduce"), -1);
  EXPECT_TRUE(is_nonblocking_collective("MPI_Iallreduce"));
  EXPECT_TRUE(is_nonblocking_collective("MPI_Ibarrier"));
  EXPECT_FALSE(is_nonblocking_collective("MPI_Isend"));
  EXPECT_FALSE(is_nonblocking_collective("MPI_Iprobe"));
  EXPECT_EQ(call_role("MPI_Bcast"), CallRole::one_to_all);
  EXPECT_EQ(call_role("MPI_Gatherv"), CallRole::all_to_one);
  EXPECT_EQ(call_role("MPI_Alltoall"), CallRole::all_to_all);
  EXPECT_EQ(call_role("MPI_Ibcast"), CallRole::other_collective);
  EXPECT_EQ(call_role("MPI_Neighbor_alltoall"), CallRole::other_collective);
  EXPECT_EQ(call_role("MPI_Waitall"), CallRole::point_to_point);
  EXPECT_EQ(call_role("MPI_Comm_split"), CallRole::function);
  EXPECT_FALSE(names_communicator("MPI_Waitall"));
  EXPECT_TRUE(names_communicator("MPI_Send"));
}

TEST(ChromeTrace, CallsThenTheirMessages) {
  // rank 1: MPI_Sendrecv from 0 us to 50 us: sends 4 bytes to rank 2, receives 4 bytes from rank 0.
  std::vector<TraceEvent> ev = {
      enter_event(0, 1, 2),
      message_event(EventKind::Send, 0, 2, 9, 2, 4, 5),
      message_event(EventKind::Recv, 50'032'000, 0, 9, 2, 4, 5),
      leave_event(50'032'000, 1),
      enter_event(60'000'000, 0, kNoContext),
  };
  std::string out = chrome_head("test");
  chrome_rank_metadata(out, 1, 0);
  chrome_rank_events(out, 1, 0, ev, {"MPI_Init", "MPI_Sendrecv"}, {{2, "MPI_COMM_WORLD"}});
  out += chrome_tail("\"ranks\": 2");
  EXPECT_EQ(count(out, "\"ph\": \"X\""), 1u) << out;
  EXPECT_EQ(count(out, "\"ph\": \"s\""), 1u);
  EXPECT_EQ(count(out, "\"ph\": \"f\""), 1u);
  size_t x = out.find("\"ph\": \"X\""), s = out.find("\"ph\": \"s\"");
  EXPECT_LT(x, s) << "the call comes before its flows";
  EXPECT_NE(out.find("\"name\": \"MPI_Sendrecv\", \"cat\": \"mpi\", \"ph\": \"X\", \"pid\": 0, \"tid\": 1, \"ts\": "
                     "0.000000, \"dur\": 50.032000, \"args\": {\"comm\": \"MPI_COMM_WORLD\", \"messages_sent\": 1"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"id\": \"0x100000005\""), std::string::npos) << "send id: sender 1, sequence 5";
  EXPECT_NE(out.find("\"id\": \"0x5\""), std::string::npos) << "receive id: sender 0, sequence 5";
  EXPECT_EQ(out.front(), '{');
  EXPECT_EQ(out.substr(out.size() - 3), "}}\n");
}
