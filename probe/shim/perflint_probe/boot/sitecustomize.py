"""perflint's probe in the processes a launcher starts (`perflint --probe -- torchrun ...`).

`perflint_probe --launch` puts this directory first on PYTHONPATH and PERFLINT_PROBE_AUTO_OUT in the
environment. Python imports this module in every interpreter it starts; the probe starts in those the
launcher made ranks (RANK or LOCAL_RANK set: the launcher's own process has them removed), and never
in a process a probed rank starts itself (spawned DataLoader workers, `python -c`). Then the
sitecustomize this one hides (a distribution's own) runs as it would have.
"""
import os
import sys


def _start():
    out = os.environ.get("PERFLINT_PROBE_AUTO_OUT")
    if not out or ("RANK" not in os.environ and "LOCAL_RANK" not in os.environ):
        return
    if os.environ.get("PERFLINT_PROBE_ACTIVE"):
        return
    argv = getattr(sys, "argv", None) or [""]
    if argv[0] == "-c" or "--multiprocessing-fork" in argv:
        return
    os.environ["PERFLINT_PROBE_ACTIVE"] = str(os.getpid())
    try:
        from perflint_probe.auto import start

        start(out)
    except Exception as e:  # never break the user's process: it runs unmeasured
        sys.stderr.write("perflint probe: this process is not measured: %s: %s\n" % (type(e).__name__, e))


def _chain():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None or not spec.origin:
        return
    if os.path.abspath(spec.origin) == os.path.abspath(__file__):
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_start()
_chain()
