#!/usr/bin/env python3
"""Random LSP sessions against `perflint server`: framed JSON-RPC messages with random methods,
parameters of random shape (wrong types, negative and huge positions, odd URIs, NUL bytes, BOMs,
syntax errors, mistyped suppressions), some bodies cut short. The server must never crash, abort or
report an internal error; it exits 0 or 1. Deterministic for a seed and a session count, so the
sanitizer step of CI (scripts/ci-sanitize.sh) runs it against the ASan + UBSan build.

Usage: lsp_sessions.py PERFLINT [--seed N] [--sessions N | --seconds S]
A crashing session is written to lsp-crash.bin in the current directory (replay:
`perflint server < lsp-crash.bin`).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

TEXTS = ["import torch\nfor x in loader:\n    loss = model(x.cuda())\n    loss.backward()\n    opt.step()\n    print(loss.item())\n",
         "def f(:\n", "\ufeffimport torch\r\nx = 'é🚀'\r\n", "", "\x00\x01", "# noqa: PFL2O1\n" * 3,
         "import torch\nmodel = Net().cuda()\nfor b in dl:\n    model(b).backward()  # perflint: ignore[per-step-itme]\n"]
METHODS = ["initialize", "initialized", "textDocument/didOpen", "textDocument/didChange", "textDocument/didSave",
           "textDocument/didClose", "textDocument/codeAction", "textDocument/hover", "shutdown", "$/cancelRequest",
           "workspace/didChangeConfiguration", "exit", "foo"]
KEYS = ["uri", "text", "range", "start", "end", "line", "character", "textDocument", "contentChanges", "position",
        "context", "only", "version", "languageId"]


def value(rnd, depth=0):
    c = rnd.randint(0, 7 if depth < 3 else 4)
    if c == 0:
        return None
    if c == 1:
        return rnd.random() < 0.5
    if c == 2:
        return rnd.randint(-5, 10 ** 12)
    if c == 3:
        return rnd.random() * 1e6
    if c == 4:
        return rnd.choice(TEXTS + ["file:///tmp/x.py", "untitled:1", "file:///%zz", "file://host"])
    if c == 5:
        return [value(rnd, depth + 1) for _ in range(rnd.randint(0, 3))]
    if c == 6:
        return {rnd.choice(KEYS): value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))}
    return {"line": rnd.randint(-3, 50), "character": rnd.randint(-3, 200)}


def message(rnd, folder):
    method = rnd.choice(METHODS)
    uri = rnd.choice(["file://%s/a.py" % folder, "file://%s/b%%20c.py" % folder, "untitled:x"])
    pos = lambda: {"line": rnd.randint(-1, 9), "character": rnd.randint(-1, 99)}
    params = {"textDocument": {"uri": uri, "languageId": "python", "version": rnd.randint(0, 9), "text": rnd.choice(TEXTS)},
              "contentChanges": [{"text": rnd.choice(TEXTS)} if rnd.random() < 0.5 else
                                 {"range": {"start": pos(), "end": pos()}, "text": rnd.choice(TEXTS)}],
              "range": {"start": pos(), "end": pos()}, "position": pos(),
              "context": {"only": rnd.choice([["quickfix"], ["source"], ["source.fixAll"], [], None])}}
    if rnd.random() < 0.3:
        params = value(rnd)
    m = {"jsonrpc": "2.0", "method": method, "params": params}
    if rnd.random() < 0.7:
        m["id"] = value(rnd) if rnd.random() < 0.1 else rnd.randint(1, 99)
    return json.dumps(m).encode()


def session(rnd, folder):
    body = b""
    if rnd.random() < 0.9:  # most sessions start properly, so the handlers behind initialize run
        init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}).encode()
        body += b"Content-Length: %d\r\n\r\n" % len(init) + init
    for _ in range(rnd.randint(1, 25)):
        b = message(rnd, folder)
        if rnd.random() < 0.03:
            b = b[: rnd.randint(0, len(b))]  # a body cut short: the framing breaks, the server ends
        body += b"Content-Length: %d\r\n\r\n" % len(b) + b
    return body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perflint")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sessions", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=0)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    sessions = a.sessions or (10 ** 9 if a.seconds else 300)
    deadline = time.time() + a.seconds if a.seconds else None
    with tempfile.TemporaryDirectory(prefix="perflint-lsp-fuzz-") as folder:
        with open(os.path.join(folder, "pyproject.toml"), "w") as f:
            f.write("[tool.perflint]\nextend-select = [\"PFL001\"]\n")
        for n in range(sessions):
            if deadline and time.time() > deadline:
                break
            body = session(rnd, folder)
            p = subprocess.run([a.perflint, "server"], input=body, capture_output=True, timeout=120, cwd=folder)
            err = p.stderr.decode("utf-8", "replace")
            if p.returncode not in (0, 1) or "AddressSanitizer" in err or "runtime error" in err or "internal error" in err:
                with open("lsp-crash.bin", "wb") as f:
                    f.write(body)
                print("lsp_sessions: session %d (seed %d) failed, exit %d; input in lsp-crash.bin\n%s"
                      % (n, a.seed, p.returncode, err[-3000:]), file=sys.stderr)
                return 1
    print("lsp_sessions: %d sessions clean (seed %d)" % (n + 1, a.seed), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
