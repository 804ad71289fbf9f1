#!/usr/bin/env bash
# Builds and runs one libFuzzer target (tests/fuzz/fuzz_TARGET.cpp) for SECONDS seconds.
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]     TARGET: lint | fix | config | evidence
#   scripts/fuzz.sh all SECONDS                                each target in turn, SECONDS each
# Needs clang and its sanitizer runtimes (Debian: clang libclang-rt-14-dev; scripts/setup.sh --tests).
# The build is build-fuzz/ (RelWithDebInfo, coverage + ASan + UBSan, UB fatal). Inputs:
#   tests/fuzz/corpus/TARGET/   committed seeds and regression inputs (crashes once found), read first
#   fixtures and examples       extra seeds for lint and fix
#   build-fuzz/corpus/TARGET/   what the fuzzer finds; kept between runs, not committed
# A crash leaves build-fuzz/artifacts/TARGET-crash-*: fix it, then copy the input into
# tests/fuzz/corpus/TARGET/ so that every later run (and CI) replays it. Exit 1 on a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: scripts/fuzz.sh lint|fix|config|evidence|all SECONDS [libFuzzer options]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
shift 2

if [[ $target == all ]]; then
  status=0
  for t in lint fix config evidence; do "$0" "$t" "$seconds" "$@" || status=1; done
  exit $status
fi
case $target in lint|fix|config|evidence) ;; *) echo "fuzz.sh: unknown target '$target'" >&2; exit 2 ;; esac

build=${PERFLINT_FUZZ_BUILD:-build-fuzz}
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [[ ! -f $build/CMakeCache.txt ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DPERFLINT_FUZZ=ON -DPERFLINT_BUILD_TESTS=OFF "${launcher[@]}" >&2
fi
cmake --build "$build" --target "fuzz_$target" >&2

work=$build/corpus/$target
mkdir -p "$work" "$build/artifacts"
seeds=(tests/fuzz/corpus/$target)
dict=()
max_len=()
case $target in
  lint|fix)
    # Fixtures and examples as seeds (flat copies: libFuzzer reads one directory level).
    mkdir -p "$build/seeds/python"
    find tests/fixtures tests/fixes examples -name '*.py' -print0 |
      while IFS= read -r -d '' f; do cp "$f" "$build/seeds/python/$(echo "$f" | tr / _)"; done
    seeds+=("$build/seeds/python")
    dict=(-dict=tests/fuzz/python.dict)
    max_len=(-max_len=16384) ;;
  config) dict=(-dict=tests/fuzz/toml.dict); max_len=(-max_len=4096) ;;
  evidence) dict=(-dict=tests/fuzz/json.dict); max_len=(-max_len=8192) ;;
esac

echo "fuzz.sh: fuzz_$target for ${seconds}s (corpus $work, seeds ${seeds[*]})" >&2
# UBSan reports are fatal (-fno-sanitize-recover) and print a stack; leaks are reported too.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$build/tests/fuzz/fuzz_$target" "${dict[@]}" "${max_len[@]}" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "$@" "$work" "${seeds[@]}"
