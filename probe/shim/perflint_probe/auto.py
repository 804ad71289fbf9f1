"""The probe started inside a rank of a launcher (boot/sitecustomize.py): its settings come from the
environment `perflint_probe --launch` set, its evidence goes to `<out>.rank<RANK>`."""
import os

from perflint_probe import fixes
from perflint_probe.runtime import Probe


def _int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def start(out):
    rank = _int("RANK", _int("LOCAL_RANK", 0))
    apply = [a for a in os.environ.get("PERFLINT_PROBE_APPLY", "").split("\n") if a]
    probe = Probe(steps=_int("PERFLINT_PROBE_STEPS", 10), warmup=_int("PERFLINT_PROBE_WARMUP", 3),
                  out="%s.rank%d" % (out, rank), apply=fixes.parse(apply))
    probe.start_in_process()
    return probe
