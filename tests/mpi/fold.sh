#!/usr/bin/env bash
# Memory folding (docs/real-programs.md "Memory folding"): fold.sh PROGRAM NP ITERS runs tests/mpi/fold.cpp
# on NP virtual ranks under -xsim-cpu none, with -xsim-fold 1M ("fold", the private backing), -xsim-fold
# 1M:shared ("shared") and without ("plain"), each on 1 and 2 native processes. Every run must exit 0 (the program checks its own memory), the four runs must print the
# same lines (the messages' exact virtual times among them), and the report of each folded run must count
# folded allocations and folded messages (so that the test cannot pass with folding silently off).
set -u
prog=$1 np=$2 iters=$3
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
first=""
for mode in plain fold shared; do
  for n in 1 2; do
    args=(-xsim-np "$np" -xsim-cpu none)
    [ "$mode" = fold ] && args+=(-xsim-fold 1M)
    [ "$mode" = shared ] && args+=(-xsim-fold 1M:shared)
    if ! timeout 300 "$MPIEXEC" -np "$n" "$prog" "$mode" "$iters" "${args[@]}" >"$tmp/out" 2>"$tmp/err"; then
      echo "FAIL: $mode run on $n native processes exited $?"; cat "$tmp/out" "$tmp/err"; exit 1
    fi
    if [ "$mode" != plain ] && ! grep -Eq "memory folding +[1-9][0-9]* allocations of 1 MiB or more folded.* [1-9][0-9]* messages carried only" "$tmp/err"; then
      echo "FAIL: no folded allocations or messages in the report ($n native processes)"; cat "$tmp/err"; exit 1
    fi
    sort "$tmp/out" >"$tmp/sorted.$mode.$n"
    if [ -z "$first" ]; then
      first=$mode.$n
    elif ! diff -u "$tmp/sorted.$first" "$tmp/sorted.$mode.$n"; then
      echo "FAIL: output of $mode on $n native processes differs from $first"; exit 1
    fi
  done
done
grep -q "all checks passed" "$tmp/sorted.$first" || { echo "FAIL: no verdict"; exit 1; }
echo "fold.sh: plain and folded runs on 1 and 2 native processes agree ($(wc -l <"$tmp/sorted.$first") lines)"
