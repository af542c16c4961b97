// Unit tests for the kernel models' options (-xsim-kernels, -xsim-kernel-preset, the [kernels] table and its
// [kernels.FAMILY] tables): values, precedence, presets under explicit keys, every refusal with its
// file:line, and -xsim-print-config reading back.
#include "options_test_support.hpp"

namespace xsim {
namespace {

using proc::Kernel;

TEST(KernelOptions, DefaultIsExec) {
  Options o = parse({"app"});
  EXPECT_EQ(o.kernels.mode, KernelMode::exec);
  EXPECT_TRUE(o.kernels.preset.empty());
  EXPECT_EQ(o.kernels.params, proc::KernelParams{});
}

TEST(KernelOptions, ModeAndPresetFromEveryOrigin) {
  Options o = parse({"app", "-xsim-kernels", "model", "-xsim-kernel-preset=frontera"});
  EXPECT_EQ(o.kernels.mode, KernelMode::model);
  EXPECT_EQ(o.kernels.preset, "frontera");
  o = parse({"app"}, {"XSIM_KERNELS=model", "XSIM_KERNEL_PRESET=pupmaya"});
  EXPECT_EQ(o.kernels.mode, KernelMode::model);
  EXPECT_EQ(o.kernels.preset, "pupmaya");
  TempFile f("[kernels]\nmode = \"model\"\npreset = \"frontera\"\n");
  o = parse({"app", "-xsim-config", f.path(), "-xsim-kernel-preset", "pupmaya"});  // command line wins
  EXPECT_EQ(o.kernels.mode, KernelMode::model);
  EXPECT_EQ(o.kernels.preset, "pupmaya");
  EXPECT_DOUBLE_EQ(kernel_params(o.kernels).peak, 51.2e9);  // 1.6 GHz (AVX-512 base) x 32
}

TEST(KernelOptions, TableValues) {
  TempFile f(
      "[kernels]\nmode = \"model\"\npeak = \"57.6GF\"\nbandwidth = \"3.3GB/s\"\noverhead = \"0.2us\"\n"
      "[kernels.gemm]\nefficiency = 0.9\nhalf_dim = 24\noverhead = \"0.3us\"\n"
      "[kernels.axpy]\nefficiency = 1\n");
  Options o = parse({"app", "-xsim-config", f.path()});
  const proc::KernelParams& p = o.kernels.params;
  EXPECT_EQ(p.peak, 57.6e9);
  EXPECT_EQ(p.bandwidth, 3.3e9);
  EXPECT_EQ(p.overhead_ps, 200'000);
  EXPECT_EQ(p[Kernel::gemm].efficiency, 0.9);
  EXPECT_EQ(p[Kernel::gemm].half_dim, 24);
  EXPECT_EQ(p[Kernel::gemm].overhead_ps, 300'000);
  EXPECT_EQ(p[Kernel::axpy].efficiency, 1.0);
  EXPECT_EQ(p[Kernel::trsm], proc::KernelFamilyParams{});
}

TEST(KernelOptions, NumbersForPeakAndBandwidth) {
  TempFile f("[kernels]\npeak = 1000000000\nbandwidth = 2.5e9\n");
  Options o = parse({"app", "-xsim-config", f.path()});
  EXPECT_EQ(o.kernels.params.peak, 1e9);
  EXPECT_EQ(o.kernels.params.bandwidth, 2.5e9);
}

TEST(KernelOptions, ExplicitKeysOverrideThePreset) {
  TempFile f("[kernels]\npreset = \"frontera\"\npeak = \"10GF\"\n[kernels.gemm]\nefficiency = 0.8\n");
  Options o = parse({"app", "-xsim-config", f.path(), "-xsim-kernels", "model"});
  const proc::KernelParams p = kernel_params(o.kernels);
  EXPECT_EQ(p.peak, 10e9);
  EXPECT_EQ(p.bandwidth, proc::kernel_preset("frontera")->bandwidth);
  EXPECT_EQ(p[Kernel::gemm].efficiency, 0.8);
  EXPECT_EQ(p[Kernel::trsm].efficiency, 0.6201);  // the preset's (measured), not given
}

TEST(KernelOptions, SymbolsSubtableIsAccepted) {
  TempFile f("[kernels]\npeak = \"1GF\"\n[kernels.symbols.HPL_dlaswp00N]\nargs = [\"M\", \"N\"]\nbytes = \"16 * M * N\"\n");
  EXPECT_EQ(error_of({"app", "-xsim-config", f.path()}), "");
}

TEST(KernelOptions, BadModeAndPreset) {
  std::string e = error_of({"app", "-xsim-kernels", "modle"});
  EXPECT_HAS(e, "-xsim-kernels");
  EXPECT_HAS(e, "give exec");
  EXPECT_HAS(e, "did you mean");
  e = error_of({"app"}, {"XSIM_KERNEL_PRESET=fronterra"});
  EXPECT_HAS(e, "XSIM_KERNEL_PRESET");
  EXPECT_HAS(e, "frontera, pupmaya");
  EXPECT_HAS(e, "xsim-calibrate --kernels");
}

TEST(KernelOptions, ModelWithoutParametersIsRefused) {
  std::string e = error_of({"app", "-xsim-kernels", "model"});
  EXPECT_HAS(e, "-xsim-kernels");
  EXPECT_HAS(e, "xsim-calibrate --kernels --out FILE");
  EXPECT_HAS(e, "-xsim-config FILE");
  EXPECT_HAS(e, "-xsim-kernel-preset");
  TempFile peak_only("[kernels]\nmode = \"model\"\npeak = \"1GF\"\n");
  e = error_of({"app", "-xsim-config", peak_only.path()});
  EXPECT_HAS(e, "bandwidth is not given");
  EXPECT_HAS(e, ":2:");  // where the mode was set: the file's line 2
  // exec needs nothing
  EXPECT_EQ(error_of({"app", "-xsim-kernels", "exec"}), "");
}

TEST(KernelOptions, BadTableInputNamesFileAndLine) {
  std::string e = file_error("[kernels]\npeak = \"1GF\"\n[kernels.gemmm]\nefficiency = 0.9\n");
  EXPECT_HAS(e, "F:3:");
  EXPECT_HAS(e, "unknown kernel family [kernels.gemmm]");
  EXPECT_HAS(e, "did you mean");
  e = file_error("[kernels]\npeek = \"1GF\"\n");
  EXPECT_HAS(e, "F:2:1: unknown key \"peek\" in [kernels]");
  e = file_error("[kernels.gemm]\nefficency = 0.9\n");
  EXPECT_HAS(e, "F:2:1: unknown key \"efficency\" in [kernels.gemm]");
  e = file_error("[kernels]\npeak = \"57.6GB\"\n");
  EXPECT_HAS(e, "F:2:");
  EXPECT_HAS(e, "[kernels] peak");
  EXPECT_HAS(e, "unknown unit");
  e = file_error("[kernels]\nbandwidth = \"fast\"\n");
  EXPECT_HAS(e, "[kernels] bandwidth");
  e = file_error("[kernels]\nbandwidth = -3\n");
  EXPECT_HAS(e, "must be positive");
  e = file_error("[kernels]\noverhead = 5\n");
  EXPECT_HAS(e, "[kernels] overhead: expected a time string");
  e = file_error("[kernels.trsm]\nefficiency = 90\n");
  EXPECT_HAS(e, "F:2:");
  EXPECT_HAS(e, "at most 2");
  e = file_error("[kernels.trsm]\nefficiency = 0\n");
  EXPECT_HAS(e, "above 0");
  e = file_error("[kernels.axpy]\nhalf_dim = 10\n");
  EXPECT_HAS(e, "compute-bound families only");
  e = file_error("[kernels.gemm]\nhalf_dim = -1\n");
  EXPECT_HAS(e, "0 or more");
  e = file_error("[kernels]\ngemm = 3\n");
  EXPECT_HAS(e, "expected a table");
  e = file_error("[simulation]\npeak = \"1GF\"\n");
  EXPECT_HAS(e, "it belongs in [kernels]");
}

TEST(KernelOptions, PrintConfigReadsBack) {
  TempFile f(
      "[kernels]\nmode = \"model\"\npreset = \"frontera\"\npeak = \"57.6GF\"\nbandwidth = \"3.3GB/s\"\n"
      "overhead = \"0.2us\"\n[kernels.gemm]\nefficiency = 0.9\nhalf_dim = 24\n[kernels.iamax]\noverhead = \"1us\"\n");
  Options o = parse({"app", "-xsim-config", f.path()});
  const std::string text = to_toml(o);
  EXPECT_HAS(text, "[kernels]\nmode = \"model\"\npreset = \"frontera\"\npeak = \"57.6 GF/s\"\nbandwidth = \"3.3 GB/s\"\n"
                   "overhead = \"200 ns\"\n");
  EXPECT_HAS(text, "[kernels.gemm]\nefficiency = 0.9\nhalf_dim = 24.0\n");
  TempFile back(text);
  Options o2 = parse({"app", "-xsim-config", back.path()});
  EXPECT_EQ(o2.kernels.mode, o.kernels.mode);
  EXPECT_EQ(o2.kernels.preset, o.kernels.preset);
  EXPECT_EQ(o2.kernels.params, o.kernels.params);
  EXPECT_EQ(to_toml(o2).substr(to_toml(o2).find("[kernels]")), text.substr(text.find("[kernels]")));
  // bandwidths that are no whole number of bytes per second read back too
  TempFile odd("[kernels]\nbandwidth = \"1bps\"\npeak = 12345.678\n");
  Options o3 = parse({"app", "-xsim-config", odd.path()});
  TempFile odd_back(to_toml(o3));
  EXPECT_EQ(parse({"app", "-xsim-config", odd_back.path()}).kernels.params, o3.kernels.params);
}

TEST(KernelOptions, HelpListsTheOptionsAndTable) {
  const std::string h = help_text();
  EXPECT_HAS(h, "-xsim-kernels exec|model");
  EXPECT_HAS(h, "-xsim-kernel-preset NAME");
  EXPECT_HAS(h, "[kernels] (mode, preset, peak, bandwidth, overhead");
}

}  // namespace
}  // namespace xsim
