"""The API reference's pages (make docs): one reStructuredText page per namespace, listing every
public name ember has there with Sphinx's autodoc (its signature and docstring), written into
the Sphinx source folder given; and the count of public names whose docstring is missing or
has no example (a `>>>` line), printed and written to that folder's api/coverage.txt.

Usage: python tools/api_pages.py OUT_DIR   (ember importable: the build's python folder)
"""
import importlib
import inspect
import os
import sys
import types

# The namespaces of docs/compatibility.md, in its order, then torch.utils modules that programs
# import by name (docs/runtime.md).
NAMESPACES = ["ember", "ember.Tensor", "ember.nn", "ember.nn.functional", "ember.nn.init",
              "ember.nn.utils", "ember.optim", "ember.optim.lr_scheduler", "ember.linalg",
              "ember.fft", "ember.special", "ember.nested", "ember.distributions", "ember.autograd",
              "ember.utils.data", "ember.distributed", "ember.testing", "ember.fx", "ember.onnx",
              "ember.utils._pytree", "ember.utils.benchmark", "ember.distributed.fsdp",
              "ember.distributed.fsdp.wrap", "ember.distributed.device_mesh", "ember.library",
              "ember.distributed.optim", "ember.distributed.tensor",
              "ember.nn.attention.flex_attention", "ember.utils.flop_counter"]


# Module-level tables that drive registration (linalg.FUNCTIONS, ...), not API.
TABLES = {"FUNCTIONS", "METHODS", "PROPERTIES"}


# Public data names (dtypes, the layout, the default generator) cannot carry a docstring of
# their own: their text, with an example, lives here; the page renders it and the coverage
# counts it (tests/python/test_docstring_examples.py runs the examples).
DATA_DOCS = {
    "ember.float32": """\
32-bit floating point (torch.float32), the default floating dtype; alias ember.float.

>>> ember.tensor([1.5]).dtype, ember.float32.itemsize
(ember.float32, 4)""",
    "ember.float": """\
Alias of ember.float32.

>>> ember.float is ember.float32
True""",
    "ember.float64": """\
64-bit floating point (torch.float64); alias ember.double.

>>> ember.tensor([1.5], dtype=ember.float64)
tensor([1.5000], dtype=ember.float64)""",
    "ember.double": """\
Alias of ember.float64.

>>> ember.double is ember.float64
True""",
    "ember.float16": """\
16-bit IEEE half precision (torch.float16); alias ember.half.

>>> ember.tensor([1.5], dtype=ember.float16), ember.float16.itemsize
(tensor([1.5000], dtype=ember.float16), 2)""",
    "ember.half": """\
Alias of ember.float16.

>>> ember.half is ember.float16
True""",
    "ember.bfloat16": """\
16-bit brain floating point (torch.bfloat16): float32's exponent range, 8 bits of mantissa.

>>> ember.tensor([1.5], dtype=ember.bfloat16), ember.bfloat16.itemsize
(tensor([1.5000], dtype=ember.bfloat16), 2)""",
    "ember.int64": """\
64-bit signed integer (torch.int64), the default integer dtype; alias ember.long.

>>> ember.tensor([1, 2]).dtype, ember.int64.is_signed
(ember.int64, True)""",
    "ember.long": """\
Alias of ember.int64.

>>> ember.long is ember.int64
True""",
    "ember.int32": """\
32-bit signed integer (torch.int32); alias ember.int.

>>> ember.tensor([1, 2], dtype=ember.int32), ember.int32.itemsize
(tensor([1, 2], dtype=ember.int32), 4)""",
    "ember.int": """\
Alias of ember.int32.

>>> ember.int is ember.int32
True""",
    "ember.uint8": """\
8-bit unsigned integer (torch.uint8); arithmetic wraps modulo 256.

>>> ember.tensor([255], dtype=ember.uint8) + 1
tensor([0], dtype=ember.uint8)""",
    "ember.bool": """\
Boolean (torch.bool): the dtype of comparisons and masks.

>>> ember.tensor([1, 2]) > 1
tensor([False,  True])""",
    "ember.complex64": """\
Complex of two float32 (torch.complex64); alias ember.cfloat.

>>> ember.tensor([1 + 2j]).dtype, ember.complex64.is_complex
(ember.complex64, True)""",
    "ember.cfloat": """\
Alias of ember.complex64.

>>> ember.cfloat is ember.complex64
True""",
    "ember.complex128": """\
Complex of two float64 (torch.complex128); alias ember.cdouble.

>>> ember.tensor([1 + 2j], dtype=ember.complex128), ember.complex128.itemsize
(tensor([1.+2.j], dtype=ember.complex128), 16)""",
    "ember.cdouble": """\
Alias of ember.complex128.

>>> ember.cdouble is ember.complex128
True""",
    "ember.int8": """\
torch.int8, which ember does not implement yet: the name exists (with its itemsize and
kind) but making a tensor of it raises NotImplementedError.

>>> ember.int8.itemsize, ember.int8.is_signed
(1, True)""",
    "ember.int16": """\
torch.int16 (alias ember.short), which ember does not implement yet: making a tensor of
it raises NotImplementedError.

>>> ember.int16.itemsize, ember.short is ember.int16
(2, True)""",
    "ember.short": """\
Alias of ember.int16 (not implemented yet: making a tensor of it raises
NotImplementedError).

>>> ember.short is ember.int16
True""",
    "ember.uint16": """\
torch.uint16, which ember does not implement yet: making a tensor of it raises
NotImplementedError.

>>> ember.uint16.itemsize, ember.uint16.is_signed
(2, False)""",
    "ember.uint32": """\
torch.uint32, which ember does not implement yet: making a tensor of it raises
NotImplementedError.

>>> ember.uint32.itemsize
4""",
    "ember.uint64": """\
torch.uint64, which ember does not implement yet: making a tensor of it raises
NotImplementedError.

>>> ember.uint64.itemsize
8""",
    "ember.complex32": """\
torch.complex32 (alias ember.chalf), complex of two float16, which ember does not
implement yet: making a tensor of it raises NotImplementedError.

>>> ember.complex32.itemsize, ember.complex32.is_complex
(4, True)""",
    "ember.chalf": """\
Alias of ember.complex32 (not implemented yet: making a tensor of it raises
NotImplementedError).

>>> ember.chalf is ember.complex32
True""",
    "ember.contiguous_format": """\
torch.contiguous_format: row-major (the last dim innermost), what contiguous() gives.

>>> x = ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.contiguous_format)
>>> x.stride()
(60, 20, 5, 1)""",
    "ember.channels_last": """\
torch.channels_last: a 4-d (N, C, H, W) tensor stored as NHWC, strides (H*W*C, 1, W*C, C).

>>> ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.channels_last).stride()
(60, 1, 15, 3)""",
    "ember.channels_last_3d": """\
torch.channels_last_3d: a 5-d (N, C, D, H, W) tensor stored as NDHWC.

>>> ember.zeros(2, 3, 4, 5, 6).contiguous(memory_format=ember.channels_last_3d).stride()
(360, 1, 90, 18, 3)""",
    "ember.preserve_format": """\
torch.preserve_format: keep the layout (the default of clone, to and the factories named
like empty_like; ember's results are row-major).

>>> x = ember.zeros(2, 3)
>>> x.to(memory_format=ember.preserve_format) is x
True""",
    "ember.strided": """\
torch.strided, the layout of a dense ember tensor (with sizes and strides); the others are
ember.sparse_coo, sparse_csr and sparse_csc.

>>> ember.zeros(2).layout is ember.strided
True""",
    "ember.sparse_coo": """\
torch.sparse_coo, the layout of a sparse COO tensor (indices and values; docs/sparse.md).

>>> ember.eye(2).to_sparse().layout is ember.sparse_coo
True""",
    "ember.sparse_csr": """\
torch.sparse_csr, the compressed sparse row layout (crow_indices, col_indices, values;
docs/sparse.md).

>>> ember.eye(2).to_sparse_csr().layout is ember.sparse_csr
True""",
    "ember.sparse_csc": """\
torch.sparse_csc, the compressed sparse column layout (ccol_indices, row_indices, values;
docs/sparse.md).

>>> ember.eye(2).to_sparse_csc().layout is ember.sparse_csc
True""",
    "ember.sparse_bsr": """\
torch.sparse_bsr, the block compressed sparse row layout: a name to compare a tensor's layout
with; no ember tensor has it and to_sparse(layout=ember.sparse_bsr) raises (docs/sparse.md).

>>> ember.eye(2).to_sparse().layout == ember.sparse_bsr
False""",
    "ember.sparse_bsc": """\
torch.sparse_bsc, the block compressed sparse column layout: a name to compare a tensor's layout
with; no ember tensor has it and to_sparse(layout=ember.sparse_bsc) raises (docs/sparse.md).

>>> ember.eye(2).to_sparse().layout == ember.sparse_bsc
False""",
    "ember.jagged": """\
torch.jagged, the layout of torch.nested's jagged nested tensors (values + offsets): a name to
compare a layout with; ember.nested builds strided nested tensors only, and asking for
layout=ember.jagged raises NotImplementedError (docs/nested.md).

>>> ember.nested.nested_tensor([ember.ones(2)]).layout == ember.jagged
False""",
    "ember.default_generator": """\
The global random generator (an ember.Generator) that ember.manual_seed seeds and every
random op uses when given no generator=.

>>> ember.default_generator.manual_seed(3).initial_seed()
3
>>> ember.manual_seed(0).initial_seed()
0""",
    "ember.pi": """math.pi, as torch.pi (`from torch import pi`).

>>> ember.pi
3.141592653589793""",
    "ember.e": """math.e, as torch.e.

>>> ember.e
2.718281828459045""",
    "ember.inf": """math.inf, as torch.inf.

>>> ember.tensor([1.0, ember.inf]).isinf()
tensor([False,  True])""",
    "ember.nan": """math.nan, as torch.nan.

>>> ember.tensor([ember.nan]).isnan()
tensor([True])""",
    "ember.newaxis": """None, as torch.newaxis and NumPy's newaxis: indexing with it inserts a dim of size 1.

>>> ember.arange(3.0)[:, ember.newaxis].shape
ember.Size([3, 1])""",
}


def _resolve(path):
    module, _, attr = path.rpartition(".")
    if path == "ember.Tensor":
        return importlib.import_module("ember").Tensor
    try:
        return importlib.import_module(path)
    except ImportError:
        return getattr(importlib.import_module(module), attr)


def public_names(ns):
    """The public names of a namespace: its __all__ when it has one, else every attribute not
    starting with an underscore; submodules are namespaces of their own, not names."""
    obj = _resolve(ns)
    names = getattr(obj, "__all__", None) if isinstance(obj, types.ModuleType) else None
    if names is None:
        names = [n for n in dir(obj) if not n.startswith("_")]
    out = []
    for n in sorted(set(names) - TABLES):
        try:
            value = getattr(obj, n)
        except AttributeError:
            continue
        if not isinstance(value, types.ModuleType):
            out.append((n, value))
    return out


def _directive(ns, name, value, is_class_member):
    target = f"{ns}.{name}"
    if target in DATA_DOCS:  # a data name: its text from the table
        text = "".join(f"   {line}\n" if line else "\n" for line in DATA_DOCS[target].split("\n"))
        return f".. py:data:: {target}\n   :no-index:\n\n{text}"
    if is_class_member:
        if isinstance(value, property) or not callable(value):
            return f".. autoattribute:: {target}\n   :no-index:\n"
        return f".. automethod:: {target}\n   :no-index:\n"
    if isinstance(value, type):
        return f".. autoclass:: {target}\n   :no-index:\n"
    if callable(value):
        return f".. autofunction:: {target}\n   :no-index:\n"
    return f".. autodata:: {target}\n   :no-index:\n   :annotation:\n"


def _doc(value, target=None):
    """value's own docstring (None when it has none), or DATA_DOCS[target] for a data name."""
    if target in DATA_DOCS:
        return DATA_DOCS[target]
    doc = getattr(value, "__doc__", None)
    if isinstance(value, property):
        doc = value.__doc__
    if doc and type(value).__doc__ == doc and not isinstance(value, type):
        return None  # an instance showing its class's docstring has none of its own
    return doc if isinstance(doc, str) and doc.strip() else None


def page(ns, names):
    title = f"``{ns}``"
    out = [f"{title}\n{'=' * len(title)}\n\n",
           f"{len(names)} public names. Guides: see the contents. \n\n"]
    member = ns == "ember.Tensor"
    for name, value in names:
        out.append(_directive(ns, name, value, member) + "\n")
    return "".join(out)


def main(out_dir):
    api = os.path.join(out_dir, "api")
    os.makedirs(api, exist_ok=True)
    toc, rows, totals = [], [], [0, 0, 0]
    for ns in NAMESPACES:
        try:
            names = public_names(ns)
        except ImportError as e:  # an optional dependency missing: the page says so
            names = []
            print(f"api_pages: {ns} not importable ({e})", file=sys.stderr)
        slug = ns.replace(".", "_")
        with open(os.path.join(api, slug + ".rst"), "w", encoding="utf-8") as fh:
            fh.write(page(ns, names))
        toc.append(f"   {slug}\n")
        docs = [_doc(v, f"{ns}.{n}") for n, v in names]
        undocumented = sum(1 for d in docs if d is None)
        no_example = sum(1 for d in docs if d is not None and ">>>" not in d)
        rows.append(f"{ns:28} {len(names):5} {undocumented:13} {no_example:11}\n")
        for i, n in enumerate((len(names), undocumented, no_example)):
            totals[i] += n
    with open(os.path.join(api, "index.rst"), "w", encoding="utf-8") as fh:
        fh.write("API reference\n=============\n\nEvery public name of each namespace, with its "
                 "signature and docstring.\n\n.. toctree::\n   :maxdepth: 1\n\n" + "".join(toc))
    table = (f"{'namespace':28} {'names':>5} {'no docstring':>13} {'no example':>11}\n"
             + "".join(rows) + f"{'total':28} {totals[0]:5} {totals[1]:13} {totals[2]:11}\n")
    with open(os.path.join(api, "coverage.txt"), "w", encoding="utf-8") as fh:
        fh.write(table)
    print(table, end="")


if __name__ == "__main__":
    main(sys.argv[1])
