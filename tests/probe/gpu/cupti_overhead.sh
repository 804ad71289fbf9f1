#!/usr/bin/env bash
# GPU tracing overhead on launch-bound steps (docs/probe-validation.md): the paired probe-overhead
# bench on a small, launch-bound CUDA workload, shim only and with CUPTI, for this build's injection
# library and, when $OLD holds another build (perflint, shim/, libperflint_cupti.so), for that one
# too, in the same call; then `--probe --verify` on two planted launch-bound scripts, whose reports
# carry the tracing overhead line and the launches per step. Writes under $OUT.
#   OUT=/tmp/o BUILD=build OLD=build/old_cupti PYTHON=python3 bash tests/probe/gpu/cupti_overhead.sh
# Shim only, this build's shim against $OLD's:  SHIM_OLD=1 CUPTI=0 OLD=build/old_cupti bash ...
set -u
OUT=${OUT:-/tmp/cupti-overhead}
BUILD=${BUILD:-build}
OLD=${OLD:-}
PYTHON=${PYTHON:-python3}
PAIRS=${PAIRS:-3}
WL=${WL:-"--device cuda --width 256 --depth 8 --batch 64"}
G=tests/probe/gpu
mkdir -p "$OUT"
exec > >(tee "$OUT/driver.log") 2>&1
stage() { echo; echo "== $(date -u +%T) (${SECONDS}s) $*"; }

stage facts
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'

bench() {  # bench LABEL BUILD_DIR CUPTI(0/1)
  stage "overhead $1"
  if [ "$3" = 1 ]; then
    PERFLINT_CUPTI=1 WORKLOAD_ARGS="$WL" TARGET=1.10 BUILD="$2" PYTHON="$PYTHON" STEPS=40 PAIRS="$PAIRS" \
      timeout 150 bash bench/probe_overhead.sh 2>&1 | tee "$OUT/overhead_$1.txt" | tail -4
  else
    WORKLOAD_ARGS="$WL" TARGET=1.03 BUILD="$2" PYTHON="$PYTHON" STEPS=40 PAIRS="$PAIRS" \
      timeout 150 bash bench/probe_overhead.sh 2>&1 | tee "$OUT/overhead_$1.txt" | tail -4
  fi
}
bench shim_only "$BUILD" 0
# SHIM_OLD=1: the shim-only bench for $OLD too (its shim against this one's, in the same call).
[ "${SHIM_OLD:-0}" = 1 ] && [ -n "$OLD" ] && [ -x "$OLD/perflint" ] && bench shim_only_old "$OLD" 0
# CUPTI=0 skips the traced benches and the --verify runs (a shim-only comparison).
[ "${CUPTI:-1}" = 1 ] || { stage done; exit 0; }
bench cupti_new "$BUILD" 1
[ -n "$OLD" ] && [ -x "$OLD/perflint" ] && bench cupti_old "$OLD" 1

for s in ${SCRIPTS:-clean nonblocking_unpinned}; do
  for b in new ${OLD:+old}; do
    dir=$BUILD; [ "$b" = old ] && dir=$OLD
    stage "probe --verify $s ($b injection library)"
    PERFLINT_CUPTI=1 timeout 120 "$dir/perflint" --isolated --probe --verify --verify-runs 2 --warmup 3 --steps 20 \
        --timeout 60 --python "$PYTHON" --evidence-dir "$OUT/ev_${s}_$b" -o "$OUT/probe_${s}_$b.txt" "$G/$s.py" \
        2> "$OUT/probe_${s}_$b.err"
    echo "exit $?"
    grep -i "tracing\|launch" "$OUT/probe_${s}_$b.txt" | head -5
    for f in $(find "$OUT/ev_${s}_$b" -name "*.cupti.json" 2>/dev/null | sort); do
      [ -f "$f" ] && "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d.get("steps", []);
print(sys.argv[1].split("/")[-1], d.get("status"), "steps", len(s), "launches/step", [x.get("launches") for x in s][:6], "kernels/step", [x.get("kernels") for x in s][:6])' "$f"
    done
    [ "$b" = new ] && [ -z "$OLD" ] && break
  done
done
stage done
