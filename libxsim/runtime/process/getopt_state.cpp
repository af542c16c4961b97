// getopt_scan (getopt_state.hpp): GNU getopt's rules on an explicit state. Layer: libxsim/runtime/process (xsim_getopt).
#include "getopt_state.hpp"

#include <libintl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace xsim {
namespace {

// glibc's messages, in the language libc's own would use.
const char* text(const char* msgid) { return dgettext("libc", msgid); }

// argv element `a` is an operand: it does not start with '-', or it is "-" alone.
bool is_operand(const char* a) { return a[0] != '-' || a[1] == '\0'; }

// One call in progress.
struct Scan {
  GetoptState& s;
  int argc;
  char** argv;
  const char* opts;  // the optstring past a leading '+' or '-' (a ':' stays: it is never an option)
  const GetoptCall& call;
  bool report;       // print messages: opterr set and no leading ':'
  int ind;           // optind

  // The operands skipped so far, argv[first_nonopt..last_nonopt), move behind the options that follow them,
  // argv[last_nonopt..ind): one rotation, which leaves both groups in their order.
  void move_operands_behind() {
    std::rotate(argv + s.first_nonopt, argv + s.last_nonopt, argv + ind);
    s.first_nonopt += ind - s.last_nonopt;
    s.last_nonopt = ind;
  }

  int missing_argument_code() const { return opts[0] == ':' ? ':' : '?'; }

  int long_option(const char* prefix, bool long_only);
  const option* match_long(const char* name, size_t len, bool long_only, int* index, bool* ambiguous) const;
  int short_option();
  int next_argument();
};

// Whether abbreviation `o` does something else than `first` (for getopt_long_only, any second one does).
bool differs(const option& o, const option& first, bool long_only) {
  return long_only || o.has_arg != first.has_arg || o.flag != first.flag || o.val != first.val;
}

// The long option `name` (its first `len` characters) names: the exact match, else the first option it
// abbreviates (*index: its place); *ambiguous when another abbreviation differs from that one.
const option* Scan::match_long(const char* name, size_t len, bool long_only, int* index, bool* ambiguous) const {
  const option* longs = call.longopts;
  *ambiguous = false;
  for (int i = 0; longs[i].name; ++i)
    if (std::strlen(longs[i].name) == len && !std::strncmp(longs[i].name, name, len)) {
      *index = i;
      return &longs[i];
    }
  const option* found = nullptr;
  for (int i = 0; longs[i].name; ++i) {
    if (std::strncmp(longs[i].name, name, len)) continue;
    if (!found) {
      found = &longs[i];
      *index = i;
    } else if (differs(longs[i], *found, long_only)) {
      *ambiguous = true;
    }
  }
  return found;
}

// s.next holds "name" or "name=value" (after "--", "-" or "-W "): an exact match of the name wins, else the one
// option it abbreviates. Returns -1 (nothing consumed) when getopt_long_only should read "-name" as short
// options instead.
int Scan::long_option(const char* prefix, bool long_only) {
  char* name = s.next;
  char* end = name;
  while (*end && *end != '=') ++end;
  const size_t len = static_cast<size_t>(end - name);
  const option* longs = call.longopts;
  int index = -1;
  bool ambiguous = false;
  const option* found = match_long(name, len, long_only, &index, &ambiguous);
  if (ambiguous) {
    if (report) {
      flockfile(stderr);
      std::fprintf(stderr, text("%s: option '%s%s' is ambiguous; possibilities:"), argv[0], prefix, name);
      for (int i = 0; longs[i].name; ++i)
        if (!std::strncmp(longs[i].name, name, len) && (i == index || differs(longs[i], *found, long_only)))
          std::fprintf(stderr, " '%s%s'", prefix, longs[i].name);
      std::fprintf(stderr, "\n");
      funlockfile(stderr);
    }
    s.next = end + std::strlen(end);
    ++ind;
    s.optopt = 0;
    return '?';
  }
  if (!found) {
    if (!long_only || argv[ind][1] == '-' || !std::strchr(opts, *name)) {
      if (report) std::fprintf(stderr, text("%s: unrecognized option '%s%s'\n"), argv[0], prefix, name);
      s.next = nullptr;
      ++ind;
      s.optopt = 0;
      return '?';
    }
    return -1;  // getopt_long_only: "-abc" where 'a' is a short option
  }

  ++ind;
  s.next = nullptr;
  if (*end == '=') {
    if (!found->has_arg) {
      if (report)
        std::fprintf(stderr, text("%s: option '%s%s' doesn't allow an argument\n"), argv[0], prefix, found->name);
      s.optopt = found->val;
      return '?';
    }
    s.optarg = end + 1;
  } else if (found->has_arg == required_argument) {
    if (ind >= argc) {
      if (report)
        std::fprintf(stderr, text("%s: option '%s%s' requires an argument\n"), argv[0], prefix, found->name);
      s.optopt = found->val;
      return missing_argument_code();
    }
    s.optarg = argv[ind++];
  }
  if (call.longindex) *call.longindex = index;
  if (found->flag) {
    *found->flag = found->val;
    return 0;
  }
  return found->val;
}

// The next character of the current cluster ("-abc": a, then b, then c).
int Scan::short_option() {
  const char c = *s.next++;  // char, as glibc's: bytes above 127 come back negative
  const char* spec = std::strchr(opts, c);
  if (*s.next == '\0') ++ind;  // the cluster's last character: optind moves on now

  if (!spec || c == ':' || c == ';') {
    if (report) std::fprintf(stderr, text("%s: invalid option -- '%c'\n"), argv[0], c);
    s.optopt = c;
    return '?';
  }
  const bool takes_arg = spec[1] == ':';
  const bool optional = takes_arg && spec[2] == ':';
  const bool w_long = spec[0] == 'W' && spec[1] == ';' && call.longopts;  // "-W name" is "--name"
  if (!takes_arg && !w_long) return c;

  if (optional) {
    // Only "-ovalue": "-o value" leaves value an operand.
    if (*s.next != '\0') {
      s.optarg = s.next;
      ++ind;
    }
    s.next = nullptr;
    return c;
  }
  char* value = nullptr;
  if (*s.next != '\0') {
    value = s.next;  // "-ovalue"
    if (!w_long) ++ind;
  } else if (ind == argc) {
    if (report) std::fprintf(stderr, text("%s: option requires an argument -- '%c'\n"), argv[0], c);
    s.optopt = c;
    s.next = nullptr;
    return missing_argument_code();
  } else {
    value = w_long ? argv[ind] : argv[ind++];  // "-o value" (-W: the long option consumes it)
  }
  if (w_long) {
    s.next = value;
    return long_option("-W ", false);
  }
  s.optarg = value;
  s.next = nullptr;
  return c;
}

// The scan has used up its current argument: find the next option, skipping (and permuting) operands.
int Scan::next_argument() {
  // The caller may have moved optind back: keep the skipped operands' range inside what is scanned.
  s.last_nonopt = std::min(s.last_nonopt, ind);
  s.first_nonopt = std::min(s.first_nonopt, ind);

  if (s.order == GetoptOrder::permute) {
    if (s.first_nonopt != s.last_nonopt && s.last_nonopt != ind)
      move_operands_behind();
    else if (s.last_nonopt != ind)
      s.first_nonopt = ind;
    while (ind < argc && is_operand(argv[ind])) ++ind;
    s.last_nonopt = ind;
  }

  // "--" ends the options: it counts as one itself, whatever follows counts as operands.
  if (ind != argc && !std::strcmp(argv[ind], "--")) {
    ++ind;
    if (s.first_nonopt != s.last_nonopt && s.last_nonopt != ind)
      move_operands_behind();
    else if (s.first_nonopt == s.last_nonopt)
      s.first_nonopt = ind;
    s.last_nonopt = argc;
    ind = argc;
  }

  if (ind == argc) {
    if (s.first_nonopt != s.last_nonopt) ind = s.first_nonopt;  // the operands, gathered at the end
    return -1;
  }
  if (is_operand(argv[ind])) {
    if (s.order == GetoptOrder::require_order) return -1;
    s.optarg = argv[ind++];
    return 1;
  }

  const char* arg = argv[ind];
  if (call.longopts) {
    if (arg[1] == '-') {
      s.next = argv[ind] + 2;
      return long_option("--", call.long_only);
    }
    // getopt_long_only: "-name" is a long option unless it is a single valid short option ("-f").
    if (call.long_only && (arg[2] || !std::strchr(opts, arg[1]))) {
      s.next = argv[ind] + 1;
      const int code = long_option("-", true);
      if (code != -1) return code;
    }
  }
  s.next = argv[ind] + 1;
  return short_option();
}

}  // namespace

int getopt_scan(GetoptState& state, GetoptVars vars, int argc, char** argv, const GetoptCall& call) {
  int ind = vars.optind;
  int result = -1;
  if (argc >= 1) {
    state.optarg = nullptr;
    const char* opts = call.optstring;
    if (ind == 0 || !state.initialized) {
      // A new scan from argv[1] (or from optind when the caller set it to more than 1).
      if (ind == 0) ind = 1;
      state.first_nonopt = state.last_nonopt = ind;
      state.next = nullptr;
      if (opts[0] == '-') {
        state.order = GetoptOrder::return_in_order;
        ++opts;
      } else if (opts[0] == '+') {
        state.order = GetoptOrder::require_order;
        ++opts;
      } else {
        state.order = call.posix || std::getenv("POSIXLY_CORRECT") ? GetoptOrder::require_order
                                                                    : GetoptOrder::permute;
      }
      state.initialized = true;
    } else if (opts[0] == '-' || opts[0] == '+') {
      ++opts;
    }
    Scan scan{state, argc, argv, opts, call, vars.opterr != 0 && opts[0] != ':', ind};
    result = state.next && *state.next ? scan.short_option() : scan.next_argument();
    ind = scan.ind;
  }
  vars.optind = ind;
  vars.optarg = state.optarg;
  vars.optopt = state.optopt;
  return result;
}

}  // namespace xsim
