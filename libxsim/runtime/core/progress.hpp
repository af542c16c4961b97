// Progress: the progress line of long runs on stderr (-xsim-progress, docs/observability.md): virtual time
// reached, ranks finished, messages per second, host time. Only native process 0 has one; the engine
// calls it from the scheduler (cheap: a counter, and a look at the host clock every 1024 resumes) and after
// every window exchange (with the global numbers). The first line comes after half a second of host time;
// then at most 4 lines a second on a terminal (rewriting one line) and one a second otherwise; a log ends
// with the final line.
// Layer: libxsim/runtime/core (xsim_core).
#pragma once
#include <cstdint>
#include <cstdio>

#include "xsim/simtime.hpp"

namespace xsim {

class Engine;

class Progress {
 public:
  // `terminal`: stderr is a terminal (rewrite one line with \r) rather than a log (one line each time).
  Progress(const Engine& e, bool terminal, FILE* out = stderr);
  // Scheduler: resuming a rank at virtual time `now`.
  void on_resume(SimTime now) {
    if ((++ticks_ & 1023) == 0) check(now);
  }
  // After a window exchange: the global next event time, unfinished ranks and messages sent so far.
  void on_window(SimTime next, int64_t unfinished, int64_t messages);
  // End of the run: the final line (a log: always, however short the run) or a cleared line (a terminal).
  void finish();
  int lines() const { return lines_; }

 private:
  void check(SimTime now);
  void print(double wall);
  const Engine& e_;
  bool terminal_;
  FILE* out_;
  uint64_t ticks_ = 0;
  double start_, last_ = 0, last_messages_ = 0, next_due_;
  SimTime now_;
  int64_t unfinished_ = -1, messages_ = -1;  // global, from the last window (-1: one process, count here)
  int lines_ = 0;
};

}  // namespace xsim
