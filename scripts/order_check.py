#!/usr/bin/env python3
"""Checks that perflint's findings do not depend on the order in which it lints a project's files.

    scripts/order_check.py BUILD/perflint REPO [REPO ...]

For each repository directory, lints its .py files (hidden directories skipped) twice at --jobs 1, in path
order and in reverse order, and compares the findings (path, line, code, message). Prints each repository
whose findings differ, with a few of the differences, and a total; exits 1 when any differs.
"""
import json
import os
import subprocess
import sys
import tempfile


def findings(binary, repo, files):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([binary, "--isolated", "--no-cache", "--select", "ALL", "--jobs", "1", "--exit-zero",
                        "--output-format", "json", "-o", out.name] + files,
                       cwd=repo, capture_output=True, timeout=900, check=False)
        try:
            data = json.load(open(out.name))
        except ValueError:
            return None
    return sorted((f["path"], f["line"], f["code"], f["message"]) for f in data.get("findings", []))


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    checked = differing = 0
    for repo in argv[2:]:
        files = []
        for root, dirs, names in os.walk(repo):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            files += [os.path.relpath(os.path.join(root, n), repo) for n in names if n.endswith(".py")]
        files.sort()
        if not files:
            continue
        forward, backward = findings(binary, repo, files), findings(binary, repo, files[::-1])
        checked += 1
        if forward != backward:
            differing += 1
            a, b = set(forward or []), set(backward or [])
            print(f"{repo}: {len(a - b)} only in path order, {len(b - a)} only in reverse order")
            for f in sorted(a - b)[:5]:
                print("  path order:   ", *f[:3])
            for f in sorted(b - a)[:5]:
                print("  reverse order:", *f[:3])
    print(f"{checked} repositories, {differing} with order-dependent findings")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
