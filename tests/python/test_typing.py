"""ember's type information (issue 20 item 2): the stubs the build writes beside the package
(_C.pyi from the bindings by nanobind's stubgen, __init__.pyi, tools/gen_stubs.py) are in sync
with the built module; mypy finds no error in the examples and in tests/typing/program.py (a
typed program using each namespace), and does find a wrong keyword and a misspelled attribute
in that program."""
import os
import runpy
import subprocess
import sys
import sysconfig

import pytest

import ember

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAM = os.path.join(ROOT, "tests", "typing", "program.py")
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))


def test_stubs_and_marker_are_beside_the_package():
    pkg = os.path.dirname(ember.__file__)
    for name in ("py.typed", "_C.pyi", "__init__.pyi"):
        assert os.path.exists(os.path.join(pkg, name)), name


def test_stubs_match_the_built_module():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_stubs.py"), PACKAGE_ROOT,
                        "--check"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def test_program_runs():
    runpy.run_path(PROGRAM, run_name="__main__")


def _mypy(tmp_path, *paths):
    pytest.importorskip("mypy", reason="mypy is pinned in requirements-dev.txt")
    env = dict(os.environ)
    site = os.path.realpath(sysconfig.get_paths()["purelib"])
    if os.path.realpath(PACKAGE_ROOT) != site:  # a build tree (PYTHONPATH): tell mypy where
        env["MYPYPATH"] = PACKAGE_ROOT
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                        os.path.join(ROOT, "tests", "typing", "mypy.ini"),
                        "--cache-dir", str(tmp_path / "mypy_cache"), *paths],
                       capture_output=True, text=True, env=env, timeout=600)
    return r.returncode, r.stdout + r.stderr


def test_examples_and_program_type_check(tmp_path):
    code, out = _mypy(tmp_path, PROGRAM, os.path.join(ROOT, "python", "ember", "examples"))
    assert code == 0, out
    assert "Success: no issues found" in out


def test_wrong_keyword_and_misspelled_attribute_are_caught(tmp_path):
    text = open(PROGRAM).read()
    mistakes = {
        "nn.Linear(4, 8)": "nn.Linear(4, 8, biass=False)",  # a layer's keyword
        "optim.SGD(model.parameters(), lr=0.1,": "optim.SGD(model.parameters(), lrr=0.1,",
        "a.isclose(a)": "a.isclosee(a)",  # a Tensor method
        "ember.linalg.solve(": "ember.linalg.sovle(",  # a namespace's function
        "ember.eye(3)": "ember.eyes(3)",  # a top-level function
        "a.matmul(a.T)": "a.matmul(a.T, outt=None)",  # a binding's keyword
    }
    for good, bad in mistakes.items():
        assert good in text, good
        text = text.replace(good, bad, 1)
    path = tmp_path / "program_with_mistakes.py"
    path.write_text(text)
    code, out = _mypy(tmp_path, str(path))
    assert code == 1, out
    for needle in ('Unexpected keyword argument "biass"', 'Unexpected keyword argument "lrr"',
                   '"Tensor" has no attribute "isclosee"', 'has no attribute "sovle"',
                   'has no attribute "eyes"', 'Unexpected keyword argument "outt"'):
        assert needle in out, (needle, out)
