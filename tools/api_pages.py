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

# The namespaces of docs/compatibility.md, in its order.
NAMESPACES = ["ember", "ember.Tensor", "ember.nn", "ember.nn.functional", "ember.nn.init",
              "ember.nn.utils", "ember.optim", "ember.optim.lr_scheduler", "ember.linalg",
              "ember.fft", "ember.special", "ember.distributions", "ember.autograd",
              "ember.utils.data", "ember.distributed", "ember.testing", "ember.fx", "ember.onnx"]


# Module-level tables that drive registration (linalg.FUNCTIONS, ...), not API.
TABLES = {"FUNCTIONS", "METHODS", "PROPERTIES"}


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
    if is_class_member:
        if isinstance(value, property) or not callable(value):
            return f".. autoattribute:: {target}\n   :no-index:\n"
        return f".. automethod:: {target}\n   :no-index:\n"
    if isinstance(value, type):
        return f".. autoclass:: {target}\n   :no-index:\n"
    if callable(value):
        return f".. autofunction:: {target}\n   :no-index:\n"
    return f".. autodata:: {target}\n   :no-index:\n   :annotation:\n"


def _doc(value):
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
        undocumented = sum(1 for _, v in names if _doc(v) is None)
        no_example = sum(1 for _, v in names if _doc(v) is not None and ">>>" not in _doc(v))
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
