#!/usr/bin/env bash
# The sanitizer step of CI (scripts/test.sh runs it after the test suite): builds the libFuzzer
# targets with clang, AddressSanitizer and UndefinedBehaviorSanitizer (UB fatal:
# -fno-sanitize-recover=undefined), replays the committed corpus (tests/fuzz/corpus: seeds and every
# crash found so far) and fuzzes each target for a fixed number of inputs from a fixed seed, so that a
# crash, a leak or undefined behaviour in the lint, fix, config or evidence paths fails CI — and the
# same commit always gets the same verdict (a time budget would make the inputs tried depend on the
# machine's speed and load: a flaky CI). About 20-25 s per target on an idle 2-core machine.
#   scripts/ci-sanitize.sh [SCALE]     SCALE multiplies the number of inputs (default 1)
# PERFLINT_SKIP_SANITIZE=1 skips it (a machine without clang's sanitizer runtimes).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${PERFLINT_SKIP_SANITIZE:-0} == 1 ]]; then
  echo "ci-sanitize: skipped (PERFLINT_SKIP_SANITIZE=1)" >&2
  exit 0
fi
scale=${1:-1}
declare -A runs=([lint]=2500 [fix]=2500 [config]=250000 [evidence]=500000)
start=$SECONDS
status=0
for target in lint fix config evidence; do
  log=$(mktemp)
  # 900 s is only a safety cap for a very slow machine; the run count ends each target.
  if ! scripts/fuzz.sh "$target" 900 -runs=$((runs[$target] * scale)) -seed=1 -print_final_stats=1 2>"$log"; then
    status=1
    echo "ci-sanitize: fuzz_$target failed; its log:" >&2
    tail -n 60 "$log" >&2
  else
    grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$log" | tr '\n' ' ' >&2 || true
    echo " (fuzz_$target)" >&2
  fi
  rm -f "$log"
done
# The CLI tests again, against a perflint built with the same sanitizers (the suite's own binary runs
# them; PERFLINT_TEST_BINARY points them at this one): UB or a memory error on any path they drive
# (bad input, --fix, config, discovery, reports) fails CI. About 30 s.
fuzz_build=${PERFLINT_FUZZ_BUILD:-build-fuzz}
cmake --build "$fuzz_build" --target perflint >&2
if [[ -x build/tests/perflint_tests ]]; then
  if ! PERFLINT_TEST_BINARY="$PWD/$fuzz_build/perflint" build/tests/perflint_tests --gtest_brief=1 \
      --gtest_filter='Cli*:BadInput*:FixCli*:FixWrite*:ConfigErrors*:Config*:OutputFile*:Discover*:CrossFile*:Examples*' >&2; then
    status=1
    echo "ci-sanitize: the CLI tests failed against the sanitized perflint ($fuzz_build/perflint)" >&2
  fi
else
  echo "ci-sanitize: build/tests/perflint_tests not built: the CLI tests were not run under sanitizers" >&2
  status=1
fi
# The Language Server's scripted client, against the sanitized server (a few seconds).
if ! python3 tests/lsp/test_server.py "$fuzz_build/perflint" >/dev/null 2>"$fuzz_build/lsp-test.log"; then
  status=1
  echo "ci-sanitize: the LSP client test failed against the sanitized perflint; its log:" >&2
  tail -n 60 "$fuzz_build/lsp-test.log" >&2
fi
# 300 random LSP sessions (fixed seed: the same inputs on every run), a few seconds.
if ! (cd "$fuzz_build" && python3 ../tests/fuzz/lsp_sessions.py "$PWD/perflint" --seed 1 --sessions 300); then
  status=1
  echo "ci-sanitize: a random LSP session crashed the sanitized server (input: $fuzz_build/lsp-crash.bin)" >&2
fi
echo "ci-sanitize: $((SECONDS - start)) s" >&2
exit $status
