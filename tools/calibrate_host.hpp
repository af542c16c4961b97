// xsim-calibrate's one-process modes, without MPI (docs/real-programs.md "Kernel calibration", "Node
// model"):
//   xsim-calibrate --kernels [--node] [--blas LIB] [--quick] [--budget SECONDS] --out FILE.toml
//   xsim-calibrate --node --out FILE.toml
// --kernels times the BLAS and fits the [kernels] model; --node times the node loops and writes [node].
#pragma once

namespace xsim::calibrate {

// True when argv asks for a one-process mode (--kernels or --node): then host_main runs instead of MPI.
bool host_mode(int argc, char** argv);
// Runs it; returns the exit status (0, 1 when a measurement or the file fails, 2 for bad arguments).
int host_main(int argc, char** argv);

}  // namespace xsim::calibrate
