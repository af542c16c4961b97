// Unit tests for the privatizer (libxsim/runtime/privatize.*) on regions of the test's own memory: each
// slot keeps its own image across switches, a slot starts from the image the region had when the
// privatizer was built, the process image comes back at the end, mapped regions commit only the pages
// that are touched, and the executable's own regions are found (its data after RELRO, its TLS block).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "privatize.hpp"

using xsim::privatize::Method;
using xsim::privatize::Privatizer;
using xsim::privatize::RegionSpec;

namespace {

const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

struct Mapping {
  explicit Mapping(size_t n) : len(n) {
    p = static_cast<char*>(mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  }
  ~Mapping() { munmap(p, len); }
  char* p;
  size_t len;
};

RegionSpec spec_of(char* addr, size_t len) {
  RegionSpec s;
  s.object = "test";
  s.addr = addr;
  s.len = len;
  s.file_len = 0;
  return s;
}

void check_slots_keep_their_images(bool force_copy, bool force_map, size_t len) {
  Mapping m(len + kPage);
  char* region = m.p + (force_map ? 0 : 40);  // copied regions need no alignment
  std::memset(region, 'i', len);            // the initial image
  {
    Privatizer priv({spec_of(region, len)}, 3, force_copy, force_map);
    ASSERT_EQ(priv.regions().size(), 1u);
    EXPECT_EQ(priv.regions()[0].method, force_map ? Method::map : Method::copy);
    for (size_t s = 0; s < 3; ++s) {
      priv.enter(s);
      EXPECT_EQ(region[0], 'i');
      EXPECT_EQ(region[len - 1], 'i');
      region[0] = static_cast<char>('a' + s);
      region[len - 1] = static_cast<char>('A' + s);
    }
    for (int round = 0; round < 3; ++round)
      for (size_t s : {2u, 0u, 1u}) {
        priv.enter(s);
        EXPECT_EQ(region[0], static_cast<char>('a' + s));
        EXPECT_EQ(region[len - 1], static_cast<char>('A' + s));
        EXPECT_EQ(region[len / 2], 'i');
      }
    EXPECT_EQ(priv.ranks_started(), 3u);
    EXPECT_GE(priv.committed_bytes(), 3u * (force_map ? kPage : len));
    region[len / 2] = 'z';  // slot 1 writes; the process image must not see it
  }
  EXPECT_EQ(region[0], 'i');  // the process image is current again
  EXPECT_EQ(region[len / 2], 'i');
  EXPECT_EQ(region[len - 1], 'i');
}

TEST(Privatize, CopiedRegionKeepsOneImagePerSlot) { check_slots_keep_their_images(true, false, 1000); }

TEST(Privatize, MappedRegionKeepsOneImagePerSlot) { check_slots_keep_their_images(false, true, 3 * kPage); }

TEST(Privatize, MethodBySize) {
  RegionSpec small, large, tls;
  small.len = xsim::privatize::kCopyMax;
  large.len = xsim::privatize::kCopyMax + 1;
  tls.len = 1 << 30;
  tls.tls = true;
  EXPECT_EQ(Privatizer::method_for(small, false, false), Method::copy);
  EXPECT_EQ(Privatizer::method_for(large, false, false), Method::map);
  EXPECT_EQ(Privatizer::method_for(tls, false, true), Method::copy);  // TLS is always copied
  EXPECT_EQ(Privatizer::method_for(large, true, false), Method::copy);
  EXPECT_EQ(Privatizer::method_for(small, false, true), Method::map);
}

TEST(Privatize, MappedRegionCommitsOnlyTouchedPages) {
  const size_t pages = 256;
  Mapping m(pages * kPage);
  m.p[5 * kPage] = 7;  // the initial image: one non-zero page
  RegionSpec s = spec_of(m.p, pages * kPage);
  EXPECT_EQ(Privatizer::estimate_per_rank({s}, false, false), kPage);
  Privatizer priv({s}, 4, false, false);
  ASSERT_EQ(priv.regions()[0].method, Method::map);
  for (size_t r = 0; r < 4; ++r) {
    priv.enter(r);
    EXPECT_EQ(m.p[5 * kPage], 7);
    m.p[(10 + r) * kPage] = static_cast<char>(r + 1);  // one page of its own
  }
  // 4 ranks x (the initial page + the page each wrote)
  EXPECT_EQ(priv.committed_bytes(), 8 * kPage);
  EXPECT_EQ(priv.min_commit_per_rank(), kPage);
  for (size_t r = 0; r < 4; ++r) {
    priv.enter(r);
    for (size_t q = 0; q < 4; ++q) EXPECT_EQ(m.p[(10 + q) * kPage], q == r ? static_cast<char>(r + 1) : 0);
  }
}

int g_data = 42;   // the test's own .data
__thread int g_tls = 5;

TEST(Privatize, FindsTheExecutablesDataAndTls) {
  std::vector<RegionSpec> regions = xsim::privatize::find_regions({});
  bool data = false, tls = false;
  for (const RegionSpec& r : regions) {
    EXPECT_EQ(r.object, "executable");
    const char* p = reinterpret_cast<const char*>(&g_data);
    if (!r.tls && p >= r.addr && p < r.addr + r.len) data = true;
    const char* t = reinterpret_cast<const char*>(&g_tls);
    if (r.tls && t >= r.addr && t < r.addr + r.len) tls = true;
  }
  EXPECT_TRUE(data);
  EXPECT_TRUE(tls);
  EXPECT_THROW(xsim::privatize::find_regions({"libnope.so"}), std::runtime_error);
  EXPECT_THROW(xsim::privatize::find_regions({"libc.so"}), std::runtime_error);  // refused
}

TEST(Privatize, HumanSizes) {
  EXPECT_EQ(xsim::privatize::human_size(88), "88 B");
  EXPECT_EQ(xsim::privatize::human_size(4320), "4.22 KiB");
  EXPECT_EQ(xsim::privatize::human_size(256ull << 20), "256 MiB");
  EXPECT_EQ(xsim::privatize::human_size(26843545600000ull), "24.4 TiB");
}

}  // namespace
