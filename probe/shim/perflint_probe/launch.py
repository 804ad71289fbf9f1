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
import signal
import socket
import subprocess
import sys
import time


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(nproc, steps, warmup, out, apply, script, args, grace=10.0):
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
        cmd += [script, "--"] + list(args)
        procs.append(subprocess.Popen(cmd, env=env))

    term_sent = None  # when the launcher sent SIGTERM to the ranks still running

    def forward(signum, frame):  # perflint's SIGTERM to the group reaches the ranks too; just end
        for p in procs:
            if p.poll() is None:
                try:
                    p.send_signal(signum)
                except OSError:
                    pass

    signal.signal(signal.SIGTERM, forward)
    stopped_by_launcher = set()
    first_failure = None
    deadline = None
    while any(p.poll() is None for p in procs):
        for rank, p in enumerate(procs):
            code = p.poll()
            if code is None:
                continue
            if code != 0 and first_failure is None:
                first_failure = (rank, code)
                deadline = time.monotonic()  # stop the others now
            elif code == 0 and deadline is None:
                deadline = time.monotonic() + grace
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
                      "stopped_by_launcher": rank in stopped_by_launcher})
    with open(out + ".ranks.json", "w") as f:
        json.dump({"nproc": nproc, "ranks": ranks,
                   "first_failure": None if first_failure is None else
                   {"rank": first_failure[0], "code": first_failure[1]}}, f)
    if first_failure is not None:
        code = first_failure[1]
        return code if code > 0 else 128 - code
    return 0
