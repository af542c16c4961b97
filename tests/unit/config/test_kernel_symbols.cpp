// [kernels.symbols.NAME] tables (libxsim/kernel_symbols_toml.cpp): what is read, every error with its
// file:line:column and key, the -xsim-kernels row, and -xsim-print-config's round trip.
#include <gtest/gtest.h>

#include <string>

#include "options.hpp"

namespace xsim {
namespace {

Options load(const std::string& toml) {
  Options o;
  load_config_text(o, toml, "k.toml");
  return o;
}

std::string error_of(const std::string& toml) {
  try {
    load(toml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* kHpl = R"([kernels]
mode = "model"
peak = "57.6GF"
bandwidth = "3.3GB/s"
overhead = "0.2us"

[kernels.symbols.HPL_dlaswp00N]
args  = ["M", "N", "A:ptr", "LDA", "IPIV:ptr"]
bytes = "16 * M * N"

[kernels.symbols."f.isra.0"]
args = ["n:i64", "m:u32", "k:u64"]
flops = "2 * n * m * k"
efficiency = 0.5
overhead = "3us"
)";

TEST(KernelSymbols, Read) {
  const Options o = load(kHpl);
  EXPECT_EQ(o.kernels.mode, KernelMode::model);
  const proc::KernelParams p = kernel_params(o.kernels);
  EXPECT_DOUBLE_EQ(p.peak, 57.6e9);
  EXPECT_DOUBLE_EQ(p.bandwidth, 3.3e9);
  EXPECT_EQ(p.overhead_ps, 200'000);
  ASSERT_EQ(o.kernel_symbols.size(), 2u);
  const SymbolModelSpec& a = o.kernel_symbols[0];
  EXPECT_EQ(a.name, "HPL_dlaswp00N");
  EXPECT_EQ(a.args, (std::vector<std::string>{"M", "N", "A", "LDA", "IPIV"}));
  EXPECT_EQ(a.types[2], SymbolArgType::ptr);
  EXPECT_EQ(a.types[3], SymbolArgType::i32);
  EXPECT_TRUE(a.has_bytes);
  EXPECT_FALSE(a.has_flops);
  EXPECT_FALSE(a.has_overhead);
  const double v[] = {100, 200, 0, 0, 0};
  EXPECT_EQ(a.bytes.eval(v), 320000.0);
  EXPECT_EQ(a.where, "k.toml:7:18: [kernels.symbols.HPL_dlaswp00N]");
  const SymbolModelSpec& b = o.kernel_symbols[1];
  EXPECT_EQ(b.name, "f.isra.0");
  EXPECT_EQ(b.types, (std::vector<SymbolArgType>{SymbolArgType::i64, SymbolArgType::u32, SymbolArgType::u64}));
  EXPECT_EQ(b.efficiency, 0.5);
  EXPECT_EQ(b.overhead, SimTime::from_ns(3000));
}

TEST(KernelSymbols, PrintConfigRoundTrip) {
  const Options o = load(kHpl);
  const std::string printed = to_toml(o);
  EXPECT_NE(printed.find("[kernels.symbols.\"f.isra.0\"]\nargs = [\"n:i64\", \"m:u32\", \"k:u64\"]\n"
                         "flops = \"2 * n * m * k\"\nefficiency = 0.5\noverhead = \"3us\"\n"),
            std::string::npos)
      << printed;
  Options again;
  load_config_text(again, printed, "printed.toml");
  EXPECT_EQ(to_toml(again), printed);
  EXPECT_EQ(again.kernel_symbols.size(), 2u);
  EXPECT_DOUBLE_EQ(kernel_params(again.kernels).peak, 57.6e9);
  EXPECT_DOUBLE_EQ(kernel_params(again.kernels).bandwidth, 3.3e9);
}

TEST(KernelSymbols, Errors) {
  EXPECT_EQ(error_of("[kernels.symbols.f]\nargs = [\"M\"]\nflops = \"2 ** M\"\n"),
            "k.toml:3:9: [kernels.symbols.f] flops: in the formula \"2 ** M\", column 4: expected a number, a name, "
            "'(' or '-', found '*'");
  EXPECT_EQ(error_of("[kernels.symbols.f]\nargs = [\"M\"]\nbytes = \"M * K\"\n"),
            "k.toml:3:9: [kernels.symbols.f] bytes: in the formula \"M * K\", column 5: unknown name 'K'; the names "
            "are the arguments (M) and the functions min(a, b), max(a, b)");
  EXPECT_EQ(error_of("[kernels.symbols.f]\nargs = [\"M\", \"M:i64\"]\n"),
            "k.toml:2:14: [kernels.symbols.f] args: the argument name \"M\" is given twice; each integer/pointer "
            "argument needs its own name");
  EXPECT_NE(error_of("[kernels.symbols.f]\nargs = [\"2M\"]\n").find("\"2M\" is not an argument name"), std::string::npos);
  EXPECT_NE(error_of("[kernels.symbols.f]\nargs = [\"max\"]\n").find("is not min or max"), std::string::npos);
  EXPECT_NE(error_of("[kernels.symbols.f]\nargs = \"M\"\n").find("args: expected an array of argument names"),
            std::string::npos);
  EXPECT_NE(error_of("[kernels.symbols.f]\nargs = [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\"]\n")
                .find("11 argument names; a model reads at most 10"),
            std::string::npos);
  EXPECT_NE(error_of("[kernels.symbols.f]\nefficiency = 0\n").find("efficiency 0.0 is out of range"), std::string::npos);
  EXPECT_NE(error_of("[kernels.symbols.f]\noverhead = \"fast\"\n").find("k.toml:2:12: [kernels.symbols.f] overhead"),
            std::string::npos);
  EXPECT_NE(error_of("[kernels.symbols]\nf = 3\n").find("\"f\" in [kernels.symbols] must be a table"), std::string::npos);
  EXPECT_NE(error_of("[kernels]\nsymbols = 3\n").find("[kernels] symbols: expected a table ([kernels.symbols]), got an integer"), std::string::npos)
      << error_of("[kernels]\nsymbols = 3\n");
}

}  // namespace
}  // namespace xsim
