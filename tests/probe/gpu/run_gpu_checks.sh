#!/usr/bin/env bash
# The GPU checks (docs/probe-validation.md): one script that runs every check on a CUDA machine and
# writes everything under $OUT (driver.log, results.tgz, repacked after each stage so that a run cut
# short still returns what it measured). Run from the repository root, with a release build of
# perflint (+ libperflint_cupti.so and shim/) in $BUILD and a CUDA PyTorch in $PYTHON:
#   OUT=/tmp/gpu BUILD=build PYTHON=python3 bash tests/probe/gpu/run_gpu_checks.sh
# Stages, most informative first, each skipped (saying so) when it would run past DEADLINE seconds:
# facts; independent A/B of every planted script and its hand-fixed twin (ab.py, CUDA events);
# perflint-calibrate built against this PyTorch and `perflint calibrate --device cuda`; `perflint
# --probe --verify` with CUPTI on every planted script (summarize.py sets each report beside its A/B);
# torch.compile counters with and without the shim; CUPTI held by torch.profiler; probe overhead
# (with CUPTI, then shim only).
set -u
OUT=${OUT:-/tmp/gpu-checks}
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-python3}
G=tests/probe/gpu
W=$(mktemp -d)
mkdir -p "$OUT"
exec > >(tee "$OUT/driver.log") 2>&1
stage() { echo; echo "== $(date -u +%T) $*"; }
pack() { tar czf "$OUT/results.tgz.tmp" --exclude=./cal -C "$W" . && mv "$OUT/results.tgz.tmp" "$OUT/results.tgz"; }
PL=$(realpath "$BUILD/perflint")

stage facts
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
"$PYTHON" -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0), "cudnn", torch.backends.cudnn.version())'
ls -la /usr/local/cuda/lib64/libcupti* /usr/local/cuda/extras/CUPTI/lib64/libcupti* 2>&1 | head
"$PYTHON" -c 'import torch, os, glob; d = os.path.dirname(os.path.dirname(torch.__file__)); print("\n".join(glob.glob(d + "/nvidia/**/libcupti*", recursive=True)))'
ldd "$BUILD/libperflint_cupti.so" | grep -i cupti
nproc; uname -r; "$PL" --version

# perflint-calibrate against this PyTorch's LibTorch, in the background while the A/B runs.
prefix=$("$PYTHON" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
( timeout 300 cmake -S $G/calibrate -B "$W/cal" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$W/cal_build.log" 2>&1 &&
  timeout 300 nice ninja -C "$W/cal" >> "$W/cal_build.log" 2>&1 ) &
cal_pid=$!

# Device time is scarce: every stage checks the clock (DEADLINE, seconds since the start) and is
# skipped, saying so, when it would not finish; the scripts go most informative first.
DEADLINE=${DEADLINE:-520}
SCRIPTS=${SCRIPTS:-"anomaly pageable_copies nonblocking_unpinned item_sync cudnn_off checkpointed tf32_off clean"}
# ab.py's warm-up: long enough for a DataLoader's prefetched stock to run out (loader-fed scripts
# are otherwise timed on batches made ahead: bimodal, faster than their steady state).
AB_WARMUP=${AB_WARMUP:-30}
# Steps timed on each side: bursty (loader-fed) and host-bound steps need more than 10 for a stable
# median and mean.
AB_STEPS=${AB_STEPS:-60}
PROBE_STEPS=${PROBE_STEPS:-20}
fits() { if (( SECONDS + $1 > DEADLINE )); then echo "skipped (deadline: ${SECONDS}s of ${DEADLINE}s used, needs ~$1s): $2"; return 1; fi; }

stage "A/B: each planted script and its hand-fixed twin, timed with CUDA events (ab.py)"
for s in $SCRIPTS; do
  for v in "$s" "${s}_fixed"; do
    [ -f "$G/$v.py" ] || continue
    fits 20 "ab $v" || continue
    timeout 90 "$PYTHON" $G/ab.py --warmup "$AB_WARMUP" --steps "$AB_STEPS" $G/$v.py >> "$W/ab.jsonl" 2> "$W/ab_$v.err" || echo "ab $v: exit $?"
    tail -1 "$W/ab.jsonl"
  done
done
pack

stage "perflint calibrate --device cuda (perflint-calibrate built against this PyTorch)"
# Waits at most a minute for the build; a build still running then is stopped and the stage skipped.
for _ in $(seq 30); do kill -0 "$cal_pid" 2>/dev/null || break; sleep 2; done
kill -0 "$cal_pid" 2>/dev/null && { echo "calibrate build still running at ${SECONDS}s: stopped"; kill "$cal_pid"; }
if fits 90 calibrate && wait "$cal_pid" && [ -x "$W/cal/perflint-calibrate" ]; then
  cp "$W/cal/perflint-calibrate" "$BUILD/"
  timeout 90 "$PL" calibrate --device cuda --quick 2>&1 | tee "$W/calibrate.txt"
  "$PL" calibrate --show 2>&1 | tee "$W/calibrate_show.txt"
else
  echo "calibrate not run:"; tail -5 "$W/cal_build.log"
fi
pack

stage "probe --verify with CUPTI on every planted script"
for s in $SCRIPTS; do
  fits 60 "probe $s" || continue
  PERFLINT_CUPTI=1 timeout 150 "$PL" --isolated --probe --verify --verify-runs 2 --warmup 3 --steps "$PROBE_STEPS" \
      --timeout 60 --python "$PYTHON" --evidence-dir "$W/ev_$s" --trace "$W/trace_$s.json" \
      --output-format json -o "$W/probe_$s.json" $G/$s.py 2> "$W/probe_$s.err"
  echo "probe $s: exit $? at ${SECONDS}s"; tail -3 "$W/probe_$s.err"
  "$PYTHON" $G/summarize.py "$W" 2>&1 | awk -v s="$s:" '$1 == s { p = 1; print; next } /^[^ ]/ { p = 0 } p'
  pack
done

stage "torch.compile: dynamo counters bare and under the probe"
fits 90 compile && {
PERFLINT_GPU_COUNTERS="$W/counters_bare.json" timeout 150 "$PYTHON" $G/ab.py --warmup 3 --steps 10 $G/compiled.py > "$W/compiled_bare.txt" 2>&1
cat "$W/compiled_bare.txt" | tail -3
PERFLINT_GPU_COUNTERS="$W/counters_probe.json" timeout 150 "$PL" --isolated --probe --warmup 3 --steps 10 --timeout 120 \
    --python "$PYTHON" --output-format json -o "$W/probe_compiled.json" $G/compiled.py 2> "$W/probe_compiled.err"
echo "probe compiled: exit $?"
"$PYTHON" - "$W/counters_bare.json" "$W/counters_probe.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in sorted(set(a) | set(b)):
    if a.get(key) != b.get(key):
        print("differs:", key, "bare", a.get(key), "probe", b.get(key))
print("stats bare", a.get("stats"), "\nstats probe", b.get("stats"))
print("recompiles/graph breaks bare", a.get("recompiles"), a.get("graph_break"), "probe", b.get("recompiles"), b.get("graph_break"))
PY
pack
}

stage "CUPTI held by torch.profiler"
if fits 40 profiled; then
  PERFLINT_CUPTI=1 timeout 90 "$PL" --isolated --probe --warmup 3 --steps 10 --timeout 60 --python "$PYTHON" \
      --evidence-dir "$W/ev_profiled" --output-format json -o "$W/probe_profiled.json" $G/profiled.py 2> "$W/probe_profiled.err"
  echo "probe profiled: exit $?"; tail -5 "$W/probe_profiled.err"
  "$PYTHON" $G/summarize.py "$W" 2>&1 | awk '$1 == "profiled:" { p = 1; print; next } /^[^ ]/ { p = 0 } p'
  pack
fi

stage "probe overhead: with CUPTI, then shim only"
fits 60 overhead && {
WL="--device cuda --width 4096 --depth 8 --batch 4096"
PERFLINT_CUPTI=1 WORKLOAD_ARGS="$WL" TARGET=1.10 BUILD="$BUILD" PYTHON="$PYTHON" STEPS=25 PAIRS=2 timeout 100 bash bench/probe_overhead.sh 2>&1 | tee "$W/overhead_cupti.txt"
pack
fits 50 "overhead, shim only" && WORKLOAD_ARGS="$WL" TARGET=1.03 BUILD="$BUILD" PYTHON="$PYTHON" STEPS=25 PAIRS=2 timeout 100 bash bench/probe_overhead.sh 2>&1 | tee "$W/overhead_shim.txt"
pack
}

"$PYTHON" $G/summarize.py "$W" > "$W/summary.txt" 2>&1
pack
stage "done at ${SECONDS}s"
