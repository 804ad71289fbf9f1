"""Summarise a GPU-check run: each planted script's independent A/B (ab.py) next to the probe's report.

    python3 summarize.py DIR

DIR holds ab.jsonl (ab.py's lines) and probe_<script>.json (perflint --probe --verify reports), as
run_gpu_checks.sh writes them. Prints, per script: ab.py's GPU-timeline median step for the script
and its hand-fixed twin, the probe's median step and clock, and every finding with a verdict (state,
traced cost, --verify's measured saving); then the criteria of test_gpu.py (step within 15% of
ab.py's, measured saving within 15% of ab.py's difference) as agree / DISAGREE. Reads only; never
fails on a missing or partial file (a run cut short still gets summarised).
"""
import glob
import json
import os
import sys

TOLERANCE = 0.15
# The anti-patterns planted in each script: the hand-fixed twin fixes these, so only their costs are
# set against the A/B's difference (another finding's cost is not what the twin removes).
PLANTED = {"tf32_off": {"PFL401"}, "anomaly": {"PFL301"}, "checkpointed": {"PFL501"}, "item_sync": {"PFL201"},
           "pageable_copies": {"PFL102", "PFL103"}, "cudnn_off": {"PFL503"}, "nonblocking_unpinned": {"PFL102", "PFL104"}}


def load_ab(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("{"):
                    row = json.loads(line)
                    out[os.path.basename(row["script"])[:-3]] = row
    except OSError:
        pass
    return out


def near(a, b):
    return a is not None and b is not None and abs(a - b) <= TOLERANCE * max(abs(b), 1e-9)


def fmt(x):
    return "-" if x is None else ("%.2f" % x if isinstance(x, (int, float)) else str(x))


def main(root):
    ab = load_ab(os.path.join(root, "ab.jsonl"))
    for path in sorted(glob.glob(os.path.join(root, "probe_*.json"))):
        name = os.path.basename(path)[len("probe_"):-len(".json")]
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            print("%s: no report (%s)" % (name, e))
            continue
        p = report.get("probe") or {}
        bare = (ab.get(name) or {}).get("gpu_median_ms")
        fixed = (ab.get(name + "_fixed") or {}).get("gpu_median_ms")
        print("%s: ab.py %s -> %s ms (fixed twin); probe median %s ms (%s clock); phases %s; gpu busy %s; %s" % (
            name, fmt(bare), fmt(fixed), fmt(p.get("median_step_ms")), p.get("step_clock"),
            p.get("phases_clock"), fmt(p.get("gpu_busy_share")),
            "step " + ("agrees" if near(p.get("median_step_ms"), bare) else "DISAGREES") if bare else "no A/B"))
        bare_mean = (ab.get(name) or {}).get("gpu_mean_ms")
        print("    overhead: %s; warm-up added: %s; ab.py means %s -> %s ms; probe mean %s ms%s" % (
            p.get("overhead"), p.get("warmup_added"), fmt(bare_mean),
            fmt((ab.get(name + "_fixed") or {}).get("gpu_mean_ms")), fmt(p.get("mean_step_ms")),
            ("; mean " + ("agrees" if near(p.get("mean_step_ms"), bare_mean) else "DISAGREES"))
            if bare_mean and p.get("mean_step_ms") else ""))
        for f in report.get("findings", []):
            v = f.get("verdict")
            if not v:
                continue
            verify = v.get("verify") or {}
            saving = v.get("measured_saving_ms_per_step")
            line = "    %s line %s: %s, cost %s ms (share %s), --verify %s %s saving %s ms (spread %s)" % (
                f["code"], f["line"], v.get("state"), fmt(v.get("cost_ms_per_step")), fmt(v.get("share")),
                verify.get("fix"), verify.get("status"), fmt(saving), fmt(v.get("measured_spread_ms")))
            if f["code"] not in PLANTED.get(name, ()):
                pass
            elif bare is not None and fixed is not None and saving is not None:
                line += "; ab.py saving %.2f ms: %s" % (bare - fixed, "agrees" if near(saving, bare - fixed) else "DISAGREES")
            elif bare is not None and fixed is not None and v.get("cost_ms_per_step") is not None:
                # no --verify saving (no run-time fix): the measured cost against the A/B's difference
                cost = v.get("cost_ms_per_step")
                line += "; cost vs ab.py saving %.2f ms: %s" % (bare - fixed, "agrees" if near(cost, bare - fixed) else "DISAGREES")
            print(line)
            print("      " + (v.get("evidence") or "")[:300])
    for name, row in sorted(ab.items()):
        if not os.path.exists(os.path.join(root, "probe_%s.json" % name)) and not name.endswith("_fixed"):
            print("%s: ab.py only, %s ms" % (name, fmt(row.get("gpu_median_ms"))))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
