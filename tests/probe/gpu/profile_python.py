"""The probe's interpreter under cProfile, for tests/probe/gpu/shim_profile.sh: perflint runs
`<python> -m perflint_probe ...`; this runs the same module under a profiler and writes the profile
to $PROF when the shim ends the script (it ends it with os._exit, which a plain `-m cProfile` never
sees). NOSYNC=1 removes torch.cuda.set_sync_debug_mode first, so the probe runs without its CUDA
sync attribution (what that costs). Without PROF it only runs the module."""
import cProfile, os, sys, runpy
prof_path = os.environ.get("PROF")
if os.environ.get("NOSYNC") == "1":
    import torch
    del torch.cuda.set_sync_debug_mode
pr = cProfile.Profile() if prof_path else None
_real_exit = os._exit
def _exit(code):
    if pr:
        pr.disable(); pr.dump_stats(prof_path)
    _real_exit(code)
os._exit = _exit
args = sys.argv[1:]
assert args[0] == "-m", args
sys.argv = [args[1]] + args[2:]
if pr: pr.enable()
runpy.run_module(args[1], run_name="__main__", alter_sys=True)
