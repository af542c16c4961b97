#!/usr/bin/env bash
# Poisson noise drawn with two seeds gives other virtual times (tests/mpi/noise.cmake). Usage: seed_differs.sh PROGRAM
set -u
prog=$1
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
a=$("$MPIEXEC" -np 1 "$prog" -xsim-np 4 -xsim-cpu none -xsim-noise poisson:10kHz:20us -xsim-seed 1 -xsim-report off | sort) || exit 1
b=$("$MPIEXEC" -np 1 "$prog" -xsim-np 4 -xsim-cpu none -xsim-noise poisson:10kHz:20us -xsim-seed 2 -xsim-report off | sort) || exit 1
[ -n "$a" ] || { echo "FAIL: no output"; exit 1; }
if [ "$a" = "$b" ]; then echo "FAIL: seeds 1 and 2 gave the same times"; echo "$a"; exit 1; fi
echo "ok: seeds 1 and 2 differ"
