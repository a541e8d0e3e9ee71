"""python -m ember run SCRIPT [ARGS...] | python -m ember run -m MODULE [ARGS...]

Runs a PyTorch program as written, on ember: `import torch`, `import torchvision` and their
submodules resolve to ember (ember/_drop_in.py, docs/drop_in.md), in this process and in the
processes it starts. The program sees the same sys.argv, sys.path[0] and __main__ as under
`python SCRIPT`.
"""
import os
import runpy
import sys

USAGE = """usage: python -m ember run SCRIPT [ARGS...]
       python -m ember run -m MODULE [ARGS...]
       python -m ember --cmake-prefix-path   (where find_package(ember) finds the C++ library)

Runs a PyTorch program unmodified on ember: `import torch` (and torchvision) give ember."""


def _fail(message):
    print(f"python -m ember: {message}\n\n{USAGE}", file=sys.stderr)
    return 2


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] == "--cmake-prefix-path":  # for cmake -DCMAKE_PREFIX_PATH=... (docs/cpp.md)
        from .utils import cmake_prefix_path
        print(cmake_prefix_path)
        return 0
    if argv[0] == "--version":
        from .version import ember_version, torch_api_version
        print(f"ember {ember_version} (torch {torch_api_version} API)")
        return 0
    if argv[0] != "run":
        return _fail(f"unknown command {argv[0]!r}")
    rest = argv[1:]
    if not rest:
        return _fail("run needs a script or -m MODULE")

    from ._drop_in import install_as_torch
    install_as_torch()
    if rest[0] == "-m":
        if len(rest) < 2:
            return _fail("-m needs a module name")
        module, args = rest[1], rest[2:]
        sys.argv = [module] + args  # runpy puts the module's file in argv[0], as python -m does
        sys.path[0] = os.getcwd()
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    script, args = rest[0], rest[1:]
    if not os.path.exists(script):
        return _fail(f"can't open file {os.path.abspath(script)!r}: no such file")
    sys.argv = [script] + args
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
