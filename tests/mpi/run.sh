#!/usr/bin/env bash
# Test driver for MPI programs under xsim. Usage:
#   run.sh same N_LIST -- PROGRAM ARGS...   runs PROGRAM under mpiexec with each native process count in
#                                           N_LIST ("1 2 3 4"); every run must exit 0, and the sorted
#                                           stdout of every run must be identical (docs/architecture.md §2)
#                                           and not empty.
#   run.sh expect-stdout N REGEX -- PROGRAM ARGS...   one run; stdout must match the extended REGEX. With
#                                           a list of counts ("1 2 3"), one run each: all must match and
#                                           their sorted stdout must be identical.
#   run.sh expect-lines N_LIST FILE -- PROGRAM ARGS...  one run per count; each run's sorted stdout must be
#                                           exactly FILE's sorted lines (exact virtual times, every line).
#   run.sh expect-fail N CODE REGEX -- PROGRAM ARGS... one run; exit code must be CODE ("nonzero" for any
#                                           non-zero) and stderr must match REGEX.
#   run.sh expect-stderr N REGEX -- PROGRAM ARGS...   one run; it must exit 0 and stderr must match REGEX.
# RAW=1: the command is run as given (it starts its own launcher).
# LEAKS_OK=1: sanitizer builds do not check for leaks (a program whose ranks fail by injection leaves their
# heap allocations behind: xsim releases a failed rank's stack, not what it allocated).
# MPIEXEC (default mpiexec.hydra) names the launcher; TIMEOUT (default 300) bounds each run in seconds.
set -u
[ -n "${LEAKS_OK:-}" ] && [ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
TIMEOUT=${TIMEOUT:-300}
mode=$1; shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

run() {  # run N OUT ERR PROGRAM ARGS...  -> exit code
  local n=$1 out=$2 err=$3 rc; shift 3
  local try
  for try in 1 2; do
    if [ -n "${RAW:-}" ]; then  # the command names its own launcher
      timeout "$TIMEOUT" "$@" >"$out" 2>"$err"; rc=$?
    else
      timeout "$TIMEOUT" "$MPIEXEC" -np "$n" "$@" >"$out" 2>"$err"; rc=$?
    fi
    # Hydra's launcher can die of SIGPIPE (exit 141) before it has passed on any output when the program
    # exits at once (a bad option): a race of the launcher's, not the program's. Run it once more.
    [ $rc -eq 141 ] && [ ! -s "$out" ] && [ ! -s "$err" ] && [ $try -eq 1 ] || break
    echo "run.sh: the launcher died of SIGPIPE before passing on any output (N=$n); running again" >&2
  done
  # Sanitizer builds (docs/testing.md): any ASan, LSan or UBSan report fails the test, whatever the exit code.
  if grep -Eq '^==[0-9]+==ERROR: [A-Za-z]+Sanitizer|^SUMMARY: [A-Za-z]+Sanitizer|: runtime error: ' "$err"; then
    echo "FAIL: sanitizer report (N=$n): $*"; cat "$err"; exit 1
  fi
  return $rc
}

# same_as_first N COMMAND...: the sorted stdout of the run with N processes must equal that of the first run checked
# (`first`, set by the first call) — the determinism rule of docs/architecture.md §2.
first=""
same_as_first() {  # same_as_first N COMMAND...
  local n=$1; shift
  sort "$tmp/out.$n" > "$tmp/sorted.$n"
  if [ -z "$first" ]; then
    first=$n
  elif ! diff -u "$tmp/sorted.$first" "$tmp/sorted.$n" > "$tmp/diff"; then
    echo "FAIL: output differs between N=$first and N=$n native processes: $*"; cat "$tmp/diff"; exit 1
  fi
}

case "$mode" in
  same)
    nlist=$1; shift; [ "$1" = "--" ] && shift
    for n in $nlist; do
      run "$n" "$tmp/out.$n" "$tmp/err.$n" "$@"; rc=$?
      if [ $rc -ne 0 ]; then
        echo "FAIL: N=$n exited $rc: $*"; cat "$tmp/out.$n"; tail -30 "$tmp/err.$n"; exit 1
      fi
      same_as_first "$n" "$@"
    done
    cat "$tmp/out.$first"
    # two empty outputs are identical and prove nothing: the program must print what it computed
    if [ ! -s "$tmp/out.$first" ]; then echo "FAIL: no output to compare (N in {$nlist}): $*"; exit 1; fi
    echo "same output for N in {$nlist}: $(wc -l < "$tmp/out.$first") lines"
    ;;
  expect-stdout)
    nlist=$1 re=$2; shift 2; [ "$1" = "--" ] && shift
    for n in $nlist; do  # several counts ("1 2 3"): each run must match, and all must agree
      run "$n" "$tmp/out.$n" "$tmp/err.$n" "$@"; rc=$?
      cat "$tmp/out.$n"
      if [ $rc -ne 0 ]; then echo "FAIL: N=$n exited $rc"; tail -30 "$tmp/err.$n"; exit 1; fi
      if ! grep -Eq -- "$re" "$tmp/out.$n"; then echo "FAIL: N=$n: stdout does not match /$re/"; exit 1; fi
      same_as_first "$n" "$@"
    done
    ;;
  expect-lines)
    nlist=$1 file=$2; shift 2; [ "$1" = "--" ] && shift
    sort "$file" > "$tmp/expected"
    for n in $nlist; do
      run "$n" "$tmp/out.$n" "$tmp/err.$n" "$@"; rc=$?
      cat "$tmp/out.$n"
      if [ $rc -ne 0 ]; then echo "FAIL: N=$n exited $rc"; tail -30 "$tmp/err.$n"; exit 1; fi
      sort "$tmp/out.$n" > "$tmp/sorted.$n"
      if ! diff -u "$tmp/expected" "$tmp/sorted.$n"; then echo "FAIL: N=$n: stdout is not $file"; exit 1; fi
    done
    ;;
  expect-stderr)
    n=$1 re=$2; shift 2; [ "$1" = "--" ] && shift
    run "$n" "$tmp/out" "$tmp/err" "$@"; rc=$?
    cat "$tmp/out"; cat "$tmp/err"
    if [ $rc -ne 0 ]; then echo "FAIL: exited $rc"; exit 1; fi
    if ! grep -Eq -- "$re" "$tmp/err"; then echo "FAIL: stderr does not match /$re/"; exit 1; fi
    ;;
  expect-fail)
    n=$1 code=$2 re=$3; shift 3; [ "$1" = "--" ] && shift
    # Sanitizer builds: a run that fails on purpose stops without tearing down (MPI_Abort, exit codes from
    # deep inside a rank), so everything still alive would be reported as leaked. ASan and UBSan stay on.
    [ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    start=$(date +%s)
    run "$n" "$tmp/out" "$tmp/err" "$@"; rc=$?
    cat "$tmp/out"; cat "$tmp/err"
    echo "exit code $rc after $(( $(date +%s) - start )) s"
    if [ $rc -eq 124 ]; then echo "FAIL: timed out (hang)"; exit 1; fi
    if [ "$code" = nonzero ]; then [ $rc -ne 0 ] || { echo "FAIL: expected a non-zero exit code"; exit 1; }
    elif [ $rc -ne "$code" ]; then echo "FAIL: expected exit code $code"; exit 1; fi
    if ! grep -Eq -- "$re" "$tmp/err"; then echo "FAIL: stderr does not match /$re/"; exit 1; fi
    ;;
  *) echo "run.sh: unknown mode $mode" >&2; exit 2 ;;
esac
