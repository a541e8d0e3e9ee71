"""Misuse sweep: call every public ember callable with a battery of bad arguments.

Every call must return or raise an Exception; a signal, an abort or a hang is a bug.
The calls are Python source strings built from the fixtures below, so any one of them is
its own reproducer:

    cd tests/python && python -c "from misuse_sweep import *; R = f32(); R.add_('abc')"

The list of calls is discovered from ember, ember._C, ember's public submodules and
ember.Tensor by the parent (test_misuse.py or `python misuse_sweep.py`), which hands it to
its workers in a file, so both sides agree on call numbers. A worker writes the number of the
call it is about to make into a shared 8-byte progress file before making it; when the worker
dies or stops advancing, the parent reads that number and knows exactly which call killed
it, then starts a new worker at the next call.
"""
import argparse
import faulthandler
import importlib
import inspect
import json
import math  # noqa: F401  (used by the call sources)
import mmap
import os
import pickle
import pkgutil
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import types

import numpy as np  # noqa: F401  (used by the call sources)

import ember

# ---------------------------------------------------------------- fixtures (fresh per call)


def f32():
    return ember.randn(3, 4)


def f32b():  # a shape that broadcasts with nothing above
    return ember.randn(5, 6)


def f64():
    return ember.randn(3, 4, dtype=ember.float64)


def bf():
    return ember.randn(3, 4, dtype=ember.bfloat16)


def hf():
    return ember.randn(3, 4, dtype=ember.float16)


def i64():
    return ember.arange(12).reshape(3, 4)


def i32():
    return ember.arange(12, dtype=ember.int32).reshape(3, 4)


def u8():
    return ember.arange(12, dtype=ember.uint8).reshape(3, 4)


def bl():
    return ember.arange(12).reshape(3, 4) > 5


def t0():
    return ember.tensor(2.5)


def t0i():
    return ember.tensor(3)


def e0():
    return ember.ones(0)


def e03():
    return ember.ones(0, 3)


def naninf():
    return ember.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0, 1e38, 1e-45, -1.0])


def nct():  # transposed: (3, 4) with strides (1, 3)
    return ember.randn(4, 3).t()


def ncs():  # sliced: (3, 4) with strides (8, 2) and offset 1
    return ember.randn(3, 8).unflatten(1, (4, 2)).select(2, 1)


def exp():  # expanded: stride 0 along dim 0
    return ember.randn(1, 4).expand(3, 4)


def hd():  # 10 dims: more than the 6 that shapes keep inline
    return ember.ones([1] * 9 + [2])


def vec():
    return ember.randn(4)


def rg():  # ops on it record autograd nodes: a second code path per op
    return ember.randn(3, 4).requires_grad_()


def rgv():  # a non-leaf that requires grad
    return ember.randn(3, 4).requires_grad_() * 2


TENSORS = ["f32()", "f32b()", "f64()", "bf()", "hf()", "i64()", "i32()", "u8()", "bl()", "t0()", "t0i()", "e0()",
           "e03()", "naninf()", "nct()", "ncs()", "exp()", "hd()", "vec()", "rg()", "rgv()"]

BAD = ["'abc'", "None", "['a', 'b']", "object()", "99", "-99", "0", "-1", "2**62", "-2**63",
       "2**64", "1.5", "math.nan", "math.inf", "True", "()", "[]", "(2**62,)", "(-1,)", "(-5, 3)",
       "(2**40, 2**40)", "(2**31, 2**31, 4)", "[1.5]", "ember.float32", "ember.bool",
       "ember.int64", "np.ones((3, 4), np.float32)", "np.ones((3, 4), np.complex64)",
       "np.ones((2, 3))[:, ::-1]", "[f32(), 'a']", "[f32(), f32b()]", "[f32(), i64()]",
       "(f32(), f32())", "[e0(), hd()]", "slice(None)", "...", "np.float64(2.0)", "np.int64(2)",
       "[[1], [1, 2]]", "b'abc'", "1j", "[0, 2**62]", "{'a': 1}"]

VALUES = TENSORS + BAD

# Receivers for calls with one or two arguments: one of each kind that matters.
RECV = ["f32()", "i64()", "bl()", "t0()", "e0()", "nct()", "hd()", "rg()", "bf()"]

# Second and third arguments: dims, sizes, mismatched tensors, special floats.
PAIRS = ["0, 99", "99, 0", "-99, -1", "0, 'a'", "1, None", "2**62, 2**62", "-1, -2**63",
         "0, 0", "1, 1", "0, -1", "f32b(), f32()", "f32(), f32b()", "i64(), bl()", "e0(), e0()",
         "nct(), exp()", "1.5, 2.5", "math.nan, math.inf", "2**64, 1", "bl(), 'a'",
         "f32(), 2**62", "-1, 2**62"]
PAIR_RECV = ["f32()", "t0()", "e0()", "bl()"]

KWARGS = ["dim", "keepdim", "dtype", "out", "alpha", "other", "size", "input", "exponent",
          "min", "max", "value", "mask"]
KWVALUES = ["99", "-99", "'a'", "None", "ember.bool", "f32b()", "2**64"]

VARARGS = ["*[1] * 12", "*[2**62] * 3", "*[-1] * 3", "1, 2, 3, 4, 5, 6, 7, 8", "*[0] * 7",
           "3, -1", "2**31, 2**31, 4"]

# Object machinery that Tensor inherits from object / nanobind's base type: calling it with
# garbage tests CPython and nanobind, not ember. (__init__ and __new__ are covered through
# ember.Tensor(...) itself, a module-level callable.)
SKIP_DUNDERS = {"__class__", "__delattr__", "__dir__", "__doc__", "__getattribute__",
                "__getstate__", "__init__", "__init_subclass__", "__module__", "__new__",
                "__reduce__", "__reduce_ex__", "__setattr__", "__sizeof__", "__subclasshook__",
                "__weakref__", "__dict__", "__array_priority__", "__hash__", "__nb_signature__"}

# Calls that change process state the next calls depend on; restored after each call.
_THREADS = ember.get_num_threads()


def _restore(src):
    if "set_num_threads" in src:
        ember.set_num_threads(_THREADS)
    if hasattr(ember, "is_grad_enabled") and not ember.is_grad_enabled():
        ember.set_grad_enabled(True)  # e.g. after ember.set_grad_enabled(False)
    if "default_device" in src or "device(" in src:  # set_default_device, `with device(...)`
        ember.set_default_device(None)
    if "_push_saved_tensors_hooks" in src:  # a pushed pair would pack every later saved tensor
        try:
            ember._C._pop_saved_tensors_hooks()
        except Exception:
            pass
    if "anomaly" in src:
        ember._C._set_anomaly_enabled(False)
    if "default_dtype" in src or "default_tensor_type" in src:  # set_default_dtype(float64)
        ember.set_default_dtype(ember.float32)


# ---------------------------------------------------------------- discovery


# Public submodules whose contract is to block (a rendezvous waits for its peers): a
# "hang" there is the documented behaviour, not a bug.
SKIP_MODULES = ("ember.distributed",)


def _public_modules():
    """ember, ember._C, then every public submodule of the package, breadth first. All of
    them are imported first, so the list does not depend on what this process imported."""
    for info in pkgutil.walk_packages(ember.__path__, "ember."):
        parts = info.name.split(".")
        if not any(p.startswith("_") for p in parts) and not info.name.startswith(SKIP_MODULES):
            importlib.import_module(info.name)
    out, todo, seen = [], [ember], set()
    while todo:
        mod = todo.pop(0)
        if mod.__name__ in seen or mod.__name__.startswith(SKIP_MODULES):
            continue
        seen.add(mod.__name__)
        out.append(mod)
        for name in sorted(dir(mod)):
            sub = getattr(mod, name, None)
            if (isinstance(sub, types.ModuleType) and not name.startswith("_")
                    and sub.__name__.startswith("ember.")):
                todo.append(sub)
    return out[:1] + [ember._C] + out[1:]


def module_callables():
    """Source prefixes like "ember.add" for every callable of ember, ember._C and ember's
    public submodules; a function reachable under two names is called under the first."""
    out = []
    seen = set()
    for mod in _public_modules():
        prefix = mod.__name__ + "."
        for name in sorted(dir(mod)):
            if name.startswith("__") or (mod is not ember._C and name.startswith("_")):
                continue  # private helpers of the package; _C's own names are C++ entry points
            obj = getattr(mod, name)
            if isinstance(obj, types.ModuleType) or not callable(obj) or id(obj) in seen:
                continue
            if mod is not ember and not getattr(obj, "__module__", "ember").startswith("ember"):
                continue  # re-exported from outside ember (typing, functools, ...)
            seen.add(id(obj))
            out.append(prefix + name)
    return out


def tensor_members():
    """(kind, name) for every method and property of ember.Tensor, minus object machinery."""
    out = []
    for name in sorted(dir(ember.Tensor)):
        if name in SKIP_DUNDERS:
            continue
        attr = inspect.getattr_static(ember.Tensor, name)
        if isinstance(attr, property) or type(attr).__name__ in ("nb_property",
                                                                   "getset_descriptor"):
            out.append(("prop", name))
        elif callable(attr):
            out.append(("method", name))
    return out


# ---------------------------------------------------------------- the battery


# Callables whose argument-free call is legitimate heavy work rather than misuse: a model
# builder with no arguments allocates and initializes a whole network (vgg13(): 133M weights,
# 3-4 s in ember and in torch), which a loaded machine can stretch past the hang limit.
HEAVY_WITHOUT_ARGUMENTS = ("ember.vision.models.",)


def _function_calls(f):
    calls = [] if f.startswith(HEAVY_WITHOUT_ARGUMENTS) else [(None, f"{f}()")]
    calls += [(None, f"{f}({x})") for x in VALUES]
    calls += [(None, f"{f}({r}, {x})") for r in RECV for x in VALUES]
    calls += [(None, f"{f}({x}, f32())") for x in BAD]
    calls += [(None, f"{f}({r}, {p})") for r in PAIR_RECV for p in PAIRS]
    calls += [(None, f"{f}(bl(), {p})") for p in ("f32(), f32b()", "f32b(), 1.0", "'a', 1")]
    calls += [(None, f"{f}(f32(), {k}={v})") for k in KWARGS for v in KWVALUES]
    calls += [(None, f"{f}({a})") for a in VARARGS]
    calls += [(None, f"{f}(f32(), {a})") for a in VARARGS]
    return calls


def _method_calls(name):
    calls = [(r, f"R.{name}()") for r in TENSORS]
    calls += [(r, f"R.{name}({x})") for r in RECV for x in VALUES]
    calls += [(r, f"R.{name}({p})") for r in PAIR_RECV for p in PAIRS]
    calls += [(r, f"R.{name}({k}={v})")
              for r in ("f32()", "e0()") for k in KWARGS for v in KWVALUES]
    calls += [(r, f"R.{name}({a})") for r in ("f32()", "hd()") for a in VARARGS]
    return calls


# Calls that crash or hang on purpose: the harness must name each one (test_misuse.py).
SELFTEST = [(None, "ember.ones(3)"), (None, "__import__('ctypes').string_at(0)"),
            (None, "ember.zeros(2)"), (None, "__import__('time').sleep(60)"),
            (None, "__import__('os').abort()"), ("f32()", "R.exp()")]


def build_calls(only=None, selftest=False):
    """The whole sweep: a list of (receiver source or None, call source)."""
    if selftest:
        return list(SELFTEST)
    calls = []
    for f in module_callables():
        if only is None or f.rsplit(".", 1)[1] == only:
            calls += _function_calls(f)
    for kind, name in tensor_members():
        if only is not None and name != only:
            continue
        calls += [(r, f"R.{name}") for r in TENSORS] if kind == "prop" else _method_calls(name)
    return calls


def reproducer(call):
    recv, src = call
    return src if recv is None else f"R = {recv}; {src}"


# ---------------------------------------------------------------- the worker

STANDARD = (TypeError, ValueError, IndexError, RuntimeError, MemoryError, NotImplementedError,
            OverflowError)


def _touch(r):
    """Read a small result element by element: a view with bad strides or offset shows here."""
    if isinstance(r, ember.Tensor):
        if r.numel() <= 10000:
            r.tolist()
    elif isinstance(r, (tuple, list)) and len(r) <= 100:
        for x in r:
            _touch(x)


def _snapshot(t):
    return (t._shape, t.stride(), str(t.tolist())) if isinstance(t, ember.Tensor) else None


def _name_of(call):
    recv, src = call
    return src.split("(")[0]


def _note(table, call, kind, e):
    """Count an odd outcome per (callee, exception type), keeping the first example."""
    key = f"{_name_of(call)} {kind}"
    if key in table:
        table[key][0] += 1
    else:
        table[key] = [1, reproducer(call), str(e)[:200]]


def _save(stats, path):
    """Outcomes so far, for the parent: a worker that dies later loses only the calls since."""
    with open(path + ".tmp", "w") as f:
        json.dump(stats, f)
    os.replace(path + ".tmp", path)


def run_worker(start, shard, nshards, progress_path, calls_path):
    # A runaway allocation must fail fast with MemoryError rather than swap the machine.
    # (12 GiB, not less: OpenBLAS reserves ~8.5 GiB of address space for 64 threads after
    # set_num_threads(99), and spins forever when that reservation fails.)
    resource.setrlimit(resource.RLIMIT_AS, (12 << 30, 12 << 30))
    os.chdir(os.path.join(os.path.dirname(progress_path), "cwd"))  # save(t, 'abc') writes here
    faulthandler.enable()  # a crash prints "Fatal Python error: Segmentation fault" to stderr
    with open(calls_path, "rb") as f:
        calls = pickle.load(f)  # the parent's list: both sides agree on call numbers
    fd = os.open(progress_path, os.O_RDWR)
    mm = mmap.mmap(fd, 8)
    env = dict(globals())
    stats = {"calls": 0, "types": {}, "odd": {}, "modified": {}}
    _save(stats, progress_path + ".json")
    # The parent reads STARTING in the progress file until the first call below.
    last = None
    for i in range(start, len(calls)):
        if i % nshards != shard:
            continue
        struct.pack_into("q", mm, 0, i)
        recv, src = calls[i]
        try:
            if recv is not None:
                env["R"] = eval(recv, env)
                before = _snapshot(env["R"]) if src.split("(")[0].endswith("_") else None
            try:
                _touch(eval(src, env))
                kind = "ok"
            except Exception as e:  # the contract: any Exception is fine, nothing else is
                kind = type(e).__name__
                if not isinstance(e, STANDARD):
                    _note(stats["odd"], calls[i], kind, e)
                if recv is not None and before is not None and _snapshot(env["R"]) != before:
                    _note(stats["modified"], calls[i], kind, e)
        except Exception as e:  # a fixture failed: the sweep itself is broken
            kind = "fixture:" + type(e).__name__
            _note(stats["odd"], (None, f"{recv} after {last}"), kind, e)
        finally:
            _restore(src)
            last = src  # named in a fixture failure's note: the call that broke the state
        stats["calls"] += 1
        stats["types"][kind] = stats["types"].get(kind, 0) + 1
        if stats["calls"] % 1000 == 0:
            _save(stats, progress_path + ".json")
    _save(stats, progress_path + ".json")
    struct.pack_into("q", mm, 0, len(calls))
    os._exit(0)  # skip teardown: the sweep's leftovers are not what is under test


# ---------------------------------------------------------------- the parent


def _merge(total, part):
    total["calls"] += part["calls"]
    for k, v in part["types"].items():
        total["types"][k] = total["types"].get(k, 0) + v
    for table in ("odd", "modified"):
        for k, v in part[table].items():
            if k in total[table]:
                total[table][k][0] += v[0]
            else:
                total[table][k] = v


STARTING = -2  # progress value until the worker reaches its first call
STARTUP_TIMEOUT = 120.0  # seconds for a worker to import ember and build the call list
MAX_FAILURES = 20  # past this, stop: something is broken wholesale, not call by call


class SweepError(RuntimeError):
    """The sweep itself could not run (a worker failed before its first call)."""


class _Shard:
    """One worker lineage: restarted after each death, one call further on."""

    def __init__(self, shard, nshards, calls, workdir, timeout):
        self.shard, self.nshards, self.calls, self.timeout = shard, nshards, calls, timeout
        self.calls_path = os.path.join(workdir, "calls.pickle")
        self.path = os.path.join(workdir, f"progress{shard}")
        with open(self.path, "wb") as f:
            f.write(b"\0" * 8)
        with open(self.path, "r+b") as f:
            self.mm = mmap.mmap(f.fileno(), 8)
        self.proc = self.err = None
        self.done = False
        self.start(0)

    def start(self, at):
        self.at = at
        struct.pack_into("q", self.mm, 0, STARTING)
        if os.path.exists(self.path + ".json"):
            os.unlink(self.path + ".json")
        # A file, not a pipe: a chatty worker must not block on a full pipe and look hung.
        self.err = tempfile.TemporaryFile(mode="w+")
        here = os.path.dirname(os.path.abspath(__file__))
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(here, "misuse_sweep.py"), "--worker", str(at),
             "--shard", str(self.shard), str(self.nshards), "--progress", self.path,
             "--calls", self.calls_path],
            # No stdin: calls like read_idx(0) open file descriptor 0 and would wait on it.
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err, cwd=here)
        self.last_idx, self.last_change = STARTING, time.monotonic()

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.err is not None:
            self.err.close()
        self.mm.close()

    def poll(self, total, failures):
        """Advance this shard; return True while it still runs."""
        if self.done:
            return False
        idx = struct.unpack_from("q", self.mm, 0)[0]
        now = time.monotonic()
        if idx != self.last_idx:
            self.last_idx, self.last_change = idx, now
        rc = self.proc.poll()
        limit = STARTUP_TIMEOUT if idx == STARTING else self.timeout
        if rc is None and now - self.last_change <= limit:
            return True
        hung = rc is None
        if hung:
            self.proc.kill()
        self.proc.wait()
        self.err.seek(0)
        err = self.err.read()
        if idx == STARTING:
            raise SweepError(f"a sweep worker {'hung' if hung else 'died'} before its first "
                             f"call (does `import ember` work?):\n{err[-2000:]}")
        part = {"calls": 0, "types": {}, "odd": {}, "modified": {}}
        if os.path.exists(self.path + ".json"):
            with open(self.path + ".json") as f:
                part = json.load(f)
        _merge(total, part)
        if rc == 0 and idx >= len(self.calls):
            self.done = True
            return False
        # The worker died (or hung) in call idx; the calls since its last snapshot completed.
        ran = sum(1 for i in range(self.at, idx) if i % self.nshards == self.shard)
        lost = ran - part["calls"]
        _merge(total, {"calls": lost + 1, "odd": {}, "modified": {},
                       "types": {"CRASH": 1, **({"unrecorded": lost} if lost else {})}})
        what = f"hung for more than {self.timeout:.0f} s" if hung else _describe_rc(rc)
        call = self.calls[idx] if idx < len(self.calls) else (None, "<after the last call>")
        failures.append({"call": reproducer(call), "outcome": what,
                         "stderr": _headline(err)})
        self.err.close()
        self.start(idx + 1)
        return True


def _headline(err):
    """The worker's last words without faulthandler's stack (it only shows the sweep loop)."""
    keep = [l for l in err.splitlines() if l.strip() and not l[0].isspace()
            and not l.startswith(("Extension modules", "Current thread", "Thread 0x"))]
    return "\n".join(keep[-4:])


def _describe_rc(rc):
    if rc < 0:
        import signal
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exited with status {rc} without reporting"


def run_sweep(jobs=2, timeout=10.0, selftest=False):
    """Run every call in `jobs` worker lineages. Returns (stats, failures)."""
    calls = build_calls(selftest=selftest)
    total = {"calls": 0, "types": {}, "odd": {}, "modified": {}, "planned": len(calls)}
    failures = []
    shards = []
    # One folder for the sweep: the call list, progress files, and the workers' cwd.
    workdir = tempfile.mkdtemp(prefix="ember_sweep_")
    os.mkdir(os.path.join(workdir, "cwd"))
    with open(os.path.join(workdir, "calls.pickle"), "wb") as f:
        pickle.dump(calls, f)
    try:
        shards = [_Shard(s, jobs, calls, workdir, timeout) for s in range(jobs)]
        while any([s.poll(total, failures) for s in shards]):
            if len(failures) >= MAX_FAILURES:
                failures.append({"call": "(the rest of the sweep)", "stderr": "",
                                 "outcome": f"not run: stopped after {MAX_FAILURES} failures"})
                break
            time.sleep(0.02)
    finally:
        for s in shards:
            s.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return total, failures


def run_inline(only):
    """Run the calls for one name in this process (for debugging; a crash kills it)."""
    calls = build_calls(only)
    env = dict(globals())
    for recv, src in calls:
        print(reproducer((recv, src)), flush=True, end=" -> ")
        try:
            if recv is not None:
                env["R"] = eval(recv, env)
            _touch(eval(src, env))
            print("ok")
        except Exception as e:
            print(f"{type(e).__name__}: {str(e)[:150]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--shard", type=int, nargs=2, default=(0, 1), help=argparse.SUPPRESS)
    ap.add_argument("--progress", help=argparse.SUPPRESS)
    ap.add_argument("--calls", help=argparse.SUPPRESS)
    ap.add_argument("--selftest", action="store_true", help="run calls that crash on purpose")
    ap.add_argument("--only", help="run the calls of one name in this process, printing each")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds without progress = hang")
    a = ap.parse_args()
    if a.worker is not None:
        return run_worker(a.worker, a.shard[0], a.shard[1], a.progress, a.calls)
    if a.only:
        return run_inline(a.only)
    t0_ = time.monotonic()
    stats, failures = run_sweep(a.jobs, a.timeout, a.selftest)
    print(f"{stats['calls']} calls of {stats['planned']} planned in {time.monotonic() - t0_:.1f} s")
    print("outcomes:", json.dumps(dict(sorted(stats["types"].items(), key=lambda kv: -kv[1]))))
    for k, (n, call, msg) in sorted(stats["odd"].items()):
        print(f"non-standard exception: {k} x{n}, e.g. {call}: {msg}")
    for k, (n, call, msg) in sorted(stats["modified"].items()):
        print(f"input modified by a failing call: {k} x{n}, e.g. {call}: {msg}")
    for f in failures:
        print(f"CRASH: {f['call']}  ->  {f['outcome']}\n  {f['stderr']}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
