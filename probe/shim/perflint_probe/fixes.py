"""Run-time fixes for `perflint --probe --verify`: `--apply FIX` makes one change to the run (a
DataLoader argument, a backend flag, a debugging aid switched off) without editing the script.

A fix is a small class: `install` patches torch before the script runs, `enforce` (flag fixes)
puts a flag back when the script changed it, `hit` counts the times it took effect. Everything
else about the run stays as the script wrote it. Works on torch 1.13 and 2.x.
"""

import ast
import functools
import inspect
import multiprocessing
import os
import re
import sys

from perflint_probe import patches

# A loader whose workers the fix added gets this `timeout` (when it had none), so that a worker
# that never delivers (a deadlock after fork) ends the run with DataLoader's own error and a
# traceback instead of hanging until the runner's timeout. PERFLINT_PROBE_WORKER_TIMEOUT overrides it.
WORKER_TIMEOUT_S = 120.0

# Arguments of torch.utils.checkpoint.checkpoint that are for checkpointing, not for the function.
CHECKPOINT_ONLY_KWARGS = ("use_reentrant", "preserve_rng_state", "context_fn", "determinism_check", "debug")


class UsageError(ValueError):
    """A malformed or unknown --apply value (the shim exits 2)."""


class Fix:
    """One requested fix: what was asked, how often it took effect, why it could not be installed."""

    name = ""
    takes_count = False  # workers=N
    takes_site = False  # pin_memory@file:line
    loader = False  # applied by the DataLoader constructor wrapper
    flag = False  # a global setting re-asserted at step boundaries

    def __init__(self, given, count=None, site=None):
        self.given = given
        self.count = count
        self.site = site
        self.applied = 0
        self.error = None
        self.notes = []
        self.ctx = None

    def install(self, ctx):
        pass

    def enforce(self):
        """Flag fixes: put the setting back; True when it had to be changed."""
        return False

    def hit(self):
        if self.ctx is None or self.ctx.probe.in_user_code():
            self.applied += 1

    def note(self, text):
        if text not in self.notes and len(self.notes) < 20:
            self.notes.append(text)

    def record(self):
        return {"fix": self.given, "applied": self.applied, "error": self.error, "notes": list(self.notes)}


# ---- DataLoader arguments ------------------------------------------------------------------------
class LoaderArgs:
    """The arguments of one DataLoader(...) call, bound to the constructor's signature."""

    def __init__(self, signature, bound):
        self.signature = signature
        self.bound = bound

    def get(self, name):
        if name in self.bound.arguments:
            return self.bound.arguments[name]
        param = self.signature.parameters.get(name)
        return None if param is None else param.default

    def set(self, name, value):
        if name in self.signature.parameters:
            self.bound.arguments[name] = value


class Workers(Fix):
    name = "workers"
    takes_count = True
    takes_site = True
    loader = True

    def adjust(self, ctx, args, site):
        if self.count <= 0 or args.get("num_workers") != 0:
            return False
        method = _start_method(args.get("multiprocessing_context"))
        if method in ("spawn", "forkserver") and not ctx.module_line_is_main_guarded():
            # A spawned worker re-runs the script's unguarded top level (without the shim): with
            # the fix made in the file it would fail to start its own workers; here it would train.
            self.note("%s: not changed: the %s start method re-runs the script in each worker and this "
                      "DataLoader is built outside `if __name__ == \"__main__\":`" % (site, method))
            return False
        dataset = args.get("dataset")
        iterable = getattr(ctx.torch.utils.data, "IterableDataset", None)
        if iterable is not None and isinstance(dataset, iterable):
            self.note("%s: IterableDataset: each worker iterates all of it unless it splits the work "
                      "by get_worker_info()" % site)
        args.set("num_workers", self.count)
        if not args.get("timeout"):
            args.set("timeout", _worker_timeout())
        return True


class PinMemory(Fix):
    name = "pin_memory"
    takes_site = True
    loader = True

    def adjust(self, ctx, args, site):
        if args.get("pin_memory"):
            return False
        args.set("pin_memory", True)
        return True


class PersistentWorkers(Fix):
    name = "persistent_workers"
    takes_site = True
    loader = True

    def adjust(self, ctx, args, site):
        if not args.get("num_workers") or args.get("persistent_workers") or "persistent_workers" not in args.signature.parameters:
            return False
        args.set("persistent_workers", True)
        return True


def _worker_timeout():
    try:
        value = float(os.environ.get("PERFLINT_PROBE_WORKER_TIMEOUT", WORKER_TIMEOUT_S))
    except ValueError:
        value = WORKER_TIMEOUT_S
    return value if value > 0 else WORKER_TIMEOUT_S


def _start_method(context):
    if context is None:
        # get_start_method(allow_none=False) would fix the default: the script may still set one.
        return multiprocessing.get_start_method(allow_none=True) or multiprocessing.get_all_start_methods()[0]
    if isinstance(context, str):
        return context
    getter = getattr(context, "get_start_method", None)
    return getter() if getter is not None else None


# ---- host-to-device copies -----------------------------------------------------------------------
class NonBlocking(Fix):
    name = "non_blocking"

    def install(self, ctx):
        torch = ctx.torch
        parse_to = torch._C._nn._parse_to
        orig_to = torch.Tensor.to
        orig_cuda = torch.Tensor.cuda
        fix = self

        @functools.wraps(orig_to)
        def to(self, *args, **kwargs):
            if (args or kwargs) and not self.is_cuda and ctx.probe.in_user_code() and self.device.type == "cpu":
                try:
                    device, _, non_blocking, _ = parse_to(*args, **kwargs)
                except Exception:  # not a valid call: let torch say so
                    return orig_to(self, *args, **kwargs)
                if device is not None and device.type == "cuda" and not non_blocking and ctx.caller_is_user():
                    args, kwargs = _to_non_blocking(torch, args, kwargs)
                    fix.hit()
            return orig_to(self, *args, **kwargs)

        @functools.wraps(orig_cuda)
        def cuda(self, *args, **kwargs):
            if not self.is_cuda and ctx.probe.in_user_code() and self.device.type == "cpu":
                given = kwargs.get("non_blocking", args[1] if len(args) > 1 else False)
                if not given and ctx.caller_is_user():
                    if len(args) > 1 and "non_blocking" not in kwargs:
                        args = (args[0], True) + tuple(args[2:])
                    else:
                        kwargs = dict(kwargs, non_blocking=True)
                    fix.hit()
            return orig_cuda(self, *args, **kwargs)

        torch.Tensor.to = to
        torch.Tensor.cuda = cuda


def _to_non_blocking(torch, args, kwargs):
    """Tensor.to's arguments with non_blocking=True, wherever the call put it."""
    if "non_blocking" in kwargs:
        return args, dict(kwargs, non_blocking=True)
    # to(dtype, non_blocking, ...) and to(tensor, non_blocking, ...); to(device, dtype, non_blocking, ...)
    index = 1 if args and isinstance(args[0], (torch.dtype, torch.Tensor)) else 2
    if len(args) > index:
        return args[:index] + (True,) + tuple(args[index + 1:]), kwargs
    return args, dict(kwargs, non_blocking=True)


# ---- gradients -----------------------------------------------------------------------------------
class SetToNone(Fix):
    name = "set_to_none"

    def install(self, ctx):
        torch = ctx.torch
        for cls in (torch.optim.Optimizer, torch.nn.Module):
            orig = cls.zero_grad
            try:
                default = inspect.signature(orig).parameters["set_to_none"].default
            except (KeyError, TypeError, ValueError):
                default = False
            cls.zero_grad = self._wrap(ctx, orig, default)

    def _wrap(self, ctx, orig, default):
        fix = self

        @functools.wraps(orig)
        def zero_grad(self, *args, **kwargs):
            if len(args) + len(kwargs) <= 1 and set(kwargs) <= {"set_to_none"}:
                value = args[0] if args else kwargs.get("set_to_none", default)
                if not value and ctx.caller_is_user():
                    fix.hit()
                    return orig(self, set_to_none=True)
            return orig(self, *args, **kwargs)

        return zero_grad


# ---- activation checkpointing --------------------------------------------------------------------
class NoCheckpoint(Fix):
    """checkpoint(fn, *args) calls fn(*args); the probe's timing wrapper stays around the call, so
    `checkpoint_calls` still counts the calls and `checkpoint_forward_ms` is the plain forward."""

    name = "no_checkpoint"

    def install(self, ctx):
        import torch.utils.checkpoint as cp

        fix = self
        orig = cp.checkpoint

        @functools.wraps(orig)
        def checkpoint(function, *args, **kwargs):
            for key in CHECKPOINT_ONLY_KWARGS:
                kwargs.pop(key, None)
            fix.hit()
            return function(*args, **kwargs)

        cp.checkpoint = patches._timed_checkpoint(checkpoint, ctx.probe)
        orig_seq = getattr(cp, "checkpoint_sequential", None)
        if orig_seq is None:
            return

        @functools.wraps(orig_seq)
        def checkpoint_sequential(functions, segments, input, *args, **kwargs):
            if isinstance(functions, ctx.torch.nn.Sequential):
                functions = list(functions.children())
            fix.hit()
            for function in functions:
                input = function(input)
            return input

        cp.checkpoint_sequential = patches._timed_checkpoint(checkpoint_sequential, ctx.probe)

    def record(self):
        if self.ctx is not None and (self.ctx.probe.compile_count() or 0) > 0:
            # TorchDynamo maps whatever torch.utils.checkpoint.checkpoint is to its checkpoint
            # operator, so the pass-through never runs inside a compiled region.
            self.note("torch.compile was used: compiled regions still checkpoint")
        return Fix.record(self)


# ---- profilers -----------------------------------------------------------------------------------
class NoProfiler(Fix):
    """Profilers built by the script are stand-ins that record nothing; torch's own uses (Inductor
    times kernels with the profiler) still get the real one."""

    name = "no_profiler"

    def install(self, ctx):
        torch = ctx.torch
        import torch.autograd.profiler as autograd_profiler

        places = [(autograd_profiler, "profile", _NoProfile), (autograd_profiler, "emit_nvtx", _NoRange),
                  (autograd_profiler, "emit_itt", _NoRange)]
        legacy = _import("torch.autograd.profiler_legacy")
        if legacy is not None:
            places.append((legacy, "profile", _NoProfile))
        kineto = _import("torch.profiler")
        if kineto is not None:
            places.append((kineto, "profile", _NoProfile))
            inner = getattr(kineto, "profiler", None)
            if inner is not None and hasattr(inner, "profile"):
                places.append((inner, "profile", _NoProfile))
        done = {}
        for module, attr, base in places:
            orig = getattr(module, attr, None)
            if orig is None:
                continue
            if id(orig) not in done:
                done[id(orig)] = _stand_in(base, orig, ctx, self)
            setattr(module, attr, done[id(orig)])
        if torch.autograd._profiler_enabled():
            self.note("a profiler was already running when the script started")


def _stand_in(base, orig, ctx, fix):
    class StandIn(base):
        def __new__(cls, *args, **kwargs):
            if cls is StandIn and not ctx.caller_is_user():
                return orig(*args, **kwargs)  # not an instance: __init__ below is skipped
            return object.__new__(cls)

        def __init__(self, *args, **kwargs):
            base.__init__(self, *args, **kwargs)
            fix.hit()

    StandIn.__name__ = StandIn.__qualname__ = getattr(orig, "__name__", base.__name__)
    StandIn.__module__ = getattr(orig, "__module__", __name__)
    StandIn.__doc__ = "perflint --apply %s: a stand-in that records nothing." % fix.name
    return StandIn


class _NoRange:
    """emit_nvtx / emit_itt that emit nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _NoProfile(_NoRange):
    """torch.profiler.profile / torch.autograd.profiler.profile that record nothing."""

    def __init__(self, *args, **kwargs):
        self.step_num = 0
        self.profiler = self  # torch.profiler.profile().profiler is the autograd profiler
        self.enabled = False

    def start(self):
        pass

    def stop(self):
        pass

    def step(self):
        self.step_num += 1

    def export_chrome_trace(self, path):
        with open(path, "w") as f:
            f.write('{"traceEvents": []}\n')

    def export_stacks(self, path, metric="self_cpu_time_total"):
        with open(path, "w"):
            pass

    def key_averages(self, *args, **kwargs):
        return _event_list()

    def events(self):
        return _event_list()

    @property
    def function_events(self):
        return _event_list()

    def table(self, *args, **kwargs):
        return ""

    def total_average(self):
        return _event_list().total_average()

    @property
    def self_cpu_time_total(self):
        return 0.0

    def add_metadata(self, key, value):
        pass

    def add_metadata_json(self, key, value):
        pass

    def __getattr__(self, name):
        # Any other profiler method the script calls (export_memory_timeline, ...) does nothing.
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


def _event_list():
    try:
        from torch.autograd.profiler_util import EventList

        return EventList([])
    except Exception:
        return _EmptyEvents()


class _EmptyEvents(list):
    def table(self, *args, **kwargs):
        return ""

    def total_average(self):
        return None


# ---- anomaly detection ---------------------------------------------------------------------------
class NoAnomaly(Fix):
    """set_detect_anomaly(True) and detect_anomaly() become no-ops (as calls and as context
    managers); anomaly mode is switched off at install and at every step boundary."""

    name = "no_anomaly"
    flag = True

    def install(self, ctx):
        torch = ctx.torch
        import torch.autograd.anomaly_mode as anomaly_mode

        self.torch = torch
        self.set_enabled = torch.set_anomaly_enabled
        fix = self

        class set_detect_anomaly:
            def __init__(self, mode=True, *args, **kwargs):
                if mode:
                    fix.hit()
                else:
                    fix.enforce()

            def __enter__(self):
                pass

            def __exit__(self, *exc):
                return False

        class detect_anomaly:
            def __init__(self, *args, **kwargs):
                fix.hit()

            def __enter__(self):
                pass

            def __exit__(self, *exc):
                return False

        orig_set_enabled = self.set_enabled

        @functools.wraps(orig_set_enabled)
        def set_anomaly_enabled(enabled, *args, **kwargs):
            if enabled:
                fix.hit()
            return orig_set_enabled(False, *args, **kwargs)

        for module in (torch.autograd, anomaly_mode):
            module.set_detect_anomaly = set_detect_anomaly
            module.detect_anomaly = detect_anomaly
        torch.set_anomaly_enabled = set_anomaly_enabled

    def enforce(self):
        if self.torch.is_anomaly_enabled():
            self.set_enabled(False)
            return True
        return False


# ---- backend flags -------------------------------------------------------------------------------
class Tf32(Fix):
    """TF32 for float32 matmuls and cuDNN. Only the legacy setters are used: in torch >= 2.9 they
    keep the new fp32_precision API consistent, where mixing the two makes reads raise."""

    name = "tf32"
    flag = True

    def install(self, ctx):
        self.torch = ctx.torch

    def enforce(self):
        torch = self.torch
        backends = torch.backends
        changed = False
        if hasattr(torch, "set_float32_matmul_precision"):
            if _read(torch.get_float32_matmul_precision) not in ("high", "medium"):
                torch.set_float32_matmul_precision("high")
                changed = True
        if _read(lambda: backends.cuda.matmul.allow_tf32) is not True:
            backends.cuda.matmul.allow_tf32 = True
            changed = True
        if _read(lambda: backends.cudnn.allow_tf32) is not True:
            backends.cudnn.allow_tf32 = True
            changed = True
        return changed


class CudnnBenchmark(Fix):
    name = "cudnn_benchmark"
    flag = True

    def install(self, ctx):
        self.cudnn = ctx.torch.backends.cudnn

    def enforce(self):
        if not self.cudnn.benchmark:
            self.cudnn.benchmark = True
            return True
        return False


class NoDeterministic(Fix):
    name = "no_deterministic"
    flag = True

    def install(self, ctx):
        self.torch = ctx.torch

    def enforce(self):
        torch = self.torch
        changed = False
        if getattr(torch, "are_deterministic_algorithms_enabled", lambda: False)():
            torch.use_deterministic_algorithms(False)
            changed = True
        if torch.backends.cudnn.deterministic:
            torch.backends.cudnn.deterministic = False
            changed = True
        return changed


class NoLaunchBlocking(Fix):
    """CUDA_LAUNCH_BLOCKING is read when CUDA initialises: it is removed from the environment at
    install, again just before anything that can initialise CUDA, and at step boundaries."""

    name = "no_launch_blocking"
    flag = True

    def install(self, ctx):
        cuda = ctx.torch.cuda
        for attr in ("_lazy_init", "init", "is_available", "device_count"):
            orig = getattr(cuda, attr, None)
            if orig is not None:
                setattr(cuda, attr, self._before(orig))

    def _before(self, orig):
        fix = self

        @functools.wraps(orig)
        def wrapper(*args, **kwargs):
            if fix.enforce():
                fix.hit()
            return orig(*args, **kwargs)

        return wrapper

    def enforce(self):
        if os.environ.get("CUDA_LAUNCH_BLOCKING", "") not in ("", "0"):
            del os.environ["CUDA_LAUNCH_BLOCKING"]
            return True
        return False


def _read(getter):
    try:
        return getter()
    except Exception:  # torch >= 2.9 refuses to read some flags after mixed legacy/new API use
        return None


class NoFindUnused(Fix):
    """DistributedDataParallel(..., find_unused_parameters=True) is built with False: DDP no longer
    walks the autograd graph after every forward. A model that really leaves parameters unused then
    fails in its second backward (DDP says so): the fix run fails, and --verify reports it."""

    name = "no_find_unused"

    def install(self, ctx):
        ddp = getattr(ctx.torch.nn.parallel, "DistributedDataParallel", None)
        if ddp is None:
            return
        fix = self
        orig = ddp.__init__

        @functools.wraps(orig)
        def init(self, *args, **kwargs):
            if kwargs.get("find_unused_parameters"):
                fix.hit()
                kwargs["find_unused_parameters"] = False
            return orig(self, *args, **kwargs)

        ddp.__init__ = init


# ---- the command line and the run ----------------------------------------------------------------
FIXES = {cls.name: cls for cls in (Workers, PinMemory, PersistentWorkers, NonBlocking, Tf32, NoAnomaly, NoProfiler,
                                   NoCheckpoint, CudnnBenchmark, SetToNone, NoLaunchBlocking, NoDeterministic,
                                   NoFindUnused)}
# Loader fixes run in this order on each DataLoader: persistent_workers needs the workers first.
LOADER_ORDER = ("workers", "pin_memory", "persistent_workers")


def parse(values):
    """The fixes named by --apply values (each one fix, or several joined by commas)."""
    fixes = []
    seen = set()
    for given in _split(values):
        if given in seen:
            continue
        seen.add(given)
        fixes.append(_parse_one(given))
    return fixes


def _split(values):
    for value in values:
        parts = []
        for piece in value.split(","):
            # A SITE is "file:line" and the file may hold a comma: glue pieces back until it ends so.
            if parts and "@" in parts[-1] and not re.search(r":\d+$", parts[-1]) and _head(piece) not in FIXES:
                parts[-1] += "," + piece
            else:
                parts.append(piece)
        for part in parts:
            part = part.strip()
            if part:
                yield part


def _head(text):
    return re.split(r"[=@]", text.strip(), maxsplit=1)[0]


def _parse_one(given):
    spec, at, site = given.partition("@")
    name, eq, count = spec.partition("=")
    cls = FIXES.get(name)
    if cls is None:
        raise UsageError("unknown fix '%s' (known: %s)" % (name, ", ".join(sorted(FIXES))))
    if at and not cls.takes_site:
        raise UsageError("fix '%s' takes no @SITE" % name)
    if at and not site:
        raise UsageError("fix '%s': empty @SITE" % name)
    if cls.takes_count:
        if not eq or not re.fullmatch(r"\d+", count):
            raise UsageError("fix '%s' needs a worker count: %s=N" % (name, name))
        return cls(given, int(count), site or None)
    if eq:
        raise UsageError("fix '%s' takes no value" % name)
    return cls(given, None, site or None)


class Context:
    """What the installed fixes share: the probe, torch, and the step-boundary re-assertion."""

    def __init__(self, probe, fixes):
        self.probe = probe
        self.torch = probe.torch
        self.torch_dir = os.path.dirname(os.path.abspath(probe.torch.__file__)) + os.sep
        self.fixes = fixes
        self.flags = [f for f in fixes if f.flag and f.error is None]
        self.enforced_for = None  # the step (its counters object) whose first forward re-asserted
        self.script_tree = None

    def caller_is_user(self, depth=2):
        """Whether the code that called the patched function is outside torch (the script or a
        library it uses). depth 2: the caller of the function that calls this."""
        try:
            f = sys._getframe(depth)
        except ValueError:
            return False
        while f is not None:
            name = f.f_code.co_filename
            if not name.startswith(patches._SHIM_DIR) and not name.startswith("<"):
                return not name.startswith(self.torch_dir)
            f = f.f_back
        return False

    def reassert(self):
        """Puts every flag fix back (step boundaries, and the first forward of each step)."""
        if not self.flags or not self.probe.in_user_code():
            return
        for fix in self.flags:
            try:
                if fix.enforce():
                    fix.hit()
            except Exception as e:
                fix.note("re-asserting failed: %s: %s" % (type(e).__name__, e))

    def module_line_is_main_guarded(self):
        """Whether the script's top-level statement now running is inside `if __name__ == "__main__":`."""
        f = sys._getframe(1)
        while f is not None and not (f.f_code.co_name == "<module>" and os.path.abspath(f.f_code.co_filename) == self.probe.script):
            f = f.f_back
        if f is None:
            return True  # not reached from the script's top level (a thread): nothing to say
        line = f.f_lineno
        if self.script_tree is None:
            try:
                with open(self.probe.script, "rb") as src:
                    self.script_tree = ast.parse(src.read())
            except (OSError, SyntaxError, ValueError):
                return True
        for node in self.script_tree.body:
            if node.lineno <= line <= getattr(node, "end_lineno", node.lineno):
                return isinstance(node, ast.If) and _is_main_test(node.test) and any(
                    s.lineno <= line <= getattr(s, "end_lineno", s.lineno) for s in node.body)
        return False


def _is_main_test(test):
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(consts) == 1


def install(probe):
    """Installs probe.fixes after the probe's own instrumentation; returns the context (or None)."""
    fixes = list(probe.fixes)
    if not fixes:
        return None
    ctx = Context(probe, fixes)
    for fix in fixes:
        fix.ctx = ctx
        if fix.loader:
            continue
        try:
            fix.install(ctx)
            if fix.flag and fix.enforce():
                fix.hit()
        except Exception as e:
            fix.error = "%s: %s" % (type(e).__name__, e)
    loader_fixes = sorted((f for f in fixes if f.loader), key=lambda f: LOADER_ORDER.index(f.name))
    if loader_fixes:
        try:
            _install_loader_fixes(ctx, loader_fixes)
        except Exception as e:
            for fix in loader_fixes:
                fix.error = "%s: %s" % (type(e).__name__, e)
    ctx.flags = [f for f in fixes if f.flag and f.error is None]
    if ctx.flags:
        _install_forward_reassert(ctx)
    return ctx


def _install_loader_fixes(ctx, fixes):
    import torch.utils.data.dataloader as dl

    inner = dl.DataLoader.__init__  # the probe's recording wrapper: it sees the changed arguments
    signature = inspect.signature(inner)
    probe = ctx.probe

    @functools.wraps(inner)
    def dl_init(self, *args, **kwargs):
        changed = []
        if probe.in_user_code() and getattr(self, "_perflint_index", None) is None:
            try:
                bound = signature.bind(self, *args, **kwargs)
            except TypeError:  # a wrong call: the constructor will say so
                bound = None
            if bound is not None:
                site = patches._user_site(ctx.torch_dir.rstrip(os.sep))  # the string the evidence records
                loader_args = LoaderArgs(signature, bound)
                for fix in fixes:
                    if fix.error is None and (fix.site is None or fix.site == site) and fix.adjust(ctx, loader_args, site):
                        changed.append(fix)
                        fix.hit()
                if changed:
                    args, kwargs = bound.args[1:], bound.kwargs
        inner(self, *args, **kwargs)
        index = getattr(self, "_perflint_index", None)
        if index is not None and probe.in_user_code() and "fixes" not in probe.loaders[index]:
            probe.loaders[index]["fixes"] = [f.given for f in changed]

    dl.DataLoader.__init__ = dl_init


def _install_forward_reassert(ctx):
    """Re-asserts the flags at the first module forward of each step too, so that a value the
    script set before its loop does not last through the first step."""
    torch = ctx.torch
    module_mod = torch.nn.modules.module
    if not hasattr(module_mod, "register_module_forward_pre_hook"):
        return

    def pre_hook(module, inputs):
        # The compile check first: Dynamo would otherwise guard on the probe's per-step objects.
        if patches.compiling(torch) or ctx.enforced_for is ctx.probe.current:
            return
        ctx.enforced_for = ctx.probe.current
        ctx.reassert()

    module_mod.register_module_forward_pre_hook(pre_hook)


def _import(name):
    try:
        __import__(name)
        return sys.modules[name]
    except Exception:
        return None


def report(fixes):
    """The evidence's `applied` list."""
    return [fix.record() for fix in fixes]
