"""List the names docs/compatibility.md counts as present that no Python test names.

    .venv/bin/python tools/untested_names.py            # every counted namespace
    .venv/bin/python tools/untested_names.py torch.fft  # one namespace

A name is "named by a test" when it appears as a whole word (`\\bname\\b`) in a file
tests/python/test_*.py (or a helper module there). That is a floor, not proof of a good test: a
name a test never mentions is certainly untested, so issue 14's "every present name has a test
against torch" starts from this list. test_compat_table.py keeps it empty.
"""
import importlib.util
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests", "python")
_spec = importlib.util.spec_from_file_location("compat_table", os.path.join(ROOT, "tools", "compat_table.py"))
ct = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ct)


def test_text():
    return "\n".join(open(os.path.join(TESTS, f), encoding="utf-8").read()
                     for f in sorted(os.listdir(TESTS)) if f.endswith(".py"))


def untested(rows, text):
    """{namespace: [present names no test file names]}"""
    words = set(re.findall(r"\w+", text))
    out = {}
    for row in rows:
        out[row["path"]] = sorted(n for n in row["present"] if n not in words)
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    rows = [r for r in ct.measure() if not argv or r["path"] in argv]
    result = untested(rows, test_text())
    total = 0
    for path, names in result.items():
        total += len(names)
        print(f"{path}: {len(names)} untested" + (": " + ", ".join(names) if names else ""))
    print(f"total: {total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
