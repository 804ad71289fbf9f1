"""The probe's instrumentation of torch: thin wrappers that call the original and tell the probe.

Everything is installed before the script runs, so `from torch.utils.checkpoint import checkpoint`
in the script already gets the wrapper. Wrappers never change arguments or results.
"""

import functools
import inspect
import os
import sys
import threading
import time

_SHIM_DIR = os.path.dirname(os.path.abspath(__file__))
_local = threading.local()


def _user_site(torch_dir, depth=2, skip=None):
    """file:line of the innermost frame outside torch and the shim (the user's code); `skip`: one
    more file to pass over (the warnings module, between a warning and its handler)."""
    try:
        f = sys._getframe(depth)
    except ValueError:
        return "?"
    while f is not None:
        name = f.f_code.co_filename
        if (not name.startswith(torch_dir) and not name.startswith(_SHIM_DIR) and not name.startswith("<")
                and name != skip):
            return "%s:%d" % (name, f.f_lineno)
        f = f.f_back
    return "?"


def install(probe):
    import torch
    import torch.utils.data.dataloader as dl

    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))

    # ---- step boundaries ----------------------------------------------------------------------
    import torch.optim.optimizer as opt_mod
    orig_opt_init = torch.optim.Optimizer.__init__

    @functools.wraps(orig_opt_init)
    def opt_init(self, *args, **kwargs):
        probe.optimizer_created = True
        orig_opt_init(self, *args, **kwargs)
        if not hasattr(opt_mod, "register_optimizer_step_post_hook"):
            _wrap_step(type(self), probe)

    torch.optim.Optimizer.__init__ = opt_init
    if hasattr(opt_mod, "register_optimizer_step_post_hook"):  # torch >= 2.0: global hooks
        def opt_pre(opt, args, kwargs):
            _local.opt_start = time.perf_counter()
            _gpu_start(probe, "optimizer")

        def opt_post(opt, args, kwargs):
            start = getattr(_local, "opt_start", None)
            _local.opt_start = None
            _gpu_stop(probe, "optimizer")
            if start is not None and probe.in_user_code():
                probe.current.phases.add("optimizer", time.perf_counter() - start)
            probe.boundary("optimizer")

        if hasattr(opt_mod, "register_optimizer_step_pre_hook"):
            opt_mod.register_optimizer_step_pre_hook(opt_pre)
        opt_mod.register_optimizer_step_post_hook(opt_post)

    orig_tensor_backward = torch.Tensor.backward
    orig_autograd_backward = torch.autograd.backward

    def run_backward(orig, *args, **kwargs):
        depth = getattr(_local, "backward_depth", 0)
        _local.backward_depth = depth + 1
        phases = probe.current.phases
        t0 = time.perf_counter()
        if depth == 0:
            phases.in_backward = True  # forwards re-run by checkpointing are backward's time
            _gpu_start(probe, "backward")
        try:
            return orig(*args, **kwargs)
        finally:
            _local.backward_depth = depth
            if depth == 0:
                phases.in_backward = False
                _gpu_stop(probe, "backward")
                if probe.in_user_code():
                    phases.add("backward", time.perf_counter() - t0)
                probe.boundary("backward")

    @functools.wraps(orig_tensor_backward)
    def tensor_backward(self, *args, **kwargs):
        return run_backward(orig_tensor_backward, self, *args, **kwargs)

    @functools.wraps(orig_autograd_backward)
    def autograd_backward(*args, **kwargs):
        return run_backward(orig_autograd_backward, *args, **kwargs)

    torch.Tensor.backward = tensor_backward
    torch.autograd.backward = autograd_backward

    # ---- data loading -------------------------------------------------------------------------
    orig_dl_init = dl.DataLoader.__init__

    @functools.wraps(orig_dl_init)
    def dl_init(self, *args, **kwargs):
        orig_dl_init(self, *args, **kwargs)
        if not probe.in_user_code() or getattr(self, "_perflint_index", None) is not None:
            return
        record = {
            "site": _user_site(torch_dir),
            "num_workers": int(self.num_workers),
            "pin_memory": bool(self.pin_memory),
            "persistent_workers": bool(getattr(self, "persistent_workers", False)),
            "batch_size": self.batch_size,
            "drop_last": bool(self.drop_last),
            "prefetch_factor": getattr(self, "prefetch_factor", None),
            "iterators": 0,
            "batches": 0,
            "wait_ms": 0.0,
            "first_batch_wait_ms": [],
        }
        object.__setattr__(self, "_perflint_index", len(probe.loaders))
        probe.loaders.append(record)

    dl.DataLoader.__init__ = dl_init

    orig_iter_init = dl._BaseDataLoaderIter.__init__

    @functools.wraps(orig_iter_init)
    def iter_init(self, loader, *args, **kwargs):
        orig_iter_init(self, loader, *args, **kwargs)
        index = getattr(loader, "_perflint_index", None)
        self._perflint_index = index
        self._perflint_first = True
        if index is not None and probe.in_user_code():
            probe.loaders[index]["iterators"] += 1

    dl._BaseDataLoaderIter.__init__ = iter_init

    orig_next = dl._BaseDataLoaderIter.__next__

    @functools.wraps(orig_next)
    def iter_next(self):
        c = probe.current
        if c.loader_ready is None and getattr(self, "_num_workers", 0) > 0 and probe.in_user_code():
            c.loader_ready, c.loader_depth = _batches_ready(self)
            # an iterator's first batch cannot have been made ahead: -1, "just started"
            if getattr(self, "_perflint_first", False) and c.loader_ready is not None:
                c.loader_ready = -1
        t0 = time.perf_counter()
        try:
            return orig_next(self)
        finally:
            dt = time.perf_counter() - t0
            if probe.in_user_code():
                probe.current.data_wait += dt
                index = getattr(self, "_perflint_index", None)
                if index is not None:
                    rec = probe.loaders[index]
                    rec["batches"] += 1
                    rec["wait_ms"] += dt * 1000.0
                    if getattr(self, "_perflint_first", False):
                        self._perflint_first = False
                        rec["first_batch_wait_ms"].append(dt * 1000.0)

    dl._BaseDataLoaderIter.__next__ = iter_next

    # ---- host syncs / host copies -------------------------------------------------------------
    for op in ("item", "tolist", "cpu", "numpy", "__float__", "__int__"):
        orig = getattr(torch.Tensor, op, None)
        if orig is not None:
            setattr(torch.Tensor, op, _counting(orig, op, probe, torch_dir))

    # ---- zero_grad: time per step, and whether it zero-filled the gradients ----------------------
    torch.optim.Optimizer.zero_grad = _timed_zero_grad(torch.optim.Optimizer.zero_grad, probe)
    torch.nn.Module.zero_grad = _timed_zero_grad(torch.nn.Module.zero_grad, probe)

    # ---- activation checkpointing -------------------------------------------------------------
    import torch.utils.checkpoint as cp

    for name in ("checkpoint", "checkpoint_sequential"):
        orig = getattr(cp, name, None)
        if orig is not None:
            setattr(cp, name, _timed_checkpoint(orig, probe))

    # ---- forward: autocast seen, nn.Linear shapes, the forward phase (outermost module call) -----
    # One pre-hook and one post-hook for every module call while the first steps run; then, when those
    # steps have shown everything the hooks must see, only on the outermost modules (ForwardHooks).
    module_mod = torch.nn.modules.module
    if hasattr(module_mod, "register_module_forward_pre_hook") and hasattr(module_mod, "register_module_forward_hook"):
        probe.forward_hooks = ForwardHooks(probe, torch)

    for name in ("to", "cuda"):
        orig = getattr(torch.Tensor, name, None)
        if orig is not None:
            setattr(torch.Tensor, name, _timed_move(orig, probe, torch))

    _install_collectives(probe, torch)


# The torch.distributed calls whose time is the ranks' waiting on each other (plus the transfer).
_COLLECTIVES = ("all_reduce", "all_gather", "all_gather_into_tensor", "_all_gather_base", "reduce_scatter",
                "reduce_scatter_tensor", "_reduce_scatter_base", "broadcast", "reduce", "barrier", "all_to_all",
                "all_to_all_single", "gather", "scatter", "all_gather_object", "broadcast_object_list",
                "gather_object", "scatter_object_list", "monitored_barrier")


def _batches_ready(it):
    """(batches a worker DataLoader iterator has made and not yet handed out, batches it keeps in
    flight); (None, 0) when its internals are not the ones known (torch 1.13 to 2.x)."""
    try:
        depth = int(it._num_workers) * int(getattr(it, "_prefetch_factor", 2) or 2)
        ready = it._data_queue.qsize()  # from the workers, or from the pin-memory thread
        ready += sum(1 for info in it._task_info.values() if len(info) == 2)  # arrived out of order
        return ready, depth
    except Exception:  # NotImplementedError (qsize on some platforms), an iterator of another kind
        return None, 0


def _install_collectives(probe, torch):
    """Times the collectives the script calls (host time in the call: all of it for a blocking
    collective, the launch for `async_op=True`) and DDP's gradient all-reduce (each bucket from its
    launch in backward to its completion, via a communication hook)."""
    try:
        import torch.distributed as dist

        if not dist.is_available():
            return
    except Exception:
        return
    for name in _COLLECTIVES:
        orig = getattr(dist, name, None)
        if orig is not None and callable(orig):
            setattr(dist, name, _timed_collective(orig, probe))

    ddp = getattr(torch.nn.parallel, "DistributedDataParallel", None)
    if ddp is None:
        return
    hook_timing = hasattr(ddp, "register_comm_hook") and os.environ.get("PERFLINT_PROBE_DDP_HOOK") != "0"
    orig_register = getattr(ddp, "register_comm_hook", None)
    orig_forward = ddp.forward
    orig_inner = getattr(ddp, "_run_ddp_forward", None)

    def timed_hook(hook):
        def perflint_timed_hook(state, bucket):
            t0 = time.perf_counter()
            counters = probe.current
            fut = hook(state, bucket)

            def done(f):
                counters.ddp_allreduce_ms += (time.perf_counter() - t0) * 1000.0
                counters.ddp_buckets += 1
                return f.value()

            return fut.then(done)

        return perflint_timed_hook

    if hook_timing:
        @functools.wraps(orig_register)
        def register_comm_hook(self, state, hook):
            if self.__dict__.get("_perflint_hook") == "default":
                sys.stderr.write("perflint probe: a DDP communication hook registered after the first forward is not "
                                 "installed in this probe run; the gradients are all-reduced by torch's default hook\n")
                return None
            self.__dict__["_perflint_hook"] = "user"
            probe.ddp_hooked = True
            return orig_register(self, state, timed_hook(hook))

        ddp.register_comm_hook = register_comm_hook

    if orig_inner is not None:
        @functools.wraps(orig_inner)
        def run_ddp_forward(self, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return orig_inner(self, *args, **kwargs)
            finally:
                _local.ddp_inner = getattr(_local, "ddp_inner", 0.0) + time.perf_counter() - t0

        ddp._run_ddp_forward = run_ddp_forward

    @functools.wraps(orig_forward)
    def forward(self, *args, **kwargs):
        # The reducer's built-in all-reduce has no Python hook to time; torch's own allreduce_hook
        # (the same sum and division by the world size, in Python) stands in for it from the first
        # forward on, unless the script registered its own hook (which is then timed).
        if hook_timing and "_perflint_hook" not in self.__dict__:
            self.__dict__["_perflint_hook"] = "default"
            try:
                from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

                orig_register(self, self.process_group, timed_hook(allreduce_hook))
                probe.ddp_hooked = True
            except Exception as e:  # never break the run: it goes on untimed
                sys.stderr.write("perflint probe: DDP's all-reduce is not timed: %s\n" % e)
        if orig_inner is None or not probe.in_user_code():
            return orig_forward(self, *args, **kwargs)
        _local.ddp_inner = 0.0
        t0 = time.perf_counter()
        out = orig_forward(self, *args, **kwargs)
        c = probe.current
        c.ddp_forwards += 1
        c.ddp_forward_overhead_ms += max(0.0, time.perf_counter() - t0 - _local.ddp_inner) * 1000.0
        if getattr(self, "find_unused_parameters", False):
            c.ddp_find_unused = True
        return out

    ddp.forward = forward


def _timed_collective(orig, probe):
    @functools.wraps(orig)
    def collective(*args, **kwargs):
        if getattr(_local, "in_collective", False) or not probe.in_user_code():
            return orig(*args, **kwargs)  # nested (all_gather_object's own all_gather) or not ours
        _local.in_collective = True
        t0 = time.perf_counter()
        try:
            return orig(*args, **kwargs)
        finally:
            _local.in_collective = False
            c = probe.current
            c.comm_ms += (time.perf_counter() - t0) * 1000.0
            c.comm_calls += 1

    return collective


_is_compiling = []  # the check, once found (called for every module call: looked up once)


def compiling(torch):
    """True while TorchDynamo traces (torch.compile); False on torch 1.x."""
    if _is_compiling:
        return _is_compiling[0]()
    check = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    if check is None:  # torch 2.0-2.2: Dynamo's own, once torch._dynamo is imported; torch 1.x: none
        check = getattr(sys.modules.get("torch._dynamo"), "is_compiling", None)
    if check is None:
        if not hasattr(torch, "compile"):  # torch 1.x: nothing ever compiles
            _is_compiling.append(_never)
        return False
    _is_compiling.append(check)
    return bool(check())


def _never():
    return False


class ForwardHooks:
    """The forward phase (the outermost module call of a step), autocast seen in a step, and the
    nn.Linear GEMM shapes. Global module hooks see every module call, but a host-bound step of many
    small modules pays for each call (a 0.4 ms step of 17 modules ran 50% slower under the probe).
    So the global hooks run only until `narrow()`: at the end of warm-up, when the steps so far have
    found their outermost modules and no autocast entered below them, hooks on those modules alone
    take over and the others run on torch's fast path. The global hooks stay when narrowing would
    lose something: autocast first entered inside a model's forward, torch.compile in use (removing
    global hooks would invalidate Dynamo's guards: a recompile in the measured steps), or no module
    call seen at all."""

    def __init__(self, probe, torch):
        self.probe = probe
        self.torch = torch
        module_mod = torch.nn.modules.module
        self.cpu_autocast = getattr(torch, "is_autocast_cpu_enabled", lambda: False)
        self.autocast_enabled = torch.is_autocast_enabled
        self.linear = torch.nn.Linear
        self.roots = {}  # id -> module: modules called at depth 0, outside backward, while global
        self.inner_autocast = False  # autocast first seen below the outermost module in some step
        self.narrowed = None  # None: not tried; else what narrow() did, for the evidence
        self.handles = [module_mod.register_module_forward_pre_hook(self.enter),
                        module_mod.register_module_forward_hook(self.exit)]

    def enter(self, module, inputs):
        # Inside torch.compile's tracing, touching the probe's objects would make Dynamo guard on
        # them (a new StepCounters every step: a recompile every step). Checked first.
        torch = self.torch
        if compiling(torch):
            return
        probe = self.probe
        c = probe.current
        ph = c.phases
        outermost = ph.forward_depth == 0 and not ph.in_backward
        if not c.autocast and (self.autocast_enabled() or self.cpu_autocast()):
            c.autocast = True
            if not outermost and not ph.in_backward:
                self.inner_autocast = True
        if outermost:
            self.roots[id(module)] = module
            _gpu_start(probe, "forward")
        ph.forward_enter()
        # The GEMM shapes the model runs (nn.Linear: (M x K) @ (K x N)), for `perflint calibrate
        # --gemm` and the estimates (ranked by work: the first steps rank them as well as all).
        linear = self.linear
        if type(module) is linear or isinstance(module, linear):
            try:
                x = inputs[0]
                k = int(x.shape[-1])
                key = (x.numel() // k if k else 0, int(module.out_features), k)
            except Exception:
                return
            shapes = probe.gemm_shapes
            shapes[key] = shapes.get(key, 0) + 1

    def exit(self, module, inputs, output):
        if not compiling(self.torch):
            ph = self.probe.current.phases
            ph.forward_exit()
            if ph.forward_depth == 0 and not ph.in_backward:
                _gpu_stop(self.probe, "forward")

    def root_enter(self, module, inputs):
        probe = self.probe
        c = probe.current
        ph = c.phases
        if not c.autocast and (self.autocast_enabled() or self.cpu_autocast()):
            c.autocast = True
        if ph.forward_depth == 0 and not ph.in_backward:
            _gpu_start(probe, "forward")
        ph.forward_enter()

    def narrow(self, compiled):
        """Called once, at a step boundary: swap the global hooks for hooks on the outermost modules
        when that loses nothing (see the class). Returns what was done, for the evidence."""
        if self.narrowed is not None:
            return self.narrowed
        if compiled:
            self.narrowed = "global: torch.compile in use"
        elif self.inner_autocast:
            self.narrowed = "global: autocast entered inside a module's forward"
        elif not self.roots:
            self.narrowed = "global: no module call seen yet"
        else:
            try:
                handles = []
                for module in self.roots.values():
                    handles.append(module.register_forward_pre_hook(self.root_enter))
                    handles.append(module.register_forward_hook(self.exit))
            except Exception:
                for h in handles:
                    h.remove()
                self.narrowed = "global: a module refused a hook"
                return self.narrowed
            for h in self.handles:
                h.remove()
            self.handles = handles
            self.narrowed = "outermost: %d module%s" % (len(self.roots), "" if len(self.roots) == 1 else "s")
        return self.narrowed


def _wrap_step(cls, probe):
    """torch < 2.0: wrap an optimizer class's step() once (subclasses each get their own)."""
    step = cls.__dict__.get("step")
    if step is None or getattr(step, "_perflint_wrapped", False):
        return

    @functools.wraps(step)
    def wrapped(self, *args, **kwargs):
        t0 = time.perf_counter()
        _gpu_start(probe, "optimizer")
        result = step(self, *args, **kwargs)
        _gpu_stop(probe, "optimizer")
        if probe.in_user_code():
            probe.current.phases.add("optimizer", time.perf_counter() - t0)
        probe.boundary("optimizer")
        return result

    wrapped._perflint_wrapped = True
    setattr(cls, "step", wrapped)


def _gpu_start(probe, phase):
    """CUDA: an event on the current stream where the phase starts (probe.gpu_events, once CUDA is in use)."""
    ev = probe.gpu_events
    if ev is not None and probe.in_user_code():
        ev.start(phase)


def _gpu_stop(probe, phase):
    ev = probe.gpu_events
    if ev is not None and probe.in_user_code():
        ev.stop(phase, len(probe.records))


def _timed_move(orig, probe, torch):
    """Tensor.to / .cuda: the time of calls that move a host tensor to a device (the h2d phase)."""

    @functools.wraps(orig)
    def wrapper(self, *args, **kwargs):
        if compiling(torch) or self.is_cuda:
            return orig(self, *args, **kwargs)
        t0 = time.perf_counter()
        _gpu_start(probe, "h2d")
        result = orig(self, *args, **kwargs)
        _gpu_stop(probe, "h2d")
        if result is not self and getattr(result, "is_cuda", False) and probe.in_user_code():
            probe.current.phases.add("h2d", time.perf_counter() - t0)
        return result

    return wrapper


def _counting(orig, op, probe, torch_dir):
    @functools.wraps(orig)
    def wrapper(self, *args, **kwargs):
        if not compiling(probe.torch) and probe.in_user_code():
            # torch's own reads of host tensors (Adam's step count on torch 1.x, checkpoint's
            # bookkeeping on 2.x: 96 a step) are no read the user wrote and no wait on the device;
            # a read of a CUDA tensor is a sync whoever makes it, counted at the user's line.
            cuda = self.is_cuda
            if cuda or not sys._getframe(1).f_code.co_filename.startswith(torch_dir):
                probe.count_sync(op, _user_site(torch_dir), cuda)
        return orig(self, *args, **kwargs)

    return wrapper


def _timed_checkpoint(orig, probe):
    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        if compiling(probe.torch):  # traced by torch.compile: no timing (a graph break), just the call
            return orig(*args, **kwargs)
        t0 = time.perf_counter()
        try:
            return orig(*args, **kwargs)
        finally:
            if probe.in_user_code():
                probe.current.checkpoint_calls += 1
                probe.current.checkpoint_ms += (time.perf_counter() - t0) * 1000.0

    return wrapper


def _timed_zero_grad(orig, probe):
    """Times zero_grad and tells whether this call filled gradients with zeros (set_to_none=False,
    given or the torch version's default: False before torch 2.0, True after)."""
    try:
        default = inspect.signature(orig).parameters["set_to_none"].default
    except (KeyError, TypeError, ValueError):
        default = True

    @functools.wraps(orig)
    def wrapper(self, *args, **kwargs):
        if compiling(probe.torch) or not probe.in_user_code():
            return orig(self, *args, **kwargs)
        set_to_none = kwargs.get("set_to_none", args[0] if args else default)
        t0 = time.perf_counter()
        try:
            return orig(self, *args, **kwargs)
        finally:
            c = probe.current
            c.zero_grad_calls += 1
            c.zero_grad_fill_calls += 0 if set_to_none else 1
            c.zero_grad_ms += (time.perf_counter() - t0) * 1000.0

    return wrapper


class SyncDebug:
    """Host syncs on CUDA, attributed to the user's file:line, from torch.cuda.set_sync_debug_mode.

    In "warn" mode torch raises a UserWarning ("called a synchronizing CUDA operation") from every
    synchronizing call, including those deep inside torch (nonzero, masked indexing, `if tensor:`).
    The probe makes that warning always fire (a filter at the front of warnings.filters) and takes it
    out of warnings.showwarning before anything prints it, so the script's output and its own warning
    handling stay as they were. Both are re-asserted at every step (the script may replace them).
    Started at the first step boundary, only when the script has already initialized CUDA: the probe
    never initializes CUDA itself, and never overrides a sync debug mode the script chose.
    """

    MESSAGE = "called a synchronizing CUDA operation"

    @classmethod
    def start(cls, probe):
        torch = probe.torch
        try:
            if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
                return False
            if not hasattr(torch.cuda, "set_sync_debug_mode") or torch.cuda.get_sync_debug_mode() != 0:
                return False
            self = cls(probe)
            self.reassert()
            torch.cuda.set_sync_debug_mode("warn")
            return self
        except Exception:
            return False

    def __init__(self, probe):
        import warnings

        self.probe = probe
        self.warnings = warnings
        self.torch_dir = os.path.dirname(os.path.abspath(probe.torch.__file__))
        self.filter = ("always", None, UserWarning, None, 0)
        self.hook = None

    def reassert(self):
        warnings = self.warnings
        try:
            current = warnings.filters
            if not current or current[0][0] != "always" or getattr(current[0][1], "pattern", None) != self.MESSAGE:
                warnings.filterwarnings("always", message=self.MESSAGE, category=UserWarning)
            if warnings.showwarning is not self.hook:
                self.hook = self._make_hook(warnings.showwarning)
                warnings.showwarning = self.hook
        except Exception:
            pass

    def _make_hook(self, previous):
        probe, torch_dir, message = self.probe, self.torch_dir, self.MESSAGE
        warnings_file = self.warnings.__file__

        def showwarning(msg, category, filename, lineno, file=None, line=None):
            if category is UserWarning and str(msg).startswith(message):
                if probe.in_user_code():
                    probe.count_sync("sync", _user_site(torch_dir, 1, warnings_file), True)
                return None
            return previous(msg, category, filename, lineno, file, line)

        return showwarning
