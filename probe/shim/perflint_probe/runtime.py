"""The probe's runtime: step boundaries, per-step counters, and the evidence file.

Step boundaries come from the optimizer (its step() returns) when the script creates one before its
first backward, otherwise from backward(). The first `warmup` steps are recorded but excluded from
the figures perflint prints. After warmup + steps steps the evidence is written and the process
ends at once (os._exit), so the script's remaining epochs never run.

Every completed step is also appended, as one JSON line, to `<out>.steps` (the first line is a
header: the evidence so far without steps). When the process dies without writing the evidence file
(os._exit, a segfault, SIGKILL after ignoring SIGTERM, the OOM killer) perflint rebuilds the
evidence from that log, so no completed step is lost.
"""

import json
import os
import resource
import runpy
import signal
import sys
import time
import traceback

from perflint_probe import EVIDENCE_SCHEMA
from perflint_probe import fixes
from perflint_probe import patches
from perflint_probe.phases import EventPhases, HostPhases, StepClock, apply_step_clock


def _env_int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


class StepCounters:
    """What one step did. Reset at every boundary."""

    __slots__ = ("start", "data_wait", "syncs", "autocast", "checkpoint_calls", "checkpoint_ms", "backward_calls",
                 "zero_grad_calls", "zero_grad_fill_calls", "zero_grad_ms", "phases", "comm_ms", "comm_calls",
                 "ddp_allreduce_ms", "ddp_buckets", "ddp_forwards", "ddp_forward_overhead_ms", "ddp_find_unused",
                 "loader_ready", "loader_depth")

    def __init__(self, start):
        self.start = start
        self.data_wait = 0.0
        self.syncs = {}
        self.autocast = False
        self.checkpoint_calls = 0
        self.checkpoint_ms = 0.0
        self.backward_calls = 0
        self.zero_grad_calls = 0
        self.zero_grad_fill_calls = 0  # calls that zero-filled the gradients (set_to_none=False)
        self.zero_grad_ms = 0.0
        self.phases = HostPhases()
        self.comm_ms = 0.0  # host time inside torch.distributed collectives the script calls
        self.comm_calls = 0
        self.ddp_allreduce_ms = 0.0  # DDP's gradient all-reduce: each bucket from launch to completion
        self.ddp_buckets = 0
        # DDP.forward's own work around the module's forward (find_unused_parameters=True walks the
        # autograd graph there, every step), and whether an instance had that on.
        self.ddp_forwards = 0
        self.ddp_forward_overhead_ms = 0.0
        self.ddp_find_unused = False
        # The first batch this step took from a DataLoader with workers: how many batches were
        # already made and waiting (None: not known), and how many the loader keeps in flight
        # (num_workers x prefetch_factor).
        self.loader_ready = None
        self.loader_depth = 0


class Probe:
    def __init__(self, steps, warmup, out, apply=()):
        self.steps = max(1, steps)
        self.warmup = max(0, warmup)
        self.warmup_requested = self.warmup
        # Warm-up steps added while a DataLoader's prefetched batches were being used up, and why.
        self.warmup_added = 0
        self.warmup_reason = None
        self._ready_history = []
        self.out = out
        self.pid = os.getpid()
        self.torch = None
        self.script = None
        self.marker = None  # "optimizer" or "backward", fixed at the first boundary
        self.optimizer_created = False
        self.records = []
        self.current = StepCounters(time.perf_counter())
        self.loaders = []  # dicts, in construction order
        self.flags_seen = {}
        self.finished = False
        self.started = time.perf_counter()
        self.exit = {"reason": "script_exit", "code": 0}
        self.progress_fd = None  # `<out>.progress`: steps done so far, for the runner's progress line
        self.steps_fd = None  # `<out>.steps`: header line, then one line per completed step (append-only)
        self.cupti = _cupti_library()  # the injection library when the runner loaded it, else None
        self.fixes = list(apply)  # --apply: run-time fixes (fixes.py), installed after the patches
        self.fix_context = None
        self.sync_debug = None  # patches.SyncDebug once torch.cuda.set_sync_debug_mode("warn") is on
        self.gemm_shapes = {}  # (m, n, k) of nn.Linear forwards -> calls, while the global hooks run
        self.forward_hooks = None  # patches.ForwardHooks, when this torch has global module hooks
        # CUDA: phases also timed with CUDA events (phases.EventPhases), created once CUDA is in use
        # and resolved at later boundaries without a sync; step index -> {phase: ms}.
        self.gpu_events = None
        self.gpu_phase_ms = {}
        # CUDA: the step boundaries on the GPU timeline (phases.StepClock); the steps' clock is the
        # GPU's when every measured step was resolved on it ("cuda_events"), else the host's.
        self.step_clock = None
        self.step_clock_name = "host"
        # The probe's DDP communication hook is in place (patches._install_collectives): the reducer
        # holds a Python callable, and tearing the interpreter down with it (after a crash, while the
        # other ranks wait in a collective) can abort the process. Such a process leaves with
        # os._exit once its evidence is written, with the code the script's end gave.
        self.ddp_hooked = False

    # ---- running the script -----------------------------------------------------------------
    def setup(self, script):
        """Imports torch and installs the instrumentation; an exit code when there is no torch."""
        self.script = os.path.abspath(script) if script else None
        try:
            import torch  # noqa: F401  (the probe measures torch scripts)

            self.torch = torch
        except Exception as e:  # no torch: nothing to measure; perflint makes it a usage error (exit 2)
            self.exit = {"reason": "no_torch", "code": 1, "traceback": "%s: %s" % (type(e).__name__, e)}
            self.write()
            return 1
        patches.install(self)
        self.fix_context = fixes.install(self)
        if self.cupti is not None and self.warmup > 0:
            self.cupti.perflint_cupti_enable(0)  # warm-up untraced: start-up work is not the steps'
        signal.signal(signal.SIGTERM, self._on_sigterm)
        return None

    def run(self, script, args):
        """Runs SCRIPT under the probe (as `python SCRIPT ARGS`); returns the exit code."""
        prepared = self.prepare(script, args)
        if isinstance(prepared, int):
            return prepared
        code, module = prepared
        try:
            exec(code, module.__dict__)
        except BaseException as e:
            return self.finish(e)
        return self.finish(None)

    def prepare(self, script, args):
        """Sets up for SCRIPT: the exit code when it cannot start, else (code, module): its code
        compiled and the `__main__` module to exec it in, which `perflint_probe.__main__` does from
        its own top-level frame. That is runpy.run_path for a .py file without its frames: autograd's
        anomaly mode records the Python stack at every op, and every frame of ours on that stack was
        a cost the bare script does not pay (+19% per step with ten frames). Anything but a plain
        source file (a directory, a zip, a .pyc) still goes through runpy."""
        sys.argv = [script] + list(args)
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        code = self.setup(script)
        if code is not None:
            return code
        try:
            if not os.path.isfile(self.script) or self.script.endswith((".pyc", ".pyo")):
                raise ValueError("not a source file")
            with open(self.script, "rb") as f:
                source = f.read()
            if source[:4] == b"PK\x03\x04":
                raise ValueError("a zip archive")
            compiled = compile(source, script, "exec", dont_inherit=True)
        except SyntaxError:
            compiled = None  # raised again by runpy, reported as the script's crash
        except (OSError, ValueError):
            compiled = None
        if compiled is None:
            return compile("import runpy\nrunpy.run_path(%r, run_name='__main__')\n" % self.script,
                           "<perflint probe>", "exec"), _main_module(None)
        return compiled, _main_module(script)

    def finish(self, exc):
        """After the script's code returned (exc None) or raised EXC: records how it ended, writes
        the evidence and returns the exit code."""
        return self._run(lambda: _reraise(exc))

    def run_module(self, module, args):
        """`python -m MODULE ARGS` under the probe: the current directory first on sys.path, as there."""
        import importlib.util

        sys.argv = [module] + list(args)
        sys.path[0] = os.getcwd()
        try:
            spec = importlib.util.find_spec(module)
            if spec is not None and spec.submodule_search_locations is not None:  # a package: its __main__
                spec = importlib.util.find_spec(module + ".__main__")
        except Exception as e:
            spec, error = None, "%s: %s" % (type(e).__name__, e)
        else:
            error = "No module named %s" % module
        if spec is None or not spec.origin:
            self.exit = {"reason": "crash", "code": 1, "traceback": error}
            sys.stderr.write(error + "\n")
            self.write()
            return 1
        code = self.setup(spec.origin)
        if code is not None:
            return code
        return self._run(lambda: runpy.run_module(module, run_name="__main__", alter_sys=True))

    def start_in_process(self):
        """In a process a launcher started (perflint_probe.boot): the script runs as Python runs it;
        the evidence is written when a step count is reached (as always), at exit, or on a crash."""
        argv0 = sys.argv[0] if getattr(sys, "argv", None) else ""
        if self.setup(argv0 if argv0 not in ("", "-m", "-c") else None) is not None:
            return
        import atexit

        atexit.register(self.write)
        previous = sys.excepthook

        def excepthook(kind, value, tb):
            if self.in_user_code() and not isinstance(value, KeyboardInterrupt):
                text = "".join(traceback.format_exception(kind, value, tb))
                self.exit = {"reason": "crash", "code": 1, "traceback": _tail(text, 40)}
            previous(kind, value, tb)
            if self.ddp_hooked and self.in_user_code():
                self.write()
                _flush_and_exit(1)

        sys.excepthook = excepthook

    def _run(self, run):
        code = 0
        try:
            run()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            self.exit = {"reason": "script_exit", "code": code}
        except KeyboardInterrupt:
            code = 130
            self.exit = {"reason": "interrupted", "code": code}
        except BaseException as e:
            code = 1
            text = self._script_traceback(e)
            self.exit = {"reason": "crash", "code": code, "traceback": _tail(text, 40)}
            sys.stderr.write(text)
        else:
            self.exit = {"reason": "script_exit", "code": 0}
        self.write()
        if self.ddp_hooked:
            _flush_and_exit(code)
        return code

    def _script_traceback(self, exc):
        """The traceback from the script's first frame on: the shim's own frames are noise."""
        tb = exc.__traceback__
        first = tb
        while tb is not None and self.script and os.path.abspath(tb.tb_frame.f_code.co_filename) != self.script:
            tb = tb.tb_next
        return "".join(traceback.format_exception(type(exc), exc, tb if tb is not None else first))

    def _on_sigterm(self, signum, frame):
        self.exit = {"reason": "terminated", "code": 128 + signum}
        self.write()
        _flush_and_exit(128 + signum)

    # ---- events from the patches ----------------------------------------------------------------
    def in_user_code(self):
        return not self.finished and os.getpid() == self.pid

    def boundary(self, kind):
        """Called when an optimizer step or a backward pass returns."""
        if not self.in_user_code():
            return
        if kind == "backward":
            self.current.backward_calls += 1
        if self.marker is None:
            self.marker = "optimizer" if self.optimizer_created else "backward"
            if self.script is None and sys.argv and sys.argv[0] not in ("", "-m", "-c"):
                self.script = os.path.abspath(sys.argv[0])  # `-m MODULE` under a launcher: runpy has set it
        if kind != self.marker:
            return
        if self.gpu_events is None and self.torch is not None and _cuda_in_use(self.torch):
            self.gpu_events = EventPhases(lambda: self.torch.cuda.Event(enable_timing=True))
        if self.gpu_events is not None:
            self.gpu_events.resolve(self.gpu_phase_ms)
        if self.sync_debug is None:
            self.sync_debug = patches.SyncDebug.start(self)  # only once CUDA is in use: never initializes it
        elif self.sync_debug:
            self.sync_debug.reassert()
        if self.step_clock is None and self.gpu_events is not None:
            self.step_clock = StepClock(lambda: self.torch.cuda.Event(enable_timing=True))
        if self.step_clock is not None:
            self.step_clock.mark(len(self.records))
        if self.warmup > 0 and len(self.records) + 1 == self.warmup and self._loader_still_prefetched(self.current):
            self.warmup += 1
        if self.cupti is not None:
            self.cupti.perflint_cupti_mark_step()
            if len(self.records) + 1 == self.warmup:
                self.cupti.perflint_cupti_enable(1)
        now = time.perf_counter()
        c = self.current
        self.records.append(
            {
                "index": len(self.records),
                "warmup": len(self.records) < self.warmup,
                "start_ms": (c.start - self.started) * 1000.0,
                "wall_ms": (now - c.start) * 1000.0,
                "phases": c.phases.record(now - c.start, c.data_wait),
                "data_wait_ms": c.data_wait * 1000.0,
                "syncs": [{"site": site, "op": op, "count": n, "cuda": cuda} for (site, op, cuda), n in sorted(c.syncs.items())],
                "autocast": c.autocast,
                "checkpoint_calls": c.checkpoint_calls,
                "checkpoint_forward_ms": c.checkpoint_ms,
                "backward_calls": c.backward_calls,
                "zero_grad_calls": c.zero_grad_calls,
                "zero_grad_fill_calls": c.zero_grad_fill_calls,
                "zero_grad_ms": c.zero_grad_ms,
                "comm_ms": c.comm_ms,
                "comm_calls": c.comm_calls,
                "ddp_allreduce_ms": c.ddp_allreduce_ms,
                "ddp_buckets": c.ddp_buckets,
                "ddp_forwards": c.ddp_forwards,
                "ddp_forward_overhead_ms": c.ddp_forward_overhead_ms,
                "ddp_find_unused": c.ddp_find_unused,
                "compiles": self.compile_count(),
                "flags": self.flags(),
            }
        )
        self._append_step(self.records[-1])
        self.current = StepCounters(time.perf_counter())
        if self.fix_context is not None:
            self.fix_context.reassert()  # after the snapshot: the flags show what the step ran with
        self._progress(len(self.records))
        if self.forward_hooks is not None and len(self.records) >= max(2, self.warmup):
            self.forward_hooks.narrow(compiled=bool(self.compile_count()))
        if len(self.records) >= self.warmup + self.steps:
            self.exit = {"reason": "steps_reached", "code": 0}
            self._settle_gpu()
            self.write()
            _flush_and_exit(0)

    def _loader_still_prefetched(self, c):
        """At the end of the last warm-up step: whether the batches a DataLoader's workers made ahead
        (up to num_workers x prefetch_factor, filled while the first steps ran slowly) are still
        feeding the steps. Measured steps fed from that stock run faster than the loader can keep
        up with, so warm-up goes on until the loader's steady state: a step found no batch waiting
        (the loader is the bottleneck), or the stock has not shrunk over `depth` steps (the workers
        keep up), or 4 x depth steps were added."""
        ready, depth = c.loader_ready, c.loader_depth
        # Several ranks step together (collectives): a rank that decided alone to warm up longer
        # would wait in an all-reduce for ranks that had stopped. The warm-up asked for holds there.
        if ready is None or depth <= 0 or _env_int("WORLD_SIZE", 1) > 1:
            return False
        history = self._ready_history
        reason = None  # None: the loader's first batch (its stock only now being made), or still running down
        if ready >= 0:
            history.append(ready)
            if ready == 0:
                reason = "until a step found no batch made ahead (the loader sets the pace)"
            elif len(history) > depth and ready >= history[-1 - depth]:
                reason = "until the batches made ahead stopped running down (the loader keeps up)"
        if reason is None and self.warmup_added >= 4 * depth:
            reason = "at most 4 x num_workers x prefetch_factor; the loader's stock was still running down"
        if reason is None:
            self.warmup_added += 1
            return True
        if self.warmup_added:
            self.warmup_reason = reason
        return False

    def _settle_gpu(self):
        """The measured steps are over: one synchronize() lets every step event complete (no
        measured step pays for it), and the CUPTI library gets the boundaries on the GPU timeline,
        so that kernels are counted in the step that queued them rather than the one running on
        the host when they executed."""
        if self.step_clock is None:
            return
        try:
            cuda = self.torch.cuda
            cuda.synchronize()
            if self.cupti is None or not hasattr(self.cupti, "perflint_cupti_set_device_marks"):
                return
            end = cuda.Event(enable_timing=True)
            before = self.cupti.perflint_cupti_timestamp()
            end.record()  # on an idle GPU: it runs between the two timestamps
            cuda.synchronize()
            after = self.cupti.perflint_cupti_timestamp()
            if not before or not after:
                return
            marks = self.step_clock.device_marks(len(self.records), end, (before + after) // 2)
            if marks:
                import ctypes

                self.cupti.perflint_cupti_set_device_marks((ctypes.c_uint64 * len(marks))(*marks), len(marks))
        except Exception:
            pass  # a CUDA error of the script's: the host clock and host marks stay

    def _progress(self, done):
        try:
            if self.progress_fd is None:
                self.progress_fd = os.open(self.out + ".progress", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.pwrite(self.progress_fd, b"%10d\n" % done, 0)
        except OSError:
            pass

    def _append_step(self, record):
        """One line per completed step in `<out>.steps` (after a header line), so that a hard death keeps
        every completed step. One write per line on an O_APPEND descriptor: a reader sees whole lines
        and at most one cut last line, which it drops."""
        try:
            lines = []
            if self.steps_fd is None:
                self.steps_fd = os.open(self.out + ".steps", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_CLOEXEC,
                                        0o644)
                header = self.evidence()
                header.pop("steps", None)
                header["exit"] = {"reason": "unknown", "code": 0}  # perflint fills it from how the process ended
                lines.append(json.dumps(header))
            lines.append(json.dumps(record))
            os.write(self.steps_fd, ("\n".join(lines) + "\n").encode())
        except (OSError, TypeError, ValueError):
            pass

    def count_sync(self, op, site, cuda):
        key = (site, op, bool(cuda))
        self.current.syncs[key] = self.current.syncs.get(key, 0) + 1

    # ---- snapshots ----------------------------------------------------------------------------
    def flags(self):
        torch = self.torch
        f = {}
        f["anomaly"] = bool(torch.is_anomaly_enabled())
        f["grad_enabled"] = bool(torch.is_grad_enabled())
        try:
            f["tf32_matmul"] = bool(torch.backends.cuda.matmul.allow_tf32)
            f["tf32_cudnn"] = bool(torch.backends.cudnn.allow_tf32)
        except Exception:
            pass
        if hasattr(torch, "get_float32_matmul_precision"):
            f["matmul_precision"] = torch.get_float32_matmul_precision()
        f["cudnn_benchmark"] = bool(torch.backends.cudnn.benchmark)
        f["cudnn_deterministic"] = bool(torch.backends.cudnn.deterministic)
        if hasattr(torch, "are_deterministic_algorithms_enabled"):
            f["deterministic_algorithms"] = bool(torch.are_deterministic_algorithms_enabled())
        try:
            f["profiler"] = bool(torch.autograd._profiler_enabled())
        except Exception:
            pass
        f["launch_blocking"] = os.environ.get("CUDA_LAUNCH_BLOCKING", "") not in ("", "0")
        return f

    def device(self):
        torch = self.torch
        if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
            i = torch.cuda.current_device()
            p = torch.cuda.get_device_properties(i)
            return {"kind": "cuda", "name": p.name, "capability": "%d.%d" % (p.major, p.minor), "total_memory": p.total_memory}
        return {"kind": "cpu", "name": _cpu_name(), "cores": os.cpu_count()}

    def memory(self):
        torch = self.torch
        if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
            i = torch.cuda.current_device()
            return {
                "kind": "cuda",
                "peak_bytes": int(torch.cuda.max_memory_allocated(i)),
                "reserved_peak_bytes": int(torch.cuda.max_memory_reserved(i)),
                "total_bytes": int(torch.cuda.get_device_properties(i).total_memory),
            }
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        return {"kind": "rss", "peak_bytes": int(peak), "total_bytes": int(total)}

    # ---- the evidence file --------------------------------------------------------------------
    def evidence(self):
        torch = self.torch
        if self.gpu_events is not None:  # what has completed by now, without waiting for the rest
            self.gpu_events.resolve(self.gpu_phase_ms)
            for index, ms in self.gpu_phase_ms.items():
                if 0 <= index < len(self.records):
                    self.records[index]["gpu_phases"] = {k + "_ms": v for k, v in ms.items()}
        if self.step_clock is not None:
            try:
                self.step_clock_name = apply_step_clock(self.records, self.step_clock.walls(len(self.records)))
            except Exception:  # a CUDA error of the script's: the host clock stays
                pass
        return {
            "schema": EVIDENCE_SCHEMA,
            "python": sys.executable,
            "python_version": "%d.%d.%d" % sys.version_info[:3],
            "torch": getattr(torch, "__version__", None),
            "script": self.script,
            "steps_requested": self.steps,
            "warmup": self.warmup,
            "warmup_requested": self.warmup_requested,
            "warmup_added": self.warmup_added,
            "warmup_reason": self.warmup_reason,
            "rank": _env_int("RANK", 0),
            "local_rank": _env_int("LOCAL_RANK", 0),
            "world_size": _env_int("WORLD_SIZE", 1),
            "step_marker": self.marker,
            "step_clock": self.step_clock_name,
            "elapsed_ms": (time.perf_counter() - self.started) * 1000.0,
            "device": self.device() if torch is not None else {"kind": "unknown"},
            "memory": self.memory() if torch is not None else None,
            "steps": self.records,
            "dataloaders": self.loaders,
            "compile": self.compile_stats(),
            "applied": fixes.report(self.fixes),
            "sync_debug": bool(self.sync_debug),
            "gemm_shapes": self.top_gemm_shapes(),
            "forward_hooks": self.forward_hooks.narrowed if self.forward_hooks is not None else None,
            "exit": self.exit,
        }

    def top_gemm_shapes(self, limit=8):
        """The nn.Linear GEMM shapes by the work they did (2*M*N*K per call), largest first."""
        ranked = sorted(self.gemm_shapes.items(), key=lambda kv: -2 * kv[0][0] * kv[0][1] * kv[0][2] * kv[1])
        return [{"m": m, "n": n, "k": k, "calls": calls} for (m, n, k), calls in ranked[:limit] if m > 0]

    def compile_count(self):
        """Frames torch.compile has compiled so far (cumulative; None without torch._dynamo)."""
        dynamo = sys.modules.get("torch._dynamo.utils")
        if dynamo is None or not hasattr(dynamo, "counters"):
            return None
        try:
            return int(dynamo.counters.get("stats", {}).get("unique_graphs", 0))
        except Exception:
            return None

    def compile_stats(self):
        """torch.compile's counters (torch >= 2.0) when the script compiled anything; else None."""
        dynamo = sys.modules.get("torch._dynamo.utils")
        if dynamo is None or not hasattr(dynamo, "counters"):
            return None
        try:
            stats = {k: int(v) for k, v in dynamo.counters.get("stats", {}).items()}
            recompiles = sum(int(v) for v in dynamo.counters.get("recompiles", {}).values())
            return {"stats": stats, "recompiles": recompiles} if stats or recompiles else None
        except Exception:
            return None

    def write(self):
        """Writes the evidence atomically (a reader never sees half a file). Never from a worker."""
        if os.getpid() != self.pid or self.finished:
            return
        self.finished = True
        if self.cupti is not None:
            try:
                self.cupti.perflint_cupti_flush()
            except Exception:
                pass
        try:
            data = self.evidence()
        except Exception as e:  # a snapshot failed: still write what we have
            data = {"schema": EVIDENCE_SCHEMA, "steps": self.records, "dataloaders": self.loaders,
                    "exit": self.exit, "applied": fixes.report(self.fixes),
                    "error": "evidence snapshot failed: %s" % e}
        tmp = "%s.tmp.%d" % (self.out, os.getpid())
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(tmp, self.out)


def _cuda_in_use(torch):
    """True once the script has initialised CUDA (never initialises it itself)."""
    try:
        return bool(torch.cuda.is_initialized())
    except Exception:
        return False


def _cupti_library():
    """The CUPTI injection library the CUDA driver loaded, if the runner asked for it."""
    path = os.environ.get("CUDA_INJECTION64_PATH", "")
    if "perflint_cupti" not in path or not os.environ.get("PERFLINT_CUPTI_OUT"):
        return None
    try:
        import ctypes

        lib = ctypes.CDLL(path)  # the same handle the driver holds: dlopen counts references
        if hasattr(lib, "perflint_cupti_timestamp"):
            lib.perflint_cupti_timestamp.restype = ctypes.c_uint64
            lib.perflint_cupti_set_device_marks.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        return lib
    except OSError:
        return None


def _tail(text, lines):
    return "\n".join(text.rstrip("\n").split("\n")[-lines:])


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"


def _flush_and_exit(code):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


def _reraise(exc):
    if exc is not None:
        raise exc


def _main_module(path):
    """A fresh `__main__` module for the script, in sys.modules as runpy puts it (pickle and
    multiprocessing look classes up there), with the globals runpy.run_path gives a source file."""
    import types

    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __loader__=None, __package__=None, __spec__=None,
                           __builtins__=__builtins__)
    if path is None:
        del module.__file__
    sys.modules["__main__"] = module
    return module
