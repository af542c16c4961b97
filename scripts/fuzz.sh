#!/usr/bin/env bash
# Fuzzes xsim's parsers with libFuzzer (docs/testing.md, "Sanitizers and fuzzing"): builds the targets of
# tests/fuzz with clang, ASan and UBSan into build-fuzz/ (or $XSIM_FUZZ_BUILD_DIR), then runs each for
# $FUZZ_SECONDS seconds (default 25) from its seed corpus tests/fuzz/corpus/TARGET/, $XSIM_FUZZ_JOBS targets
# at a time (default: the number of cores).
#   scripts/fuzz.sh                     every target          FUZZ_SECONDS=600 scripts/fuzz.sh fuzz_toml
# New inputs that cover new code go to build-fuzz/corpus/TARGET/ (copy the useful ones into the repo's
# corpus); a crash, hang, leak or failed property stops with the input in build-fuzz/findings/TARGET/,
# and replaying it shows the report: build/tests/fuzz/replay_TARGET build-fuzz/findings/TARGET/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD=${XSIM_FUZZ_BUILD_DIR:-build-fuzz}
SECS=${FUZZ_SECONDS:-25}
CXX_FUZZ=${XSIM_FUZZ_CXX:-clang++-14}
cmake -S tests/fuzz -B "$BUILD" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" > "$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_options fuzz_network_spec fuzz_toml fuzz_placement)
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for t in "${targets[@]}"; do
  [ -x "$BUILD/$t" ] || { echo "fuzz.sh: no target $t (targets: fuzz_options fuzz_network_spec fuzz_toml fuzz_placement)"; exit 2; }
done
# fuzz_one TARGET: one libFuzzer run; its output goes to $BUILD/findings/TARGET.log
fuzz_one() {
  local t=$1
  mkdir -p "$BUILD/corpus/$t" "$BUILD/findings/$t"
  local dict=tests/fuzz/dict/$t.dict
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb: 2 GiB is a runaway allocation.
  # FUZZ_SEED: libFuzzer's random seed (CI sets one, so that its runs explore the same inputs; unset: new
  # inputs each run).
  local args=(-max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1
              -artifact_prefix="$BUILD/findings/$t/")
  [ -f "$dict" ] && args+=(-dict="$dict")
  [ -n "${FUZZ_SEED:-}" ] && args+=(-seed="$FUZZ_SEED")
  "$BUILD/$t" "${args[@]}" "$BUILD/corpus/$t" "tests/fuzz/corpus/$t" > "$BUILD/findings/$t.log" 2>&1
}
# report TARGET STATUS: one line for a clean run, the finding's lines otherwise
report() {
  local t=$1 log=$BUILD/findings/$1.log
  if [ "$2" -eq 0 ]; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    echo "fuzz: $t: ${SECS} s, $runs inputs, coverage $cov edges, no finding"
  else
    echo "fuzz: $t: FINDING (log $log, input in $BUILD/findings/$t/):"
    grep -E 'ERROR|runtime error|fuzz finding|deadly signal|Test unit written|SUMMARY' "$log" | head -20
  fi
}
# XSIM_FUZZ_JOBS targets at a time (default: one per core; each libFuzzer run uses one core).
JOBS=${XSIM_FUZZ_JOBS:-$(nproc)}
failed=0
for ((i = 0; i < ${#targets[@]}; i += JOBS)); do
  batch=("${targets[@]:i:JOBS}")
  pids=()
  for t in "${batch[@]}"; do fuzz_one "$t" & pids+=($!); done
  for j in "${!batch[@]}"; do
    rc=0; wait "${pids[j]}" || rc=$?
    report "${batch[j]}" "$rc"
    [ "$rc" -eq 0 ] || failed=1
  done
done
exit $failed
