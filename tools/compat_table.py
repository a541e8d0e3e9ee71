"""Measure how much of PyTorch's public API ember has; write docs/compatibility.md.

    .venv/bin/python tools/compat_table.py           # (make compat) rewrite docs/compatibility.md
    .venv/bin/python tools/compat_table.py --out F   # write elsewhere (the test does)

What is counted is stated in INTRO (the page's opening). Stub convention: a placeholder that only
raises NotImplementedError carries `_ember_not_implemented = True` (on the function, on the class
itself, on its property's getter, or in the module) and counts as missing; so does a Python
function (or a class's own __init__) whose whole body, after a docstring, is `raise
NotImplementedError...`. Objects are inspected; ember's source is never searched as text.
"""
import argparse
import ast
import importlib
import inspect
import json
import os
import pathlib
import sys
import textwrap
import types
import warnings
from fnmatch import fnmatchcase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "compatibility.md")
MARKER = "_ember_not_implemented"
BEGIN, END = "<!-- programs:begin -->", "<!-- programs:end -->"
PLACEHOLDER = f"{BEGIN}\nFilled in by the drop-in work.\n{END}"

# torch namespace -> ember namespace (the same path below the package).
NAMESPACES = ["torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.nn.init",
              "torch.nn.utils", "torch.optim", "torch.optim.lr_scheduler", "torch.linalg",
              "torch.fft", "torch.special", "torch.nested", "torch.distributions", "torch.autograd",
              "torch.utils.data", "torch.distributed", "torch.distributed.fsdp", "torch.testing",
              "torch.fx", "torch.onnx", "torch.library", "torch.distributed.tensor"]

# (what, where (None: every namespace), patterns matched with fnmatchcase). Each says why.
EXCLUDE = [
    # Python's protocol names (operators, hooks, class machinery): they come with the type and
    # are tested through the operators and functions that use them, not counted as API names.
    ("dunder names", None, ["__*__"]),
    # ember has no quantized dtypes: these build, read or train quantized tensors and modules
    # (torch.ao is quantization, pruning and sparsity tooling).
    ("quantization", None, ["quantize_*", "*quantiz*", "q_*", "qscheme", "dequantize",
                            "int_repr", "*fake_quant*", "choose_qparams*"]),
    ("quantization", ["torch"], ["ao"]),
    ("quantization", ["torch.nn"], ["qat", "intrinsic"]),
    # the legacy sparse kernels (sparse x dense products, sparse resizes) and the copy forms of the
    # compressed layouts' index accessors: private machinery of torch's sparse layouts.
    ("sparse layouts' private kernels", None,
     ["*indices_copy", "values_copy", "smm", "dsmm", "hsmm", "hspmm", "saddmm", "spmm",
      "sspaddmm", "*_as_sparse_", "sparse_resize_*"]),
    # TorchScript's IR, type system, script containers, logging and its compiler's async
    # primitives: ember has no TorchScript (torch.jit itself is still counted: programs use it).
    ("TorchScript / JIT", ["torch"],
     ["*Type", "Script*", "AliasDb", "Argument", "ArgumentSpec", "Block", "CallStack",
      "Capsule", "Code", "CompilationUnit", "CompleteArgumentSpec", "ConcreteModuleType*",
      "DeepCopyMemoTable", "ErrorReport", "ExecutionPlan", "FunctionSchema", "Gradient",
      "Graph", "GraphExecutorState", "IODescriptor", "JITException", "LiteScriptModule",
      "AggregationType", "LoggerBase", "LockingLogger", "NoopLogger", "Node", "StaticModule",
      "TracingState", "Use", "Value", "BufferDict", "ModuleDict", "ParameterDict",
      "import_ir_module*", "parse_ir", "parse_schema", "parse_type_comment",
      "merge_type_from_type_comment", "unify_type_list", "fork", "wait", "classes"]),
    ("TorchScript / JIT", None, ["FileCheck"]),
    # kernels of accelerator libraries and flags of out-of-tree backends (cuDNN, MIOpen, oneDNN,
    # FBGEMM, Vulkan, IPU, XLA, MAIA, CUDA graphs, CUDA streams). Device *queries* a CPU library
    # answers (torch.cuda, Tensor.cuda, Tensor.is_cuda) are counted: programs call them (hence no
    # `*_cuda*` pattern: it would hide Tensor.is_cuda).
    ("accelerator-specific", None,
     ["cudnn_*", "miopen_*", "*mkldnn*", "fbgemm_*", "*vulkan*", "ipu", "is_ipu", "*_ipu_*",
      "is_xla", "*_xla_*", "is_maia", "*_gpu_*", "*cudagraph*", "record_stream"]),
    # symbolic shapes exist for torch.compile's tracing; ember's sizes are always concrete ints.
    ("symbolic shapes", None, ["sym_*", "Sym*"]),
    # legacy per-dtype type classes (torch.FloatTensor, torch.HalfStorage) and the storage
    # classes behind them; `Tensor` itself is counted.
    ("legacy type classes", ["torch"], ["*Storage", "StorageBase", "?*Tensor"]),
    # removed from torch: torch's own placeholders only raise RuntimeError (see torch.linalg).
    ("removed from torch", ["torch"], ["eig", "lstsq", "symeig", "matrix_rank", "solve"]),
    ("removed from torch", ["torch.Tensor"], ["eig", "lstsq", "symeig", "solve", "reinforce"]),
    # torch's own imports for internal use: the __torch_function__ protocol's helpers, and types
    # imported for annotations (counted in their home namespace).
    ("internal imports", None,
     ["handle_torch_function", "has_torch_function*", "is_tensor_like", "boolean_dispatch"]),
    ("internal imports", NAMESPACES[2:], ["Tensor"]),
    ("internal imports", ["torch.nested"], ["DType", "Device"]),
    ("internal imports", ["torch.optim.lr_scheduler"], ["Optimizer"]),
]
FOREIGN = "imports (other libraries' objects, modules that are not submodules)"

# Hand-kept: where a name ember has behaves differently from torch (from the docs/*.md pages).
NOTES = {
    ("torch", "device"): "CPU only: `device('cuda')` can be named; no tensor can go there.",
    ("torch", "manual_seed"): "xoshiro256**: a seed gives other numbers than torch's.",
    ("torch", "Generator"): "xoshiro256**: streams differ from torch's for the same seed.",
    ("torch", "inference_mode"): "is `no_grad`: ember has no separate inference tensors.",
    ("torch", "load"): "`map_location` is CPU only.",
    ("torch.Tensor", "cuda"): "raises AssertionError, as a CPU-only torch build does.",
    ("torch.Tensor", "share_memory_"): "an anonymous memfd, not a /dev/shm file.",
    ("torch.nn", "Embedding"): "`sparse=True` gives a dense gradient (same values); "
                               "`scale_grad_by_freq=True` raises NotImplementedError.",
    ("torch.nn.functional", "interpolate"): "no `bicubic`, no `antialias=True`, no `area` on 5-D "
                                            "input (NotImplementedError).",
    ("torch.nn.functional", "scaled_dot_product_attention"): "refuses `attn_mask` together with "
                                                             "`is_causal=True` (RuntimeError).",
    ("torch.nn.functional", "soft_margin_loss"): "finite where torch's overflows to inf.",
    ("torch.optim", "Adam"): "`differentiable=True` raises NotImplementedError; `foreach`/`fused` "
                             "are accepted and change nothing (all optimizers).",
    ("torch.nn.utils", "skip_init"): "builds the module normally (no meta device): values are "
                                     "the default initialisation.",
    ("torch.nn.utils", "convert_conv2d_weight_memory_format"): "returns the module unchanged "
                                                               "(one layout).",
    ("torch.utils.data", "DataLoader"): "shuffles differently from torch for the same seed.",
    ("torch.optim", "SparseAdam"): "ember has no sparse gradients: it refuses every gradient, as "
                                   "torch refuses dense ones.",
    ("torch.optim", "Muon"): "Newton-Schulz in the parameter's dtype (torch: bfloat16).",
    ("torch", "native_norm"): "runs on dense tensors (torch's runs on sparse ones only).",
    ("torch", "batch_norm_stats"): "runs on the CPU (torch: CUDA only), as do batch_norm_elemt, "
                                   "_gather_stats(_with_counts), _backward_reduce, _backward_elemt.",
    ("torch.special", "legendre_polynomial_p"): "NaN above degree 2^24 (laguerre too); every "
                                                "polynomial is +-inf past overflow (torch: NaN).",
    ("torch.nested", "nested_tensor"): "strided layout only (`layout=torch.jagged` raises "
                                       "NotImplementedError); results are always contiguous.",
    ("torch.autograd", "NestedIOFunction"): "callable (torch 2.13's raises AttributeError).",
    ("torch.distributed", "init_process_group"): "Gloo only, file or redis stores (no `tcp://`).",
}


def _import(path):
    """The module at `path`, or None when no such module exists (other import errors raise)."""
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as e:
        if path == e.name or path.startswith(f"{e.name}."):
            return None
        raise


def _resolve(path):
    """The module or class at a dotted path, or None."""
    module = _import(path)
    if module is None and "." in path:
        parent, _, name = path.rpartition(".")
        return getattr(_resolve(parent), name, None)
    return module


def _is_own(ns, path, name, obj):
    """True: one of torch's names here; False: an import; None: data (not counted at all)."""
    if isinstance(ns, type):  # Tensor: every method and property; dunders only when callable
        return None if name.startswith("__") and not callable(getattr(ns, name)) else True
    if isinstance(obj, types.ModuleType):
        return obj.__name__ == f"{path}.{name}"  # a submodule, not `import math`, `import torch`
    if callable(obj):
        return (getattr(obj, "__module__", None) or "").split(".")[0] == "torch"
    return None  # constants (dtypes, pi, inf)


def torch_names(ns, path):
    """(own, foreign): torch's public names in `ns` {name: object}, and the imports dropped."""
    own, foreign = {}, []
    for name in dir(ns):
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue  # private
        obj = inspect.getattr_static(ns, name) if isinstance(ns, type) else getattr(ns, name)
        verdict = _is_own(ns, path, name, obj)
        if verdict:
            own[name] = obj
        elif verdict is False:
            foreign.append(name)
    return own, sorted(foreign)


def exclusion(path, name):
    """The EXCLUDE label that removes `name` from namespace `path`, or None."""
    for label, where, patterns in EXCLUDE:
        if (where is None or path in where) and any(fnmatchcase(name, p) for p in patterns):
            return label
    return None


def _only_raises_not_implemented(fn):
    fn = inspect.unwrap(fn)
    if not inspect.isfunction(fn):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def is_stub(obj):
    """True for a placeholder: it carries MARKER, or it only raises NotImplementedError."""
    if isinstance(obj, property):
        obj = obj.fget
    try:
        if vars(obj).get(MARKER, False):  # the object's own dict: a subclass of a stub is real
            return True
    except TypeError:
        pass  # no __dict__ (C functions, nanobind methods): real code
    if isinstance(obj, type):
        return _only_raises_not_implemented(vars(obj).get("__init__"))
    return _only_raises_not_implemented(obj)


def ember_has(ember_ns, ember_path, name, torch_obj):
    """Whether ember's namespace has `name`, not as a stub."""
    if ember_ns is None:
        return False
    try:
        obj = getattr(ember_ns, name)
    except NotImplementedError:
        return False
    except AttributeError:  # a submodule `import ember` did not import yet
        obj = _import(f"{ember_path}.{name}") if isinstance(torch_obj, types.ModuleType) else None
    return obj is not None and not is_stub(obj)


def measure():
    """One row per namespace: path, have, total, missing, excluded {label: names}, notes."""
    import torch
    if torch.__name__ != "torch" or "site-packages" not in (torch.__file__ or ""):
        sys.exit("compat_table: `import torch` did not give PyTorch (EMBER_AS_TORCH set?)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated aliases warn on access (reduce_op, ...)
        spaces = {p: _resolve(p) for p in NAMESPACES}  # import them all before any dir()
        names = {p: torch_names(spaces[p], p) for p in NAMESPACES}
        import ember  # noqa: F401  (after torch's names: nothing of ember touches them)
        rows = []
        for path in NAMESPACES:
            own, foreign = names[path]
            ember_path = "ember" + path[len("torch"):]
            ember_ns = _resolve(ember_path)
            excluded, counted = {}, {}
            for name, obj in own.items():
                label = exclusion(path, name)
                if label:
                    excluded.setdefault(label, []).append(name)
                else:
                    counted[name] = obj
            if foreign:
                excluded[FOREIGN] = foreign
            have = sorted(n for n, o in counted.items() if ember_has(ember_ns, ember_path, n, o))
            missing = sorted(set(counted) - set(have))
            notes = {n: t for (p, n), t in NOTES.items() if p == path and n in have}
            rows.append(dict(path=path, ember=ember_path, have=len(have), total=len(counted),
                             present=have, missing=missing, excluded=excluded, notes=notes))
    stale = [k for k in NOTES if k[1] not in names[k[0]][0]]
    if stale:
        sys.exit(f"compat_table: NOTES keys that are not torch names: {stale}")
    return rows


def _pct(have, total):
    return f"{100.0 * have / total:.1f}%" if total else "-"


def _codes(names):
    return ", ".join(f"`{n}`" for n in sorted(names))


INTRO = f"""# PyTorch compatibility

<!-- Generated by tools/compat_table.py (`make compat`): edit only the programs section. -->

Which of PyTorch 2.13's public names ember has, namespace by namespace. A public name is a class,
function or submodule without a leading underscore in the namespace's `dir()` (`torch.Tensor`:
every method and property); constants such as dtypes are not counted. ember has a name when the
matching ember namespace (`torch.nn.functional` -> `ember.nn.functional`) has it and it is not a
stub: a placeholder that only raises `NotImplementedError` carries `{MARKER} = True`
and counts as missing.

Excluded, and listed under each namespace: what cannot apply to a CPU tensor library
(quantization, sparse layouts' private kernels, TorchScript classes, accelerator-specific
kernels, symbolic shapes, legacy `*Tensor`/`*Storage` type classes), functions torch itself
removed, dunder names, and imports that are not the namespace's own. The patterns, each with
its reason, are `EXCLUDE` in tools/compat_table.py; the differences are its hand-kept `NOTES`.

| namespace | have | total | % |
|---|---:|---:|---:|"""


def render(rows, programs):
    have, total = sum(r["have"] for r in rows), sum(r["total"] for r in rows)
    out = [INTRO]
    out += [f"| [`{r['path']}`](#{r['path'].replace('.', '').lower()}) | {r['have']} | "
            f"{r['total']} | {_pct(r['have'], r['total'])} |" for r in rows]
    out += [f"| **all** | **{have}** | **{total}** | **{_pct(have, total)}** |", "",
            "## Real programs", "", programs, ""]
    for r in rows:
        out += [f"## {r['path']}", "", f"`{r['ember']}` has **{r['have']} / {r['total']}** "
                f"({_pct(r['have'], r['total'])}).", ""]
        if r["missing"]:
            out += [f"Missing ({len(r['missing'])}): {_codes(r['missing'])}", ""]
        if r["notes"]:
            out += ["Differences:", ""] + [f"- `{n}`: {t}" for n, t in sorted(r["notes"].items())]
            out.append("")
        if r["excluded"]:
            count = sum(len(v) for v in r["excluded"].values())
            out += [f"<details><summary>Excluded ({count})</summary>", ""]
            out += [f"- {k} ({len(v)}): {_codes(v)}" for k, v in sorted(r["excluded"].items())]
            out += ["", "</details>", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def read_programs(path):
    """The hand-written programs section (markers included) of an existing page."""
    text = pathlib.Path(path).read_text(encoding="utf-8") if os.path.exists(path) else ""
    start, end = text.find(BEGIN), text.find(END)
    return text[start:end + len(END)] if 0 <= start < end else PLACEHOLDER


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DOC, help="where to write (default: %(default)s)")
    parser.add_argument("--rows", help="also write the measured rows here, as JSON (what "
                                       "tools/untested_names.py reads in the tests)")
    args = parser.parse_args(argv)
    rows = measure()
    text = render(rows, read_programs(DOC))
    pathlib.Path(args.out).write_text(text, encoding="utf-8")
    if args.rows:
        pathlib.Path(args.rows).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
