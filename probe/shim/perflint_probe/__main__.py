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
    parser.add_argument("script", help="the training script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    opts = parser.parse_args(argv)
    args = opts.args[1:] if opts.args[:1] == ["--"] else opts.args
    try:
        requested = fixes.parse(opts.apply)
    except fixes.UsageError as e:
        parser.error(str(e))  # exit 2
    if opts.nproc > 1:
        from perflint_probe.launch import launch

        return launch(opts.nproc, opts.steps, opts.warmup, opts.out, opts.apply, opts.script, args)
    probe = Probe(steps=opts.steps, warmup=opts.warmup, out=opts.out, apply=requested)
    return probe.run(opts.script, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
