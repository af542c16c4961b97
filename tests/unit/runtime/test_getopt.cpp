// runtime/process/getopt_state.hpp against glibc: every case runs through glibc's own getopt, __posix_getopt,
// getopt_long or getopt_long_only (a fresh scan: optind = 0) and through getopt_scan, and every call's return
// value, optind, optarg (which argument, from which character), optopt, longindex and flag variables, the
// final order of argv and the text on stderr must be the same. One GetoptState serves every case, as glibc's
// one hidden state does (optopt, for one, carries over from case to case in both).
#include <gtest/gtest.h>
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "getopt_state.hpp"

extern "C" int __posix_getopt(int argc, char* const* argv, const char* optstring) noexcept;

namespace {

enum class Api { getopt, posix_getopt, getopt_long, getopt_long_only };

struct LongOpt {
  const char* name;
  int has_arg;
  int flag;  // -1: no flag (the value is returned), else the index of a flag variable
  int val;
};

struct Case {
  const char* name;
  Api api;
  std::vector<const char*> args;  // argv, argv[0] included
  const char* optstring;
  std::vector<LongOpt> longs = {};
  int opterr = 1;
  bool posixly_correct = false;                 // POSIXLY_CORRECT set in the environment
  std::vector<std::pair<int, int>> set_optind = {};  // after call k (from 1), the caller sets optind = v
  int argc = -1;                                // -1: args.size()
  bool null_table = false;                      // getopt_long with longopts == NULL
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::vector<LongOpt> kLongs = {
    {"verbose", no_argument, -1, 'v'},  {"version", no_argument, -1, 'V'}, {"file", required_argument, -1, 'f'},
    {"level", optional_argument, -1, 'l'}, {"flag", no_argument, 0, 42},  {"color", optional_argument, 1, 7},
    {"size", required_argument, -1, 1000}, {"alpha", no_argument, -1, 'a'}, {"alphabet", no_argument, -1, 'a'},
    {"alps", no_argument, -1, 'p'},
};

// One side's copy of a case's argv and options, and how to describe pointers into it.
struct Side {
  std::vector<std::string> strings;
  std::vector<char*> argv;
  std::vector<char*> original;  // argv as given
  std::vector<option> longopts;
  int flags[2] = {0, 0};

  explicit Side(const Case& c) : strings(c.args.begin(), c.args.end()) {
    for (std::string& s : strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    original = argv;
    for (const LongOpt& l : c.longs)
      longopts.push_back({l.name, l.has_arg, l.flag < 0 ? nullptr : &flags[l.flag], l.val});
    longopts.push_back({nullptr, 0, nullptr, 0});
  }
  // "arg 3+1 \"alue\"": argument 3 as given, from its character 1; "null"; "elsewhere" (not this case's).
  std::string where(const char* p) const {
    if (!p) return "null";
    for (size_t i = 0; i < strings.size(); ++i) {
      const char* s = original[i];
      if (p >= s && p <= s + strings[i].size())
        return "arg " + std::to_string(i) + "+" + std::to_string(p - s) + " \"" + std::string(p) + "\"";
    }
    return "elsewhere";
  }
  std::string order(int argc) const {
    std::string out;
    for (int i = 0; i < argc; ++i)
      for (size_t k = 0; k < original.size(); ++k)
        if (argv[static_cast<size_t>(i)] == original[k]) out += std::to_string(k) + " ";
    return out;
  }
};

// What one implementation does with a case: every call's results, argv's final order, stderr.
std::string run_case(const Case& c, Side& side, int& ind, char*& arg, int& opt, int& err,
                     const std::function<int(int, char**, const char*, const option*, int*)>& call) {
  std::fflush(stderr);
  FILE* capture = std::tmpfile();
  const int saved = dup(2);
  dup2(fileno(capture), 2);
  if (c.posixly_correct) setenv("POSIXLY_CORRECT", "1", 1);

  const int argc = c.argc < 0 ? static_cast<int>(c.args.size()) : c.argc;
  std::string out;
  ind = 0;
  err = c.opterr;
  for (int k = 1; k <= 64; ++k) {
    int longindex = -7;
    const int r = call(argc, side.argv.data(), c.optstring, c.null_table ? nullptr : side.longopts.data(), &longindex);
    char line[160];
    std::snprintf(line, sizeof line, "call %d: return %d, optind %d, optopt %d, longindex %d, flags %d %d, optarg ",
                  k, r, ind, opt, longindex, side.flags[0], side.flags[1]);
    out += line + side.where(arg) + "\n";
    bool more = false;
    for (auto [after, v] : c.set_optind) {
      if (after == k) ind = v;
      if (after >= k) more = true;
    }
    if (r == -1 && !more) break;
  }
  out += "argv: " + side.order(argc) + "\n";

  if (c.posixly_correct) unsetenv("POSIXLY_CORRECT");
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(capture);
  std::string text;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, capture)) > 0) text.append(buf, n);
  std::fclose(capture);
  return out + "stderr:\n" + text;
}

std::string with_glibc(const Case& c) {
  Side side(c);
  return run_case(c, side, optind, optarg, optopt, opterr,
                  [&](int argc, char** argv, const char* s, const option* l, int* li) {
                    switch (c.api) {
                      case Api::getopt: return getopt(argc, argv, s);
                      case Api::posix_getopt: return __posix_getopt(argc, argv, s);
                      case Api::getopt_long: return getopt_long(argc, argv, s, l, li);
                      case Api::getopt_long_only: return getopt_long_only(argc, argv, s, l, li);
                    }
                    return -2;
                  });
}

// getopt_scan's state and public variables, kept from case to case as glibc keeps its own.
xsim::GetoptState g_state;
int g_optind = 1, g_opterr = 1, g_optopt = '?';
char* g_optarg = nullptr;

std::string with_xsim(const Case& c) {
  Side side(c);
  return run_case(c, side, g_optind, g_optarg, g_optopt, g_opterr,
                  [&](int argc, char** argv, const char* s, const option* l, int* li) {
                    xsim::GetoptCall call{s};
                    if (c.api == Api::getopt_long || c.api == Api::getopt_long_only) {
                      call.longopts = l;
                      call.longindex = li;
                      call.long_only = c.api == Api::getopt_long_only;
                    }
                    call.posix = c.api == Api::posix_getopt;
                    return xsim::getopt_scan(g_state, {g_optind, g_optarg, g_optopt, g_opterr}, argc, argv, call);
                  });
}

constexpr Api G = Api::getopt, P = Api::posix_getopt, L = Api::getopt_long, O = Api::getopt_long_only;

const std::vector<Case> kCases = {
    // short options
    {"plain", G, {"prog", "-a", "-b"}, "ab"},
    {"cluster", G, {"prog", "-abc", "x"}, "abc"},
    {"arg_attached", G, {"prog", "-ovalue", "-a"}, "ao:"},
    {"arg_separate", G, {"prog", "-o", "value", "-a"}, "ao:"},
    {"cluster_then_attached_arg", G, {"prog", "-abofile", "x"}, "abo:"},
    {"cluster_then_separate_arg", G, {"prog", "-abo", "file", "x"}, "abo:"},
    {"arg_looks_like_option", G, {"prog", "-o", "-a", "-a"}, "ao:"},
    {"missing_arg", G, {"prog", "-a", "-o"}, "ao:"},
    {"missing_arg_in_cluster", G, {"prog", "-ao"}, "ao:"},
    {"missing_arg_colon", G, {"prog", "-a", "-o"}, ":ao:"},
    {"missing_arg_opterr_0", G, {"prog", "-o"}, "o:", {}, 0},
    {"invalid", G, {"prog", "-x", "-a", "-yaz"}, "a"},
    {"invalid_colon", G, {"prog", "-x", "-a"}, ":a"},
    {"invalid_opterr_0", G, {"prog", "-x", "-a"}, "a", {}, 0},
    {"colon_is_no_option", G, {"prog", "-:", "-a"}, ":a"},
    {"semicolon_is_no_option", G, {"prog", "-;", "-a"}, "a;"},
    {"optional_arg", G, {"prog", "-ovalue", "-o", "value", "-o"}, "o::"},
    {"optional_arg_in_cluster", G, {"prog", "-aob", "-ao"}, "ao::b"},
    {"dash_alone_is_operand", G, {"prog", "-a", "-", "-b"}, "ab"},
    {"byte_above_127", G, {"prog", "-\xe9", "-\xe8"}, "\xe9"},
    // ordering
    {"permute", G, {"prog", "a", "-x", "b", "-y", "c"}, "xy"},
    {"permute_with_args", G, {"prog", "in1", "-o", "out", "in2", "in3", "-v", "in4"}, "o:v"},
    {"permute_long_runs", G, {"prog", "a", "b", "c", "-x", "d", "-y", "-x", "e", "f", "-y"}, "xy"},
    {"double_dash", G, {"prog", "-a", "--", "-b", "c"}, "ab"},
    {"double_dash_after_operands", G, {"prog", "x", "-a", "y", "--", "-b", "z"}, "ab"},
    {"double_dash_first", G, {"prog", "--", "-a"}, "ab"},
    {"double_dash_as_argument", G, {"prog", "-o", "--", "-a"}, "ao:"},
    {"plus_require_order", G, {"prog", "-a", "x", "-b"}, "+ab"},
    {"posixly_correct", G, {"prog", "-a", "x", "-b"}, "ab", {}, 1, true},
    {"posixly_correct_minus_wins", G, {"prog", "-a", "x", "-b"}, "-ab", {}, 1, true},
    {"posix_getopt", P, {"prog", "-a", "x", "-b"}, "ab"},
    {"posix_getopt_minus", P, {"prog", "x", "-a", "y"}, "-ab"},
    {"minus_return_in_order", G, {"prog", "x", "-a", "y", "-b", "z"}, "-ab"},
    {"plus_colon", G, {"prog", "-a", "x", "-o"}, "+:ao:"},
    {"colon_plus_plus_is_option", G, {"prog", "-+", "-a", "x"}, ":+a"},
    {"minus_colon", G, {"prog", "x", "-o"}, "-:o:"},
    // long options
    {"long_exact", L, {"prog", "--verbose", "--file", "x", "--file=y", "--size", "5"}, "", kLongs},
    {"long_prefix", L, {"prog", "--verb", "--vers", "--fi", "a", "--si=2"}, "", kLongs},
    {"long_ambiguous", L, {"prog", "--ver", "--v=1", "-a"}, "a", kLongs},
    {"long_ambiguous_silent", L, {"prog", "--ver", "-a"}, "a", kLongs, 0},
    {"long_ambiguous_colon", L, {"prog", "--ver"}, ":a", kLongs},
    {"long_same_abbreviation_not_ambiguous", L, {"prog", "--alph", "--alp"}, "", kLongs},
    {"long_unrecognized", L, {"prog", "--nope", "--nope=3", "-a"}, "a", kLongs},
    {"long_no_argument_allowed", L, {"prog", "--verbose=1", "--flag=", "x"}, "", kLongs},
    {"long_missing_argument", L, {"prog", "--file"}, "", kLongs},
    {"long_missing_argument_colon", L, {"prog", "--size"}, ":", kLongs},
    {"long_missing_argument_plus_colon", L, {"prog", "--file"}, "+:", kLongs},
    {"long_optional", L, {"prog", "--level", "--level=3", "--level", "4", "--lev="}, "", kLongs},
    {"long_flags", L, {"prog", "--flag", "--color", "--color=x", "--fl"}, "", kLongs},
    {"long_and_short_permuted", L, {"prog", "in", "-v", "--file", "f", "out", "--", "--verbose"}, "vf:", kLongs},
    {"long_return_in_order", L, {"prog", "x", "--verbose", "y", "--file", "z"}, "-", kLongs},
    {"long_require_order", L, {"prog", "--verbose", "y", "--file", "z"}, "+", kLongs},
    {"long_empty_name", L, {"prog", "--=x", "--"}, "", kLongs},
    {"long_empty_table", L, {"prog", "--verbose", "-a"}, "a", {}},
    {"long_null_table", L, {"prog", "--verbose", "-a"}, "a", {}, 1, false, {}, -1, true},
    // getopt_long_only
    {"long_only_words", O, {"prog", "-verbose", "-file", "x", "-size=3"}, "", kLongs},
    {"long_only_short_wins_alone", O, {"prog", "-f", "x", "-fi", "y"}, "f:", kLongs},
    {"long_only_falls_back_to_cluster", O, {"prog", "-qz", "-qzq"}, "qz", kLongs},
    {"long_only_unrecognized", O, {"prog", "-zzz", "--zzz", "-q"}, "q", kLongs},
    {"long_only_same_abbreviation_ambiguous", O, {"prog", "-alph", "--alph"}, "", kLongs},
    {"long_only_double_dash_prefix", O, {"prog", "--verb", "-verb", "-vers", "-v"}, "v", kLongs},
    {"long_only_invalid_single", O, {"prog", "-x"}, "a", kLongs},
    // -W name
    {"w_semicolon", L, {"prog", "-W", "verbose", "-Wfile=x", "-W", "file", "y", "-Wver"}, "W;", kLongs},
    {"w_semicolon_missing", L, {"prog", "-W"}, "W;", kLongs},
    {"w_semicolon_missing_colon", L, {"prog", "-W"}, ":W;", kLongs},
    {"w_semicolon_unknown", L, {"prog", "-Wnope", "-aW", "verb"}, "aW;", kLongs},
    {"w_semicolon_plain_getopt", G, {"prog", "-W", "x"}, "W;"},
    // the caller moves optind
    {"restart_with_optind_0", G, {"prog", "x", "-a", "y", "-b"}, "ab", {}, 1, false, {{2, 0}}},
    {"restart_with_optind_1", G, {"prog", "-a", "-b"}, "ab", {}, 1, false, {{3, 1}}},
    {"optind_moved_back", G, {"prog", "x", "-a", "y", "-b", "z", "-a"}, "ab", {}, 1, false, {{2, 1}}},
    {"optind_skips_ahead", G, {"prog", "-a", "-b", "-a", "-b"}, "ab", {}, 1, false, {{1, 3}}},
    {"optind_0_mid_cluster", G, {"prog", "-abab", "-a"}, "ab", {}, 1, false, {{1, 0}}},
    {"argc_0", G, {"prog", "-a"}, "a", {}, 1, false, {}, 0},
    {"argc_short", G, {"prog", "-a", "x", "-b", "-a"}, "ab", {}, 1, false, {}, 3},
    {"argv0_only", L, {"prog"}, "a", kLongs},
};

class SameAsGlibc : public testing::TestWithParam<Case> {};

TEST_P(SameAsGlibc, CallByCall) {
  const Case& c = GetParam();
  const std::string glibc = with_glibc(c);
  const std::string ours = with_xsim(c);
  EXPECT_EQ(ours, glibc);
  // The same for the second of two scans in a row (state left by the first).
  EXPECT_EQ(with_xsim(c), with_glibc(c));
}

INSTANTIATE_TEST_SUITE_P(getopt, SameAsGlibc, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(getopt, CasesCoverEveryApiAndEnough) {
  EXPECT_GE(kCases.size(), 40u);
  int per_api[4] = {0, 0, 0, 0};
  for (const Case& c : kCases) ++per_api[static_cast<int>(c.api)];
  for (int n : per_api) EXPECT_GT(n, 0);
}

// What glibc's results are, spelled out (so that the comparison above compares two right answers).
TEST(getopt, PermutesAndReportsLikeGlibc) {
  const Case c{"x", G, {"prog", "a", "-x", "b", "-q", "-y", "c"}, "xy"};
  const std::string out = with_xsim(c);
  EXPECT_NE(out.find("argv: 0 2 4 5 1 3 6 \n"), std::string::npos) << out;
  EXPECT_NE(out.find("call 4: return -1, optind 4,"), std::string::npos) << out;
  EXPECT_NE(out.find("stderr:\nprog: invalid option -- 'q'\n"), std::string::npos) << out;
  const Case l{"l", L, {"prog", "--ver"}, "", kLongs};
  EXPECT_NE(with_xsim(l).find("prog: option '--ver' is ambiguous; possibilities: '--verbose' '--version'\n"),
            std::string::npos);
}

// Two scans with states of their own interleave without disturbing each other (what glibc's cannot do).
TEST(getopt, IndependentStatesInterleave) {
  char a0[] = "p", a1[] = "-ab", a2[] = "x", a3[] = "-c";
  char b0[] = "q", b1[] = "y", b2[] = "-cba";
  char* av[] = {a0, a1, a2, a3, nullptr};
  char* bv[] = {b0, b1, b2, nullptr};
  xsim::GetoptState sa, sb;
  int ia = 1, ib = 1, oa = 0, ob = 0, ea = 0, eb = 0;
  char *pa = nullptr, *pb = nullptr;
  std::string got;
  for (int k = 0; k < 4; ++k) {
    got += std::to_string(xsim::getopt_scan(sa, {ia, pa, oa, ea}, 4, av, {"abc"})) + " ";
    got += std::to_string(xsim::getopt_scan(sb, {ib, pb, ob, eb}, 3, bv, {"abc"})) + " ";
  }
  EXPECT_EQ(got, "97 99 98 98 99 97 -1 -1 ");
  EXPECT_EQ(ia, 3);
  EXPECT_EQ(ib, 2);
  EXPECT_STREQ(av[3], "x");
  EXPECT_STREQ(bv[2], "y");
}

}  // namespace
