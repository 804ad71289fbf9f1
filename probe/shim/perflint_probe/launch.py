"""`perflint --probe --nproc N`: start N ranks of the script, each under the shim, the way torchrun
would (env:// rendezvous: MASTER_ADDR, MASTER_PORT on a free port, WORLD_SIZE, RANK, LOCAL_RANK,
LOCAL_WORLD_SIZE), and keep them together.

Each rank writes its own evidence (`<out>.rank<R>`). The ranks run in this process's group, so
perflint's stop of the group reaches them all. When a rank ends before the others:
- it reached its steps: the others get `grace` seconds to reach theirs (DDP keeps ranks in step, so
  they are there), then SIGTERM (the shim writes its evidence on SIGTERM), then SIGKILL;
- it failed (non-zero exit, a signal): the others would wait in a collective forever, so they are
  stopped at once, the same way.
The launcher writes `<out>.ranks.json`: per rank its evidence path, exit code or signal, and whether
it was stopped by the launcher; and exits with the first failed rank's code (0 when all reached).
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _failed_at(out, rank):
    """When a rank's evidence says it ended (its file's modification time); ranks without one last."""
    try:
        return os.path.getmtime("%s.rank%d" % (out, rank))
    except OSError:
        return float("inf")


def _forward_sigterm(procs):
    """perflint's SIGTERM to the group reaches the children too; passing it on just ends them sooner."""

    def forward(signum, frame):
        for p in procs:
            if p.poll() is None:
                try:
                    p.send_signal(signum)
                except OSError:
                    pass

    signal.signal(signal.SIGTERM, forward)


def launch(nproc, steps, warmup, out, apply, script, args, grace=10.0, module=None):
    port = _free_port()
    procs = []
    for rank in range(nproc):
        env = dict(os.environ)
        env.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": str(nproc),
                    "RANK": str(rank), "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(nproc),
                    "PERFLINT_PROBE_RANK_OUT": "1"})
        cmd = [sys.executable, "-m", "perflint_probe", "--steps", str(steps), "--warmup", str(warmup),
               "--out", "%s.rank%d" % (out, rank)]
        for fix in apply:
            cmd += ["--apply", fix]
        cmd += (["--module", module, "--"] if module else ["--", script]) + list(args)
        procs.append(subprocess.Popen(cmd, env=env))

    term_sent = None  # when the launcher sent SIGTERM to the ranks still running
    _forward_sigterm(procs)
    stopped_by_launcher = set()
    first_failure = None
    failed_after = {}  # rank -> the rank whose failure came first (a collective broken by it)
    deadline = None
    while True:
        # Every pass looks at every rank, the last one too: ranks that all ended between two passes
        # are still classified (the cause first, the ranks its failure broke after it).
        for rank, p in enumerate(procs):
            code = p.poll()
            if code is None:
                continue
            if code != 0 and first_failure is not None and rank != first_failure[0] and rank not in stopped_by_launcher:
                failed_after.setdefault(rank, first_failure[0])
            if code != 0 and first_failure is None:
                # Of the ranks found ended with an error in this pass, the one with the earliest
                # failure is the cause: the others' collectives broke when it went away.
                failed = [(r, q) for r, q in enumerate(procs) if q.poll() not in (None, 0)]
                cause = min(failed, key=lambda rq: _failed_at(out, rq[0]))[0]
                first_failure = (cause, procs[cause].returncode)
                for other, _ in failed:
                    if other != cause:
                        failed_after[other] = cause
                deadline = time.monotonic()  # stop the others now
            elif code == 0 and deadline is None:
                deadline = time.monotonic() + grace
        if all(p.poll() is not None for p in procs):
            break
        if deadline is not None and time.monotonic() >= deadline and term_sent is None:
            term_sent = time.monotonic()
            for rank, p in enumerate(procs):
                if p.poll() is None:
                    stopped_by_launcher.add(rank)
                    try:
                        p.send_signal(signal.SIGTERM)  # the shim writes its evidence, then exits
                    except OSError:
                        pass
        if term_sent is not None and time.monotonic() - term_sent > 5.0:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        time.sleep(0.05)

    ranks = []
    for rank, p in enumerate(procs):
        code = p.returncode
        ranks.append({"rank": rank, "evidence": "%s.rank%d" % (out, rank),
                      "exit_code": code if code >= 0 else None, "signal": -code if code < 0 else None,
                      "stopped_by_launcher": rank in stopped_by_launcher,
                      "failed_after": failed_after.get(rank) if code != 0 else None})
    with open(out + ".ranks.json", "w") as f:
        json.dump({"nproc": nproc, "ranks": ranks,
                   "first_failure": None if first_failure is None else
                   {"rank": first_failure[0], "code": first_failure[1]}}, f)
    if first_failure is not None:
        code = first_failure[1]
        return code if code > 0 else 128 - code
    return 0


# What a launcher's own process must not inherit: it would take itself for a rank.
_RANK_VARIABLES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "PERFLINT_PROBE_ACTIVE")


def launch_command(cmd, steps, warmup, out, apply):
    """`perflint --probe -- torchrun ... train.py`: runs the launcher command as given, with the probe
    started in each rank it creates (boot/sitecustomize.py), and writes `<out>.ranks.json` from the
    ranks' evidence files. The launcher keeps the ranks together (it stops the others when one fails);
    everything runs in this process's group, so perflint's stop reaches it all. Returns the launcher's
    exit code."""
    env = dict(os.environ)
    for name in _RANK_VARIABLES:
        env.pop(name, None)
    boot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (boot, env.get("PYTHONPATH", "")) if p)
    env["PERFLINT_PROBE_AUTO_OUT"] = out
    env["PERFLINT_PROBE_STEPS"] = str(steps)
    env["PERFLINT_PROBE_WARMUP"] = str(warmup)
    env["PERFLINT_PROBE_APPLY"] = "\n".join(apply)
    try:
        proc = subprocess.Popen(cmd, env=env)
    except OSError as e:
        sys.stderr.write("perflint probe: cannot start the launcher %s: %s\n" % (cmd[0], e))
        _write_manifest(out, [], cmd, 127)
        return 127

    _forward_sigterm([proc])
    code = proc.wait()
    # The ranks that left evidence: `<out>.rank<R>`, or only its step log when the rank died hard.
    directory, base = os.path.split(out)
    pattern = re.compile(re.escape(base) + r"\.rank(\d+)(\.steps)?$")
    found = {int(m.group(1)) for m in map(pattern.match, os.listdir(directory or ".")) if m}
    _write_manifest(out, sorted(found), cmd, code)
    return code if code >= 0 else 128 - code


def _write_manifest(out, ranks, cmd, code):
    nproc = max(ranks) + 1 if ranks else 0
    rows = [{"rank": r, "evidence": "%s.rank%d" % (out, r), "exit_code": None, "signal": None,
             "stopped_by_launcher": False} for r in range(nproc)]
    with open(out + ".ranks.json", "w") as f:
        json.dump({"nproc": nproc, "ranks": rows, "launcher": list(cmd), "launcher_exit": code,
                   "first_failure": None}, f)
