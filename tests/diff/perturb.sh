#!/usr/bin/env bash
# Harness self-test (diff_harness_detects): runs $PERTURB_BIN with the arguments it is given and changes
# the last digit of seed 3's line, as a wrong result would. run.sh must report seed 3 and how to rerun it.
"${PERTURB_BIN:?set PERTURB_BIN to the program to run}" "$@" | sed -E '/^seed 3 /s/ ([0-9a-f]{15})[0-9a-f]$/ \1x/'
exit "${PIPESTATUS[0]}"
