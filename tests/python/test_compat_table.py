"""tools/compat_table.py: the stub rule, the exclusions, the page it writes, and that the
committed docs/compatibility.md is what the script writes for the current code."""
import difflib
import importlib.util
import json
import os
import re
import subprocess
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "compat_table.py")
_spec = importlib.util.spec_from_file_location("compat_table", SCRIPT)
ct = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ct)

ROW = re.compile(r"^\| \[`([\w.]+)`\]\(#\w+\) \| (\d+) \| (\d+) \| ([\d.]+)% \|$", re.M)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """One run of the script: the page it writes and the rows it measured."""
    folder = tmp_path_factory.mktemp("compat")
    out, rows = folder / "compatibility.md", folder / "rows.json"
    env = {k: v for k, v in os.environ.items() if k != "EMBER_AS_TORCH"}  # the real torch
    run = subprocess.run([sys.executable, SCRIPT, "--out", str(out), "--rows", str(rows)],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return out.read_text(encoding="utf-8"), json.loads(rows.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def page(measured):
    return measured[0]


def _section(page, ns):
    start = page.index(f"\n## {ns}\n")
    end = page.find("\n## ", start + 1)
    return page[start:end if end >= 0 else len(page)]


# --- what counts as present ---------------------------------------------------------------

def real(x):
    return x


def marked(x):
    return x


marked._ember_not_implemented = True


def only_raises(x):
    """A placeholder without the marker."""
    raise NotImplementedError(f"only_raises: {x}")


def raises_bare():
    raise NotImplementedError


def raises_for_some(x):
    if x:
        raise NotImplementedError("only_raises_for_some: x=True")
    return x


class Stub:
    _ember_not_implemented = True


class RealSubclass(Stub):  # the marker is looked up on the class itself, not inherited
    pass


class InitStub:
    def __init__(self):
        raise NotImplementedError("InitStub")


class WithProperties:
    @property
    def good(self):
        return 1

    @property
    def stubbed(self):
        return 1

    stubbed.fget._ember_not_implemented = True


@pytest.mark.parametrize("name, present", [
    ("real", True), ("marked", False), ("only_raises", False), ("raises_bare", False),
    ("raises_for_some", True), ("Stub", False), ("RealSubclass", True), ("InitStub", False),
    ("absent", False), ("len", True)])
def test_ember_has_functions_and_classes(name, present):
    ns = types.SimpleNamespace(real=real, marked=marked, only_raises=only_raises,
                               raises_bare=raises_bare, raises_for_some=raises_for_some,
                               Stub=Stub, RealSubclass=RealSubclass, InitStub=InitStub, len=len)
    assert ct.ember_has(ns, "ember.fake", name, real) is present


def test_ember_has_properties_modules_and_raising_namespaces():
    assert ct.ember_has(WithProperties, "ember.Fake", "good", None)
    assert not ct.ember_has(WithProperties, "ember.Fake", "stubbed", None)
    mod = types.ModuleType("ember.fake_mod")
    mod._ember_not_implemented = True
    assert not ct.ember_has(types.SimpleNamespace(fake_mod=mod), "ember", "fake_mod", mod)
    assert ct.ember_has(types.SimpleNamespace(m=types.ModuleType("ember.m")), "ember", "m", mod)
    # a submodule not imported yet is imported; one that does not exist is missing
    assert ct.ember_has(types.SimpleNamespace(), "ember", "nn", types.ModuleType("torch.nn"))
    assert not ct.ember_has(types.SimpleNamespace(), "ember", "no_such_module_xyz", mod)
    assert not ct.ember_has(None, "ember.no_such", "anything", real)

    class Raising:
        def __getattr__(self, name):
            raise NotImplementedError(f"ember does not implement {name}")
    assert not ct.ember_has(Raising(), "ember.fake", "anything", real)


# --- what counts at all ---------------------------------------------------------------------

@pytest.mark.parametrize("path, name, label", [
    ("torch", "quantize_per_tensor", "quantization"), ("torch.Tensor", "q_scale", "quantization"),
    ("torch.Tensor", "is_quantized", "quantization"), ("torch", "ao", "quantization"),
    ("torch", "cudnn_convolution", "accelerator-specific"),
    ("torch", "mkldnn_max_pool2d", "accelerator-specific"),
    ("torch", "FloatTensor", "legacy type classes"), ("torch", "UntypedStorage",
                                                      "legacy type classes"),
    ("torch", "SymInt", "symbolic shapes"), ("torch", "sym_max", "symbolic shapes"),
    ("torch", "ScriptModule", "TorchScript / JIT"), ("torch", "TensorType", "TorchScript / JIT"),
    ("torch", "spmm", "sparse layouts' private kernels"), ("torch.Tensor", "__add__",
                                                           "dunder names"),
    ("torch", "solve", "removed from torch"), ("torch.nn.init", "Tensor", "internal imports"),
    # counted: the real API, and device queries programs make
    ("torch", "Tensor", None), ("torch", "flipud", None), ("torch", "quantile", None),
    ("torch.Tensor", "is_cuda", None), ("torch.Tensor", "cuda", None), ("torch", "cuda", None),
    ("torch.nn", "ModuleDict", None), ("torch.linalg", "solve", None), ("torch", "jit", None),
    ("torch", "sparse_coo_tensor", None), ("torch.optim", "Optimizer", None)])
def test_exclusion(path, name, label):
    assert ct.exclusion(path, name) == label


def test_torch_names_drop_imports_and_constants():
    import torch
    own, foreign = ct.torch_names(torch.nn.functional, "torch.nn.functional")
    assert {"relu", "conv2d", "scaled_dot_product_attention"} <= set(own)
    assert {"math", "np", "Optional", "torch"} <= set(foreign)
    assert not set(own) & set(foreign)
    own, _ = ct.torch_names(torch, "torch")
    assert "float32" not in own and "pi" not in own and "nn" in own
    own, _ = ct.torch_names(torch.Tensor, "torch.Tensor")
    assert {"shape", "grad", "add", "T"} <= set(own)


def test_programs_section_is_kept(tmp_path):
    page = tmp_path / "p.md"
    assert ct.read_programs(str(page)) == ct.PLACEHOLDER  # no page yet
    hand = f"{ct.BEGIN}\n| program | result |\n|---|---|\n| mnist | 98% |\n{ct.END}"
    page.write_text(f"# old\n\n{hand}\n\nold tables\n", encoding="utf-8")
    assert ct.read_programs(str(page)) == hand
    page.write_text("# no markers\n", encoding="utf-8")
    assert ct.read_programs(str(page)) == ct.PLACEHOLDER


# --- the page -------------------------------------------------------------------------------

def test_page_summary_and_sections_agree(page):
    rows = ROW.findall(page)
    assert [r[0] for r in rows] == ct.NAMESPACES
    for ns, have, total, pct in rows:
        have, total = int(have), int(total)
        assert 0 <= have <= total and total > 0, ns
        assert pct == f"{100.0 * have / total:.1f}"
        section = _section(page, ns)
        assert f"has **{have} / {total}** ({pct}%)" in section
        missing = re.search(r"^Missing \((\d+)\): (.*)$", section, re.M)
        names = re.findall(r"`([^`]+)`", missing.group(2)) if missing else []
        assert len(names) == (int(missing.group(1)) if missing else 0) == total - have, ns
        assert names == sorted(names)
    total_row = re.search(r"^\| \*\*all\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \|", page, re.M)
    assert int(total_row.group(1)) == sum(int(r[1]) for r in rows)
    assert int(total_row.group(2)) == sum(int(r[2]) for r in rows)
    assert page.count(ct.BEGIN) == page.count(ct.END) == 1
    assert page.index("| namespace |") < page.index(ct.BEGIN) < page.index("\n## torch\n")


def test_page_lists_exclusions_apart_from_missing(page):
    torch_section = _section(page, "torch")
    details = torch_section[torch_section.index("<details>"):]
    assert "`quantize_per_tensor`" in details and "`cudnn_convolution`" in details
    assert "`quantize_per_tensor`" not in torch_section[:torch_section.index("<details>")]
    assert "- imports" in details and "`os`" in details


def test_committed_page_is_current(page):
    with open(ct.DOC, encoding="utf-8") as f:
        committed = f.read()
    if committed != page:
        diff = "".join(list(difflib.unified_diff(committed.splitlines(True), page.splitlines(True),
                                                 "docs/compatibility.md", "generated", n=0))[:40])
        pytest.fail("docs/compatibility.md is stale: ember's names changed since it was written. "
                    "Run `make compat` (or .venv/bin/python tools/compat_table.py) and commit "
                    f"docs/compatibility.md.\n{diff}")


# --- every present name has a test ------------------------------------------------------------
def test_every_present_name_is_named_by_a_test(measured):
    """Issue 14: each name the page counts as present appears (as a whole word) in some file of
    tests/python: tools/untested_names.py on the same measurement must list nothing."""
    spec = importlib.util.spec_from_file_location(
        "untested_names", os.path.join(ROOT, "tools", "untested_names.py"))
    un = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(un)
    rows = measured[1]
    assert sum(r["have"] for r in rows) > 1900  # the measurement itself is not empty
    missing = {ns: names for ns, names in un.untested(rows, un.test_text()).items() if names}
    assert not missing, ("present names that no test in tests/python names; add a test against "
                         f"torch for each: {missing}")
