#!/usr/bin/env bash
# Growth, not single points: how wall, user and system time and memory per rank grow with the rank count,
# and how the CPU cost of one simulated message grows, on whatever machine this runs on.
#
# Programs: plain-MPICH binaries that know nothing of xsim, compiled here with mpicc.mpich into a temporary
# folder and run under LD_PRELOAD of BUILD_DIR's libxsim.so, on ONE native process, -xsim-cpu none:
#   hello      MPI_Init, MPI_Barrier, MPI_Finalize (the barrier is replayed: -xsim-coll-replay on)
#   ring       a token passed around all ranks ROUNDS times (one rank runnable at a time)
#   allreduce  one MPI_Allreduce of one double
#   init       MPI_Init, MPI_Finalize (only the start-up baseline of table 2)
#
# Table 1 (growth): each program at SIZES (default 262144 1048576 2097152): wall, user and sys seconds of the
# whole mpiexec run (bash's time, ms), KiB per rank (the run report's peak RSS / ranks), the report's
# messages and simulator wall time (engine run), minor page faults (/usr/bin/time) and sys time per fault
# (first touches of memory cost most of the sys time at 2 M ranks); then, between consecutive sizes, the growth factors and
# "CPU/rank x": CPU growth over rank growth (1.00 = linear; above 1 = super-linear).
# Table 2 (cost per message): user+sys CPU ns per simulated message (report's "messages") for ring at
# COST_SIZES (default 1024 16384 262144 1048576), rounds = max(4, 4194304 / ranks) so that every size sends
# ~4 M messages, and for hello's replayed barrier at the same sizes; "all_ns" is the whole run's CPU /
# messages, "marg_ns" leaves the start-up out: ring (CPU(R rounds) - CPU(1 round)) / (msgs(R) - msgs(1)),
# hello (CPU(hello) - CPU(init)) / (msgs(hello) - msgs(init)). Ratios largest / smallest size at the end.
#
# Every run is bounded (TIMEOUT seconds, default 300) and skipped, with a note, when its estimate (KiB per
# rank of the program's largest run so far, else 8, x ranks x 1.25) exceeds MemAvailable. Prints the CPU
# model, the load averages before every run, the git commit of the tree and the library's build time.
# Usage: bench/growth.sh BUILD_DIR [SIZES...]
# Environment: PROGS ("hello ring allreduce"), ROUNDS (ring rounds in table 1, 4), COST_SIZES,
#   COST=0 (skip table 2), REPS (runs per case, least CPU kept; 1), TIMEOUT (300), MPICC (mpicc.mpich).
# About 2 minutes with the defaults on the 2-core development machine at load 2-4 (2,097,152 ranks need
# ~10 GiB). The library is copied at the start, so a rebuild of BUILD_DIR meanwhile does not break the runs.
set -uo pipefail
TIMEFORMAT='%3R %3U %3S'
BUILD=$(cd "${1:?usage: bench/growth.sh BUILD_DIR [SIZES...]}" && pwd) || exit 1
shift
SIZES=${*:-262144 1048576 2097152}
PROGS=${PROGS:-hello ring allreduce}
ROUNDS=${ROUNDS:-4}
COST_SIZES=${COST_SIZES:-1024 16384 262144 1048576}
COST=${COST:-1}
REPS=${REPS:-1}
TIMEOUT=${TIMEOUT:-300}
MPICC=${MPICC:-mpicc.mpich}
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/bench/lib.sh"
BUILD_LIB=$BUILD/libxsim/runtime/libxsim.so
[ -e "$BUILD_LIB" ] || { echo "growth: no $BUILD_LIB (build first: cmake --build $BUILD)" >&2; exit 1; }
command -v "$MPICC" > /dev/null || { echo "growth: $MPICC not found" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "growth: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/growth.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# A copy of the library: a rebuild of BUILD_DIR during the runs (a shared tree) must not change or break them.
LIB=$WORK/libxsim.so
cp "$(readlink -f "$BUILD_LIB")" "$LIB" || exit 1
cat > "$WORK/hello.c" << 'EOF'
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
EOF
cat > "$WORK/init.c" << 'EOF'
#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
EOF
cat > "$WORK/ring.c" << 'EOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {  /* ring ROUNDS: a token around all ranks ROUNDS times */
  MPI_Init(&argc, &argv);
  int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 4, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int r = 0; r < rounds; ++r) {
    if (rank == 0) {
      ++token;
      MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
    }
  }
  if (rank == 0 && token != rounds) { printf("ring: token %d, expected %d\n", token, rounds); return 1; }
  MPI_Finalize();
  return 0;
}
EOF
cat > "$WORK/allreduce.c" << 'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {  /* one MPI_Allreduce of one double */
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double x = rank, sum = 0;
  MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (sum != (double)size * (size - 1) / 2) { printf("allreduce: rank %d got %.17g\n", rank, sum); return 1; }
  MPI_Finalize();
  return 0;
}
EOF
for p in hello init ring allreduce; do
  "$MPICC" -O2 "$WORK/$p.c" -o "$WORK/$p" 2> "$WORK/cc-$p.log" ||
    { echo "growth: $MPICC failed on $p.c:" >&2; cat "$WORK/cc-$p.log" >&2; exit 1; }
done

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
mem_avail_kib() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }
commit=$(git -C "$SRC" rev-parse --short HEAD 2> /dev/null || echo unknown)
dirty=$(git -C "$SRC" status --porcelain --untracked-files=no 2> /dev/null | wc -l)
echo "# bench/growth.sh $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# tree: $SRC at $commit$([ "$dirty" -gt 0 ] && echo " (+ $dirty modified tracked files)")"
echo "# library: $BUILD_LIB, built $(date -u -r "$(readlink -f "$BUILD_LIB")" '+%Y-%m-%d %H:%M UTC') (a copy of it is run)"
echo "# CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs;" \
  "memory: $(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) total," \
  "$(awk '/^MemAvailable:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) available"
echo "# load average (1, 5, 15 min) at the start: $(loadavg)"
echo "# one native process, -xsim-cpu none, plain mpicc.mpich binaries under LD_PRELOAD; timeout ${TIMEOUT}s per run;"
echo "# wall/user/sys: the whole mpiexec run (bash time, ms); minflt_k: minor page faults (thousands, /usr/bin/time);"
echo "# sys_us/flt: sys time per minor fault (first touches of memory: zeroed pages, page tables)"

declare -A RES=()   # "prog ranks args" -> "wall user sys kib msgs simwall load" | "skip: why"
declare -A KIB_AT=()  # prog -> "ranks KiB/rank" of its largest run so far ("all": of any program)
# kib_est PROG: KiB per rank to expect at a larger size (the program's largest run, else any program's, else 8)
kib_est() { local e=${KIB_AT[$1]:-${KIB_AT[all]:-0 8}}; echo "${e#* }"; }
note_kib() {  # PROG RANKS KIB
  local k
  for k in "$1" all; do
    if [ "${KIB_AT[$k]:-0 0}" = "0 0" ] || [ "$2" -ge "${KIB_AT[$k]%% *}" ]; then KIB_AT[$k]="$2 $3"; fi
  done
}
# run_case PROG RANKS [ARGS]: runs (or recalls) one case, sets RES
run_case() {
  local prog=$1 m=$2 args=${3:-} key="$1 $2 ${3:-}"
  [ -n "${RES[$key]:-}" ] && return
  local est need avail
  est=$(kib_est "$prog")
  need=$(awk -v k="$est" -v m="$m" 'BEGIN{printf "%d", k * m * 1.25}')
  avail=$(mem_avail_kib)
  if [ "$need" -gt "$avail" ]; then
    RES[$key]="skip: needs ~$((need / 1048576)) GiB (${est} KiB/rank x 1.25), $((avail / 1048576)) GiB available"
    return
  fi
  local best="" i log tim rc load w u s cpu msgs kib sim flt
  for ((i = 0; i < REPS; ++i)); do
    log=$WORK/run.log tim=$WORK/run.time
    load=$(cut -d' ' -f1 /proc/loadavg)
    # wall, user, sys in ms (bash's time: /usr/bin/time has 10 ms), minor page faults from /usr/bin/time
    # shellcheck disable=SC2086
    { time /usr/bin/time -f '%R' -o "$WORK/run.faults" timeout -k 10 "$TIMEOUT" "$MPIEXEC" -np 1 \
        -env LD_PRELOAD "$LIB" "$WORK/$prog" $args -xsim-np "$m" -xsim-cpu none > "$WORK/run.out" 2> "$log"; } \
      2> "$tim"
    rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then RES[$key]="skip: timeout after ${TIMEOUT}s"; return; fi
    msgs=$(report_msgs "$log")
    if [ $rc -ne 0 ] || [ -z "$msgs" ]; then
      RES[$key]="skip: failed (exit $rc): $(cat "$WORK/run.out" "$log" | grep -v '^xsim: ' | tail -1 | cut -c1-100)"
      return
    fi
    read -r w u s < <(tail -1 "$tim")
    kib=$(report_kib "$log"); sim=$(report_wall "$log"); flt=$(tail -1 "$WORK/run.faults")
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}')
    if [ -z "$best" ] || awk -v a="$cpu" -v b="${best%% *}" 'BEGIN{exit !(a < b)}'; then
      best="$cpu $w $u $s $kib $msgs $sim $load $flt"
    fi
  done
  read -r cpu w u s kib msgs sim load flt <<< "$best"
  RES[$key]="$w $u $s $kib $msgs $sim $load $flt"
  note_kib "$prog" "$m" "$kib"
}
prog_args() { [ "$1" = ring ] && echo "${2:-$ROUNDS}"; }

echo
echo "## Table 1: growth (ring: $ROUNDS rounds; REPS=$REPS, least CPU kept)"
echo
fmt1='%-10s %9s %10s %8s %8s %8s %9s %10s %9s %10s %6s  %s\n'
printf "$fmt1" program ranks messages wall_s user_s sys_s KiB/rank sim_wall_s minflt_k sys_us/flt load1 note
for prog in $PROGS; do
  for m in $SIZES; do
    run_case "$prog" "$m" "$(prog_args "$prog")"
    r=${RES["$prog $m $(prog_args "$prog")"]}
    if [[ $r == skip:* ]]; then printf "$fmt1" "$prog" "$m" - - - - - - - - - "${r#skip: }"; continue; fi
    read -r w u s kib msgs sim load flt <<< "$r"
    printf "$fmt1" "$prog" "$m" "$msgs" "$w" "$u" "$s" "$kib" "$sim" "$(ratio "$flt" 1000)" \
      "$(ratio "$s" "$flt" 1e6)" "$load" ""
  done
done
echo
echo "Growth between consecutive sizes (factor = larger / smaller; CPU = user + sys;"
echo "CPU/rank x = CPU factor / ranks factor: 1.00 linear, > 1 super-linear)"
echo
fmt2='%-10s %19s %8s %8s %8s %8s %8s %10s %11s\n'
printf "$fmt2" program ranks ranks_x wall_x user_x sys_x CPU_x KiB/rank_x CPU/rank_x
for prog in $PROGS; do
  prev=""
  for m in $SIZES; do
    r=${RES["$prog $m $(prog_args "$prog")"]}
    [[ $r == skip:* ]] && continue
    if [ -n "$prev" ]; then
      read -r pm pw pu ps pk _ <<< "$prev"
      read -r w u s kib _ <<< "$r"
      cx=$(ratio "$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}')" "$(awk -v u="$pu" -v s="$ps" 'BEGIN{print u + s}')")
      printf "$fmt2" "$prog" "$pm -> $m" "$(ratio "$m" "$pm")" "$(ratio "$w" "$pw")" "$(ratio "$u" "$pu")" \
        "$(ratio "$s" "$ps")" "$cx" "$(ratio "$kib" "$pk")" "$(ratio "$cx" "$(ratio "$m" "$pm")")"
    fi
    prev="$m $r"
  done
done

[ "$COST" = 0 ] && { echo; echo "# load average at the end: $(loadavg)"; exit 0; }
echo
echo "## Table 2: CPU (user + sys) ns per simulated message"
echo "(ring: rounds = max(4, 4194304 / ranks), margin against 1 round; hello: the replayed barrier,"
echo " margin against init = MPI_Init + MPI_Finalize)"
echo
fmt3='%-8s %9s %7s %10s %8s %9s %9s %8s  %s\n'
printf "$fmt3" program ranks rounds messages cpu_s all_ns marg_ns load1 note
declare -A ALL=() MARG=()
for prog in ring hello; do
  for m in $COST_SIZES; do
    if [ "$prog" = ring ]; then
      rounds=$(( 4194304 / m )); [ "$rounds" -lt 4 ] && rounds=4
      run_case ring "$m" "$rounds"; run_case ring "$m" 1
      r=${RES["ring $m $rounds"]} b=${RES["ring $m 1"]}
    else
      rounds=-
      run_case hello "$m"; run_case init "$m"
      r=${RES["hello $m "]} b=${RES["init $m "]}
    fi
    if [[ $r == skip:* ]]; then printf "$fmt3" "$prog" "$m" "$rounds" - - - - - "${r#skip: }"; continue; fi
    read -r _ u s _ msgs _ load _ <<< "$r"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}')
    all=$(ratio "$cpu" "$msgs" 1e9)
    marg=- note=""
    if [[ $b == skip:* ]]; then note="baseline ${b#skip: }"; else
      read -r _ bu bs _ bmsgs _ <<< "$b"
      marg=$(awk -v c="$cpu" -v bu="$bu" -v bs="$bs" -v m="$msgs" -v bm="$bmsgs" \
        'BEGIN{ if (m > bm && c - bu - bs >= 0.02) printf "%.4g", (c - bu - bs) / (m - bm) * 1e9; else print "-" }')
      [ "$marg" = - ] && note="CPU above the baseline < 20 ms: no margin"
    fi
    ALL[$prog $m]=$all MARG[$prog $m]=$marg
    printf "$fmt3" "$prog" "$m" "$rounds" "$msgs" "$cpu" "$all" "$marg" "$load" "$note"
  done
done
echo
for prog in ring hello; do
  first="" last=""
  for m in $COST_SIZES; do [ -n "${ALL[$prog $m]:-}" ] && { [ -z "$first" ] && first=$m; last=$m; }; done
  [ -n "$first" ] && [ "$first" != "$last" ] || continue
  mfirst=""
  for m in $COST_SIZES; do [ "${MARG[$prog $m]:--}" != - ] && [ -z "$mfirst" ] && mfirst=$m; done
  line="$prog: all_ns $last / $first ranks x$(ratio "${ALL[$prog $last]}" "${ALL[$prog $first]}")"
  if [ -n "$mfirst" ] && [ "${MARG[$prog $last]:--}" != - ] && [ "$mfirst" != "$last" ]; then
    line+="; marg_ns $last / $mfirst ranks x$(ratio "${MARG[$prog $last]}" "${MARG[$prog $mfirst]}")"
  fi
  echo "$line"
done
echo
echo "# load average at the end: $(loadavg)"
