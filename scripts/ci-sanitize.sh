#!/usr/bin/env bash
# The sanitizer step of CI (scripts/test.sh runs it after the test suite): builds the libFuzzer
# targets with clang, AddressSanitizer and UndefinedBehaviorSanitizer (UB fatal:
# -fno-sanitize-recover=undefined), replays the committed corpus (tests/fuzz/corpus: seeds and every
# crash found so far) and fuzzes each target for a short fixed time, so that a crash, a leak or
# undefined behaviour in the lint, fix, config or evidence paths fails CI.
#   scripts/ci-sanitize.sh [SECONDS_PER_TARGET]     default 25 (4 targets: about 100 s of fuzzing)
# PERFLINT_SKIP_SANITIZE=1 skips it (a machine without clang's sanitizer runtimes).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${PERFLINT_SKIP_SANITIZE:-0} == 1 ]]; then
  echo "ci-sanitize: skipped (PERFLINT_SKIP_SANITIZE=1)" >&2
  exit 0
fi
seconds=${1:-25}
start=$SECONDS
status=0
for target in lint fix config evidence; do
  log=$(mktemp)
  # A fixed time per target keeps CI's total bounded whatever the machine.
  if ! scripts/fuzz.sh "$target" "$seconds" -print_final_stats=1 2>"$log"; then
    status=1
    echo "ci-sanitize: fuzz_$target failed; its log:" >&2
    tail -n 60 "$log" >&2
  else
    grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$log" | tr '\n' ' ' >&2 || true
    echo " (fuzz_$target)" >&2
  fi
  rm -f "$log"
done
echo "ci-sanitize: $((SECONDS - start)) s" >&2
exit $status
