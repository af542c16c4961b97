#include "progress.hpp"

#include <time.h>

#include <string>

#include "engine.hpp"
#include "host_clock.hpp"
#include "xsim/units.hpp"

namespace xsim {

namespace {
constexpr double kFirst = 0.5;  // seconds of host time before the first line
}  // namespace

Progress::Progress(const Engine& e, bool terminal, FILE* out)
    : e_(e), terminal_(terminal), out_(out), start_(host_now()), next_due_(start_ + kFirst) {
  last_ = start_;
}

void Progress::check(SimTime now) {
  if (now > now_ && now != SimTime::infinity()) now_ = now;
  double t = host_now();
  if (t >= next_due_) print(t);
}

void Progress::on_window(SimTime next, int64_t unfinished, int64_t messages) {
  unfinished_ = unfinished;
  messages_ = messages;
  check(next);
}

void Progress::print(double wall) {
  int64_t unfinished = unfinished_, messages = messages_;
  if (messages < 0) {  // one native process: everything is here
    unfinished = e_.unfinished_local();
    messages = static_cast<int64_t>(e_.messages_sent());
  }
  const double dt = wall - last_;
  const double rate = dt > 0 ? (static_cast<double>(messages) - last_messages_) / dt : 0.0;
  last_ = wall;
  last_messages_ = static_cast<double>(messages);
  next_due_ = wall + (terminal_ ? 0.25 : 1.0);
  std::string line = "xsim: progress: virtual time " + format_time(now_) + " | ranks finished " +
                     std::to_string(e_.world_size() - unfinished) + "/" + std::to_string(e_.world_size()) +
                     " | " + std::to_string(messages) + " messages";
  char buf[96];
  std::snprintf(buf, sizeof buf, " | %.3g messages/s | host time %.1f s", rate, wall - start_);
  line += buf;
  if (terminal_) std::fprintf(out_, "\r%s\033[K", line.c_str());
  else std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
  ++lines_;
}

void Progress::finish() {
  if (terminal_) {
    if (lines_ == 0) return;
    std::fputs("\r\033[K", out_);  // the report follows on a clean line
  } else {
    // A log always ends with the final state, even for a run shorter than the first line's half second.
    // One process counts here; several have the global numbers of the last window exchange, which are
    // final (the run ends when that exchange finds no unfinished rank or no next event).
    if (e_.nprocs() == 1) {
      unfinished_ = -1;
      messages_ = -1;
    }
    print(host_now());
  }
  std::fflush(out_);
}

}  // namespace xsim
