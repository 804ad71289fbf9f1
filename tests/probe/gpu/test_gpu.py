"""GPU tests of the probe: each verdict against the independent step timer (ab.py), on a CUDA machine.

    PERFLINT_GPU_PYTHON=python3 python3 tests/probe/gpu/test_gpu.py PATH/TO/perflint

Skipped (exit 77, which ctest reports as skipped) with the reason when the interpreter has no CUDA
device, as on CI machines. Where a GPU is present, for the scripts whose fix --verify can apply:
the probe's median step (GPU timeline) is within 15% of ab.py's for the same script, and the
measured saving of the fix within 15% of ab.py's script-vs-hand-fixed-twin difference (docs/
probe-validation.md). The full set of checks, with calibration, CUPTI and overhead, is
run_gpu_checks.sh.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.environ.get("PERFLINT_GPU_PYTHON", os.environ.get("PERFLINT_TEST_PYTHON", "python3"))
TOLERANCE = 0.15
# script: the finding whose fix --verify applies. Host-bound and GPU-bound, one each at least.
CASES = {"tf32_off": "PFL401", "anomaly": "PFL301", "checkpointed": "PFL501"}


def skip(why):
    print("skipped: " + why)
    sys.exit(77)


def ab(script):
    out = subprocess.run([PYTHON, os.path.join(HERE, "ab.py"), "--warmup", "5", "--steps", "30",
                          os.path.join(HERE, script + ".py")], capture_output=True, text=True, timeout=300)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode != 0 or not lines:
        raise AssertionError("ab.py %s failed: %s" % (script, out.stderr[-2000:]))
    return json.loads(lines[-1])["gpu_median_ms"]


def probe(perflint, script):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([perflint, "--isolated", "--probe", "--verify", "--verify-runs", "2", "--warmup", "3",
                        "--steps", "10", "--python", PYTHON, "--output-format", "json", "-o", report,
                        os.path.join(HERE, script + ".py")], capture_output=True, text=True, timeout=600)
        with open(report) as f:
            return json.load(f)


def near(a, b):
    return abs(a - b) <= TOLERANCE * max(abs(b), 1e-9)


def main():
    if len(sys.argv) != 2:
        print("usage: test_gpu.py PATH/TO/perflint", file=sys.stderr)
        return 2
    perflint = sys.argv[1]
    try:
        has_cuda = subprocess.run([PYTHON, "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"],
                                  capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        has_cuda = False
    if not has_cuda:
        skip("no CUDA device for %s (torch.cuda.is_available() is False or no torch): the GPU tests need one" % PYTHON)
    failures = []
    for script, code in CASES.items():
        bare, fixed = ab(script), ab(script + "_fixed")
        report = probe(perflint, script)
        p = report["probe"]
        step = p["median_step_ms"]
        print("%s: ab.py %.2f -> %.2f ms; probe median step %.2f ms (%s)" % (script, bare, fixed, step, p.get("step_clock")))
        if p.get("step_clock") != "cuda_events":
            failures.append("%s: step clock %s, not cuda_events" % (script, p.get("step_clock")))
        if not near(step, bare):
            failures.append("%s: probe median step %.2f ms vs ab.py %.2f ms" % (script, step, bare))
        finding = next((f for f in report["findings"] if f["code"] == code), None)
        verify = ((finding or {}).get("verdict") or {}).get("verify") or {}
        saving = ((finding or {}).get("verdict") or {}).get("measured_saving_ms_per_step")
        print("  %s: verdict %s, --verify %s, saving %s ms vs ab.py %.2f ms" % (
            code, ((finding or {}).get("verdict") or {}).get("state"), verify.get("status"), saving, bare - fixed))
        if saving is None or not near(saving, bare - fixed):
            failures.append("%s: %s measured saving %s ms vs ab.py %.2f ms" % (script, code, saving, bare - fixed))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
