#!/usr/bin/env bash
# Cost of privatized globals (docs/privatization.md): time per context switch with privatization off, by
# copying and by mapping, for 4 KiB, 64 KiB, 256 KiB, 1 MiB and 64 MiB of globals (bench/privatize_seg.c:
# 16 ranks in a ring, one native process, every message a switch to another rank; each rank writes one
# page of its globals between messages, or every page); then the ring example at 16,384 ranks and hello
# and priv_counters (tests/mpi, 4 KiB of globals) at 65,536 ranks, with privatization on (auto: their few
# hundred bytes or few KiB are copied) and off.
# Each case runs REPEAT times (default 3) and the fastest run counts: the machine may be shared.
# Usage: bench/privatize.sh [BUILD_DIR]   (default: build). About two minutes on 2 cores.
set -euo pipefail
BUILD=${1:-build}
REPEAT=${REPEAT:-3}
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
[ -x "$BUILD/bench/privatize_seg_4k" ] || { echo "build first: cmake --build $BUILD" >&2; exit 1; }

field() { grep "xsim: $1" "$2" | head -1; }
# best PROGRAM ARGS... -> "wall switches us_per_switch rss_kib_per_rank" of the fastest of REPEAT runs
# (microseconds per switch from the report's switch rate, which has three significant digits)
best() {
  local log bw="" bs="" bu="" bk="" w s u k
  log=$(mktemp)
  for _ in $(seq "$REPEAT"); do
    "$MPIEXEC" -np 1 "$@" -xsim-cpu none > /dev/null 2> "$log" || true  # (shared globals may fail a check)
    w=$(field "simulator wall time" "$log" | awk '{print $5}')
    s=$(field "context switches" "$log" | awk '{print $4}')
    u=$(field "context switches" "$log" | sed 's/.*(\(.*\) per second)/\1/' | awk '{printf "%.3f", 1e6/$1}')
    k=$(field "peak memory" "$log" | sed 's/.* \([0-9.]*\) KiB per virtual rank/\1/')
    if [ -z "$bu" ] || awk -v a="$u" -v b="$bu" 'BEGIN{exit !(a<b)}'; then bw=$w bs=$s bu=$u bk=$k; fi
  done
  rm -f "$log"
  echo "$bw $bs $bu $bk"
}

echo "Time per context switch (16 ranks, one native process; us = microseconds)"
printf '%-8s %-6s %-8s %7s %9s %9s %11s %13s\n' globals touch method rounds switches wall_s us/switch extra_us/switch
# size suffix : label : touch : rounds for off,copy,map (64 MiB copies take ~10 ms a switch: fewer rounds)
for spec in 4k:4KiB:one:5000,5000,2000 64k:64KiB:one:2000,2000,1000 256k:256KiB:one:1000,1000,500 \
            1m:1MiB:one:1000,300,300 64m:64MiB:one:1000,8,300 1m:1MiB:all:300,100,100 64m:64MiB:all:10,2,2; do
  IFS=: read -r suffix label touch counts <<< "$spec"
  IFS=, read -r -a rounds <<< "$counts"
  base=""
  i=0
  for method in off copy map; do
    r=${rounds[$i]}
    i=$((i + 1))
    read -r wall sw per _ <<< "$(best "$BUILD/bench/privatize_seg_$suffix" "$r" "$touch" -xsim-np 16 -xsim-privatize=$method)"
    [ -z "$base" ] && base=$per
    extra=$(awk -v p="$per" -v b="$base" 'BEGIN{printf "%.3f", p-b}')
    [ "$method" = off ] && extra=-
    printf '%-8s %-6s %-8s %7s %9s %9s %11s %13s\n' "$label" "$touch" "$method" "$r" "$sw" "$wall" "$per" "$extra"
  done
done

echo
echo "Examples with small globals, privatization on (auto) and off"
printf '%-30s %-5s %10s %9s %11s %10s\n' case priv switches wall_s us/switch KiB/rank
for spec in "ring 16384 ranks x 64 rounds|examples/ring 64 -xsim-np 16384" "hello 65536 ranks|examples/hello -xsim-np 65536" \
            "priv_counters 65536 ranks|tests/mpi/priv_counters 1 -xsim-np 65536"; do
  name=${spec%%|*} args=${spec#*|}
  prog=${args%% *} rest=${args#* }
  for p in on off; do
    # shellcheck disable=SC2086
    read -r wall sw per kib <<< "$(best "$BUILD/$prog" $rest -xsim-privatize=$p)"
    printf '%-30s %-5s %10s %9s %11s %10s\n' "$name" "$p" "$sw" "$wall" "$per" "$kib"
  done
done
