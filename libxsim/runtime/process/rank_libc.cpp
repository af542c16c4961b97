// Per-rank libc state (rank_libc.hpp): one record per local rank, by the rank's local index.
#include "rank_libc.hpp"

#include "engine.hpp"

namespace xsim {
namespace {
std::vector<std::unique_ptr<RankLibc>> g_records;  // by local rank index; grown on demand
}  // namespace

RankLibc* rank_libc_if_any() {
  const size_t i = static_cast<size_t>(g_engine->current().index);
  return i < g_records.size() ? g_records[i].get() : nullptr;
}

RankLibc& rank_libc() {
  const size_t i = static_cast<size_t>(g_engine->current().index);
  if (i >= g_records.size()) g_records.resize(i + 1);
  if (!g_records[i]) g_records[i] = std::make_unique<RankLibc>();
  return *g_records[i];
}

}  // namespace xsim
