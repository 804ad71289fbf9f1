"""Entry point: parse the probe's own arguments, install the instrumentation, run the script."""

import argparse
import sys

from perflint_probe import fixes
from perflint_probe.runtime import Probe


def main(argv):
    parser = argparse.ArgumentParser(prog="perflint_probe", add_help=True)
    parser.add_argument("--steps", type=int, default=10, help="measured steps after warm-up")
    parser.add_argument("--warmup", type=int, default=3, help="steps run before measuring")
    parser.add_argument("--out", required=True, help="where to write the evidence JSON")
    parser.add_argument("--apply", action="append", default=[], metavar="FIX",
                        help="a run-time fix (repeatable, or comma-separated): %s" % ", ".join(sorted(fixes.FIXES)))
    parser.add_argument("--nproc", type=int, default=1,
                        help="ranks to start (env:// rendezvous, as torchrun); each writes OUT.rank<R>")
    parser.add_argument("--module", metavar="MODULE", help="run MODULE as `python -m MODULE` does (no SCRIPT)")
    parser.add_argument("--launch", action="store_true",
                        help="the rest is a launcher command (torchrun ...): each rank it starts is probed")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="SCRIPT ARGS, or ARGS with --module, or the launcher command")
    opts = parser.parse_args(argv)
    rest = opts.rest[1:] if opts.rest[:1] == ["--"] else opts.rest
    try:
        requested = fixes.parse(opts.apply)
    except fixes.UsageError as e:
        parser.error(str(e))  # exit 2
    if opts.launch:
        if not rest:
            parser.error("--launch needs a command")
        from perflint_probe.launch import launch_command

        return launch_command(rest, opts.steps, opts.warmup, opts.out, opts.apply)
    if opts.module is None and not rest:
        parser.error("a SCRIPT (or --module MODULE, or --launch COMMAND) is required")
    script, args = (None, rest) if opts.module else (rest[0], rest[1:])
    if opts.nproc > 1:
        from perflint_probe.launch import launch

        return launch(opts.nproc, opts.steps, opts.warmup, opts.out, opts.apply, script, args, module=opts.module)
    probe = Probe(steps=opts.steps, warmup=opts.warmup, out=opts.out, apply=requested)
    if opts.module:
        return probe.run_module(opts.module, args)
    prepared = probe.prepare(script, args)
    return prepared if isinstance(prepared, int) else (probe,) + prepared


if __name__ == "__main__":
    # A script runs from this frame, not from main(): the fewer frames of ours under the script's,
    # the less its stack costs where torch records it (anomaly mode: at every op).
    _prepared = main(sys.argv[1:])
    if not isinstance(_prepared, tuple):
        sys.exit(_prepared)
    _probe, _code, _module = _prepared
    del _prepared
    try:
        exec(_code, _module.__dict__)
    except BaseException as _e:
        sys.exit(_probe.finish(_e))
    sys.exit(_probe.finish(None))
