"""No import circle among python/ember's modules: the module-level imports (the ones that run
while a module loads; an import inside a function runs later and is not counted) form a graph
without strongly connected components. A circle makes a module's names depend on which module
a program imports first; break one by moving what both sides need into a module below them
(as nn/_reduction.py, optim/_lr_base.py, distributions/_kl_registry.py do)."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import import_graph  # noqa: E402

PACKAGE = os.path.join(ROOT, "python", "ember")


def test_no_import_circle_in_ember():
    graph = import_graph.import_graph(PACKAGE)
    assert len(graph) > 300 and "ember.nn.functional" in graph
    assert "ember.nn._activations" in graph["ember.nn.functional"]  # edges are read
    circles = import_graph.cycles(graph)
    described = ["; ".join(f"{m} -> {sorted(graph[m] & set(c))}" for m in c) for c in circles]
    assert circles == [], "\n".join(described)


def _package(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return import_graph.import_graph(str(tmp_path / "pkg"))


def test_finds_circles_of_each_import_form(tmp_path):
    graph = _package(tmp_path, {
        "__init__.py": "from . import a\n",
        "a.py": "from .b import f\n",
        "b.py": "import os\ntry:\n    from .sub import c\nexcept ImportError:\n    pass\n",
        "sub/__init__.py": "",
        "sub/c.py": "from ..a import g\n",
        "d.py": "from . import e\n",
        "e.py": "def later():\n    from . import d\n",  # inside a function: not counted
    })
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.sub.c"}
    assert graph["pkg.e"] == set()
    assert import_graph.cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]


@pytest.mark.parametrize("text", ["import pkg.a\n", "from pkg import a\n", "from . import a\n"])
def test_absolute_and_relative_imports_are_edges(tmp_path, text):
    graph = _package(tmp_path, {"__init__.py": "", "a.py": "from .b import x\n", "b.py": text})
    assert import_graph.cycles(graph) == [["pkg.a", "pkg.b"]]
