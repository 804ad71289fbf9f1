"""The probe's HTML report and trace from a REAL CPU probe run, checked as a person would: the page
is opened in headless Chromium (its self-check must say the charts rendered with a size and no
script error or blocked request happened), a screenshot is taken, and the trace is validated
against the trace-event format. Exit 77 (ctest: skipped) with the reason when torch or chromium is
missing. Usage: test_report_browser.py PERFLINT [SCREENSHOT_OUT]"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.environ.get("PERFLINT_TEST_PYTHON", "/usr/bin/python3")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--window-size=1100,1400"]


def skip(why):
    print("SKIPPED: " + why)
    sys.exit(77)


def check_trace(path):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    assert events, "no event"
    stacks, last, names = {}, {}, set()
    for ev in events:
        for field in ("name", "ph", "pid", "tid", "ts"):
            assert field in ev, "event without %s: %r" % (field, ev)
        if ev["ph"] == "M":
            continue
        track = (ev["pid"], ev["tid"])
        assert ev["ts"] >= last.get(track, 0), "time goes back on %r at %r" % (track, ev)
        last[track] = ev["ts"]
        names.add(ev["name"])
        if ev["ph"] == "B":
            stacks.setdefault(track, []).append(ev["name"])
        elif ev["ph"] == "E":
            assert stacks.get(track), "E without B: %r" % ev
            assert stacks[track].pop() == ev["name"], "E does not match its B: %r" % ev
    assert all(not s for s in stacks.values()), "unclosed slices: %r" % stacks
    assert any(n.startswith("step ") for n in names), names
    assert "data wait" in names, names
    return len(events)


def main():
    perflint = sys.argv[1]
    shot_out = sys.argv[2] if len(sys.argv) > 2 else ""
    if subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode != 0:
        skip("no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        skip("no chromium (Debian: apt-get install chromium; scripts/setup.sh --tests installs it)")
    with tempfile.TemporaryDirectory(prefix="perflint-browser-") as tmp:
        html, trace = os.path.join(tmp, "report.html"), os.path.join(tmp, "trace.json")
        run = subprocess.run([perflint, "--probe", "--steps", "5", "--warmup", "1", "--python", PYTHON,
                              "--no-color", os.path.join(HERE, "scripts", "data_bound.py"),
                              "--report-html", html, "--trace", trace], capture_output=True, text=True, timeout=300)
        assert run.returncode == 1, "perflint exit %d\n%s\n%s" % (run.returncode, run.stdout, run.stderr)
        n = check_trace(trace)
        page = "file://" + html

        def browse(*extra):
            profile = tempfile.mkdtemp(prefix="profile-", dir=tmp)
            return subprocess.run([chromium] + FLAGS + ["--user-data-dir=" + profile] + list(extra) + [page],
                                  capture_output=True, text=True, timeout=120)

        dom = browse("--virtual-time-budget=3000", "--dump-dom")
        m = re.search(r'<p id="selfcheck"([^>]*)>([^<]*)', dom.stdout)
        assert m, "no self-check in the DOM (chromium exit %d): %s" % (dom.returncode, dom.stderr[-2000:])
        attrs, said = m.group(1), m.group(2)
        assert 'data-result="ok"' in attrs, "the page did not render: " + said
        charts = int(re.search(r'data-charts="(\d+)"', attrs).group(1))
        segments = int(re.search(r'data-segments="(\d+)"', attrs).group(1))
        assert charts >= 1 and segments >= 5, said  # 5 measured steps, each at least its data wait
        # The ranked fix list made it to the page: PFL101 on the DataLoader line, with its source.
        assert "PFL101" in dom.stdout and "num_workers=args.workers" in dom.stdout
        shot = os.path.join(tmp, "report.png")
        browse("--screenshot=" + shot)
        with open(shot, "rb") as f:
            png = f.read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000, "no screenshot (%d bytes)" % len(png)
        if shot_out:
            shutil.copyfile(shot, shot_out)
        print("ok: %s; %d trace events; screenshot %d bytes" % (said, n, len(png)))

        # Two ranks (issue 14): a real 2-rank DDP run over gloo (--nproc 2), rank 1 slow in its data
        # loading: the trace has one process track per rank, the page one row per rank with the
        # straggler marked, and it renders.
        html2, trace2 = os.path.join(tmp, "ranks.html"), os.path.join(tmp, "ranks.json")
        run = subprocess.run([perflint, "--probe", "--nproc", "2", "--steps", "4", "--warmup", "1", "--python", PYTHON,
                              "--no-color", "--report-html", html2, "--trace", trace2,
                              os.path.join(HERE, "scripts", "ddp_two_ranks.py"), "--", "--slow-rank", "1"],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode in (0, 1), "perflint exit %d\n%s\n%s" % (run.returncode, run.stdout, run.stderr)
        check_trace(trace2)
        with open(trace2) as f:
            pids = {ev["pid"] for ev in json.load(f)["traceEvents"] if ev["ph"] != "M"}
        assert len(pids) >= 2, "one track per rank expected, got pids %r" % pids
        page = "file://" + html2
        dom = browse("--virtual-time-budget=3000", "--dump-dom")
        m = re.search(r'<p id="selfcheck"([^>]*)>([^<]*)', dom.stdout)
        assert m and 'data-result="ok"' in m.group(1), "the 2-rank page did not render: %s" % (m.group(2) if m else dom.stderr[-2000:])
        assert "rank 1 is the straggler" in dom.stdout, "no straggler on the 2-rank page"
        print("ok: 2 ranks, %d trace processes, %s" % (len(pids), m.group(2)))


if __name__ == "__main__":
    main()
