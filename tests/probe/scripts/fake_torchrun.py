#!/usr/bin/python3
"""A stand-in for torchrun where Debian's is broken (torch 1.13's elastic agent on Python 3.11):
`fake_torchrun.py --nproc_per_node N [--standalone] [--nnodes M --node_rank K --master_port P] SCRIPT
ARGS` or `... -m MODULE ARGS` starts N
interpreters as torchrun's workers start (`python -u SCRIPT ARGS` with RANK, LOCAL_RANK, WORLD_SIZE,
MASTER_ADDR/PORT in their environment), stops the others when one fails, and exits with the first
failure's code. It knows nothing of perflint: the probe must find its ranks by itself."""
import os
import signal
import socket
import subprocess
import sys
import time

argv = sys.argv[1:]
nproc, module, nnodes, node_rank, port = 1, False, 1, 0, None
while argv and argv[0].startswith("-"):
    opt = argv.pop(0)
    if opt.startswith("--nproc_per_node") or opt.startswith("--nproc-per-node"):
        nproc = int(opt.split("=", 1)[1]) if "=" in opt else int(argv.pop(0))
    elif opt == "--nnodes":
        nnodes = int(argv.pop(0))
    elif opt == "--node_rank":
        node_rank = int(argv.pop(0))
    elif opt == "--master_port":
        port = int(argv.pop(0))
    elif opt in ("-m", "--module"):
        module = True
    elif opt == "--standalone":
        pass
    else:
        sys.exit("fake_torchrun: unknown option " + opt)
if port is None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
procs = []
for rank in range(nproc):
    env = dict(os.environ, RANK=str(node_rank * nproc + rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nnodes * nproc),
               LOCAL_WORLD_SIZE=str(nproc),
               MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    cmd = [sys.executable, "-u"] + (["-m"] if module else []) + argv
    procs.append(subprocess.Popen(cmd, env=env))
failure = 0
while any(p.poll() is None for p in procs):
    for p in procs:
        if p.poll() not in (None, 0) and not failure:
            failure = p.returncode if p.returncode > 0 else 128 - p.returncode
            for q in procs:
                if q.poll() is None:
                    q.send_signal(signal.SIGTERM)
    time.sleep(0.05)
for p in procs:
    if p.returncode not in (0, None) and not failure:
        failure = p.returncode if p.returncode > 0 else 128 - p.returncode
sys.exit(failure)
