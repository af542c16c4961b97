// runtime/core/copy_bytes.hpp: the engine's inline small copy agrees with memcpy for every length up to and past
// its 256-byte limit and at every source/destination misalignment, and writes nothing outside the range.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "copy_bytes.hpp"

TEST(CopyBytes, MatchesMemcpyAndStaysInsideTheRange) {
  std::vector<unsigned char> src(400 + 64), dst(400 + 64), want(400 + 64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  for (size_t n = 0; n <= 300; ++n)
    for (size_t soff = 0; soff < 8; ++soff)
      for (size_t doff = 0; doff < 8; doff += 3) {
        std::memset(dst.data(), 0xee, dst.size());
        std::memset(want.data(), 0xee, want.size());
        std::memcpy(want.data() + 16 + doff, src.data() + soff, n);
        xsim::copy_bytes(dst.data() + 16 + doff, src.data() + soff, n);
        ASSERT_EQ(dst, want) << "length " << n << ", source offset " << soff << ", destination offset " << doff;
      }
}
