"""python -m ember.utils.collect_env: every field of the bug-report environment is printed."""
import os
import subprocess
import sys

import ember
from ember.utils import collect_env

FIELDS = ["ember version", "git revision (at build)", "built by", "Python", "NumPy", "CPU",
          "CPU flags used by kernels", "SIMD target picked (Highway)", "OpenMP", "BLAS",
          "BLAS threading", "LAPACK", "Gloo (Debian libgloo-dev)", "environment"]


def test_every_field_is_printed_with_a_value():
    env = dict(os.environ, EMBER_REPORT_PROBE="1")
    out = subprocess.run([sys.executable, "-m", "ember.utils.collect_env"], env=env,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    lines = out.splitlines()
    for field in FIELDS:
        line = next((l for l in lines if l.startswith(field + ":")), None)
        assert line is not None, f"{field!r} missing from:\n{out}"
        assert line[len(field) + 1:].strip() or field == "environment", line
    assert "EMBER_REPORT_PROBE=1" in out  # behaviour-changing variables are listed


def test_fields_match_the_running_library():
    info = collect_env.get_env_info()
    assert info["ember version"] == ember.__version__
    assert info["ember threads (get_num_threads)"] == str(ember.get_num_threads())
    assert info["BLAS"].startswith("OpenBLAS")
    assert any("openblas" in p for p in info["loaded libraries"].split())
    assert info["SIMD target picked (Highway)"] not in ("", "none")
    assert ember.version.git_version == info["git revision (at build)"]
