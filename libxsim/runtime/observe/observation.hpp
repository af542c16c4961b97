// Observation of a run (docs/observability.md): the trace (-xsim-trace: OTF2 archive and Chrome JSON) and
// the statistics (-xsim-stats: per rank, per MPI function, communication matrix). While ranks run, each
// native process records its own ranks (the engine and the call guard call the Observer hooks); at the end
// finish() merges every process's part into one trace and one set of statistics files, written by native
// process 0 (the OTF2 event files by each process into the shared archive). Also the progress line.
// Layer: libxsim/runtime/observe (xsim_observing). Created and finished by startup.cpp on the native thread.
#pragma once
#include <memory>

namespace xsim {

struct Options;
class Engine;
class Observation;
class Progress;

// What startup holds for the run: null members when the options turn that part off.
struct Observing {
  std::unique_ptr<Observation> observation;
  std::unique_ptr<Progress> progress;
  Observing();
  Observing(Observing&&) noexcept;
  ~Observing();
};

// Collective over the native processes. Checks the output paths (throws ConfigError naming the option when
// one cannot be written) and attaches what the options ask for to `e`.
Observing observe_begin(const Options& opt, Engine& e);
// Collective. Detaches from `e` and writes the files. Returns false when a file could not be written
// (the reason was printed).
bool observe_end(Observing& o, Engine& e);

}  // namespace xsim
