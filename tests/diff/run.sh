#!/usr/bin/env bash
# Differential test: randprog's digests under plain MPICH with M processes must equal its digests under
# xsim with M virtual ranks on N native processes (docs/testing.md).
#
#   tests/diff/run.sh [--seeds A-B] [--ranks 2,3,5] [--procs 1,2] [--max-steps K] [--preload]
#                     [--xsim-reference] [--build DIR | --plain BIN --xsim BIN --lib LIBXSIM] [--timeout S]
#                     [--plain-env NAME=VALUE]...
#
# --seeds    seed range (default 1-100); every (M, N) configuration runs all of them in one launch
# --ranks    M values: MPI_COMM_WORLD sizes (default 2,3,5); plain MPICH runs M real processes, keep M small
# --procs    N values: native processes under xsim (default 1,2)
# --preload  start the plain binary with LD_PRELOAD=libxsim.so instead of the xsim-linked one
# --xsim-reference  compare with xsim on 1 native process instead of plain MPICH (for M too large for
#            M real processes: checks that every N gives the same data)
# --build    build directory holding tests/diff/randprog{,_plain} and libxsim (default $XSIM_BUILD_DIR or build)
# --lib      what --preload puts in LD_PRELOAD: libxsim.so, or a list LIB:LIB (ASan builds: libasan.so first)
# --plain-env  an environment variable for the plain-MPICH reference runs only (sanitizer builds: the
#            suppressions for MPICH's own allocations, tests/sanitize/lsan-plain-mpich.supp)
# Exit status 0 when every line agrees; otherwise the first differing seed, M, N, both lines and the
# commands that rerun just that seed (with per-step digests) are printed and the status is 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seeds=1-100 ranks=2,3,5 procs=1,2 max_steps="" preload=0 timeout=600 xref=0
build=${XSIM_BUILD_DIR:-$root/build}
plain="" xsim="" lib=""
plain_env=()
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --procs) procs=$2; shift 2 ;;
    --max-steps) max_steps=$2; shift 2 ;;
    --preload) preload=1; shift ;;
    --xsim-reference) xref=1; shift ;;
    --build) build=$2; shift 2 ;;
    --plain) plain=$2; shift 2 ;;
    --xsim) xsim=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --plain-env)
      [[ $2 == [A-Za-z_]*=* ]] || { echo "run.sh: --plain-env wants NAME=VALUE, got '$2'" >&2; exit 2; }
      plain_env+=("$2"); shift 2 ;;
    -h|--help) usage ;;
    *) echo "run.sh: unknown argument '$1' (--help lists the options)" >&2; exit 2 ;;
  esac
done
[[ $seeds =~ ^[0-9]+-[0-9]+$ ]] || { echo "run.sh: --seeds wants A-B (e.g. 1-500), got '$seeds'" >&2; exit 2; }
[[ $ranks =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "run.sh: --ranks wants M,M,... (e.g. 3,4,5), got '$ranks'" >&2; exit 2; }
[[ $procs =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "run.sh: --procs wants N,N,... (e.g. 1,2), got '$procs'" >&2; exit 2; }
plain=${plain:-$build/tests/diff/randprog_plain}
xsim=${xsim:-$build/tests/diff/randprog}
lib=${lib:-$build/libxsim/runtime/libxsim.so}
IFS=: read -ra libs <<< "$lib"
for f in "$plain" "$xsim" "${libs[@]}"; do
  [ -e "$f" ] || { echo "run.sh: $f does not exist: build first (cmake --build build), or name it with --build/--plain/--xsim/--lib" >&2; exit 2; }
done
args=(--seeds "$seeds")
[ -n "$max_steps" ] && args+=(--max-steps "$max_steps")
first=${seeds%-*} last=${seeds#*-}
total=$(( last - first + 1 ))
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0

# run NAME NP CMD...: one launch, output in $tmp/NAME.{out,err}; complains when it fails or stops short.
run() {
  local name=$1; shift
  local t0=$SECONDS
  timeout "$timeout" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
  local rc=$? got
  got=$(grep -c '^seed ' "$tmp/$name.out")
  echo "  $name: $got seeds in $(( SECONDS - t0 )) s"
  if [ $rc -ne 0 ] || [ "$got" -ne "$total" ]; then
    local next=$(( first + got ))
    echo "FAIL: $name exited with status $rc after $got of $total seeds; seed $next did not finish."
    [ $rc -eq 124 ] && echo "  (killed after $timeout s: a hang)"
    echo "  command: $*"
    echo "  last lines of stderr:"; grep -v 'leaked handle pool objects' "$tmp/$name.err" | tail -15 | sed 's/^/    /'
    echo "  rerun that seed alone: $0 --seeds $next-$next --ranks ${cur_m} --procs ${cur_n:-1}"
    return 1
  fi
  return 0
}

IFS=, read -ra mlist <<< "$ranks"
IFS=, read -ra nlist <<< "$procs"
for m in "${mlist[@]}"; do
  cur_m=$m cur_n=""
  if [ $xref -eq 1 ]; then
    ref_label="xsim, N=1:"
    ref="xsim-M$m-N1-reference"
    run "$ref" "$MPIEXEC" -np 1 "$xsim" "${args[@]}" -xsim-np "$m" -xsim-cpu none -xsim-report off || { status=1; continue; }
  else
    ref_label="plain MPICH:"
    ref="plain-M$m"
    run "$ref" env "${plain_env[@]}" "$MPIEXEC" -np "$m" "$plain" "${args[@]}" || { status=1; continue; }
  fi
  for n in "${nlist[@]}"; do
    cur_n=$n
    name="xsim-M$m-N$n"
    if [ $preload -eq 1 ]; then
      run "$name" "$MPIEXEC" -np "$n" -env LD_PRELOAD "$lib" "$plain" "${args[@]}" -xsim-np "$m" -xsim-cpu none -xsim-report off || { status=1; continue; }
    else
      run "$name" "$MPIEXEC" -np "$n" "$xsim" "${args[@]}" -xsim-np "$m" -xsim-cpu none -xsim-report off || { status=1; continue; }
    fi
    if ! cmp -s "$tmp/$ref.out" "$tmp/$name.out"; then
      ln=$(diff "$tmp/$ref.out" "$tmp/$name.out" | grep -m1 -oE '^[0-9]+')
      a=$(sed -n "${ln}p" "$tmp/$ref.out"); b=$(sed -n "${ln}p" "$tmp/$name.out")
      s=$(echo "$a" | awk '{print $2}')
      echo "DIFFER: seed $s, M=$m virtual ranks, N=$n native processes"
      echo "  $ref_label $a"
      echo "  xsim, N=$n:  $b"
      echo "  rerun just this seed:  $0 --seeds $s-$s --ranks $m --procs $n$([ $xref -eq 1 ] && echo ' --xsim-reference')"
      echo "  digests after every step:"
      if [ $xref -eq 1 ]; then echo "    $MPIEXEC -np 1 $xsim --seed $s --trace -xsim-np $m -xsim-cpu none"
      else echo "    $MPIEXEC -np $m $plain --seed $s --trace"; fi
      echo "    $MPIEXEC -np $n $xsim --seed $s --trace -xsim-np $m -xsim-cpu none"
      status=1
    fi
  done
done
if [ $status -eq 0 ]; then
  if [ $xref -eq 1 ]; then echo "same digests under xsim for N=1 and N in {$procs}: seeds $seeds, M in {$ranks}"
  else echo "same digests under plain MPICH and xsim: seeds $seeds, M in {$ranks}, N in {$procs}"; fi
fi
exit $status
