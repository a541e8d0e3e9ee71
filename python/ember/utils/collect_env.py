"""The environment report for a bug report, as `python -m torch.utils.collect_env` prints it.

    python -m ember.utils.collect_env

prints ember's version and the commit it was built from, Python, NumPy, the compiler that built
the core, the CPU (model and the flags that matter to kernels), the SIMD target Highway picked,
the BLAS/LAPACK library actually loaded in the process and its threads, OpenMP, Gloo, and the
environment variables that change ember's behaviour. `get_env_info()` returns the same fields
as an ordered dict; `get_pretty_env_info()` the text.
"""
import os
import platform
import re
import subprocess
import sys

from .. import _C
from ..version import __version__

# Environment variables that change what ember (or the libraries it loads) does.
ENV_PREFIXES = ("EMBER_", "OPENBLAS_", "OMP_", "GOMP_", "KMP_", "MKL_", "GLOO_", "TORCH_")

# CPU flags that decide which kernels run.
CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
             "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile")


def _run(cmd):
    """First line of a command's output, or None when it is not there."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if out.returncode == 0 and text else None


def _cpu():
    model, flags = platform.processor() or "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name":
                    model = value.strip()
                elif key == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        pass
    return model, " ".join(f for f in CPU_FLAGS if f in flags) or "none of " + " ".join(CPU_FLAGS)


def _loaded_libraries():
    """Shared libraries of interest mapped into this process (what actually runs, not what
    the build asked for): BLAS, LAPACK, OpenMP, Gloo."""
    wanted = re.compile(r"lib(openblas|blas|lapack|gomp|omp|iomp5|gloo|hwy)[\w.-]*\.so[\w.]*$")
    found = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if wanted.search(os.path.basename(path)):
                    real = os.path.realpath(path)
                    if real not in found:
                        found.append(real)
    except OSError:
        return []
    return found


def _debian_version(package):
    return _run(["dpkg-query", "-W", "-f=${Version}", package])


def get_env_info():
    """The report's fields, in print order, as a dict of str -> str."""
    build = dict(_C.build_info())
    model, flags = _cpu()
    try:
        import numpy
        numpy_version = numpy.__version__
    except ImportError:
        numpy_version = "not installed"
    libs = _loaded_libraries()
    lapack = [p for p in libs if "lapack" in os.path.basename(p)]
    info = {
        "ember version": __version__,
        "git revision (at build)": build.pop("git_revision"),
        "build type": build.pop("build_type"),
        "built by": build.pop("compiler") + f", C++ {build.pop('cxx_standard')}",
        "c++ on PATH (for extensions)": _run(["c++", "--version"]) or "not found",
        "OS": f"{platform.platform()} ({_run(['uname', '-v']) or platform.version()})",
        "Python": f"{sys.version.split()[0]} ({platform.python_implementation()}, "
                  f"{sys.executable})",
        "NumPy": numpy_version,
        "CPU": model,
        "CPU cores (os.cpu_count)": str(os.cpu_count()),
        "CPU flags used by kernels": flags,
        "SIMD target picked (Highway)": build.pop("simd_target"),
        "SIMD targets compiled": build.pop("simd_compiled_targets"),
        "SIMD targets the CPU has": build.pop("simd_cpu_targets"),
        "ember AVX2 kernels": build.pop("avx2_kernels"),
        "ember AMX bfloat16 kernels": build.pop("amx_bf16_kernels"),
        "OpenMP": f"{build.pop('openmp')} (_OPENMP)",
        "ember threads (get_num_threads)": build.pop("num_threads"),
        "BLAS": f"{build.pop('blas')} {build.pop('blas_config')}",
        "BLAS core": build.pop("blas_core"),
        "BLAS threading": f"{build.pop('blas_threading')}, "
                          f"{build.pop('blas_num_threads')} threads",
        "LAPACK": ", ".join(lapack) if lapack else "from the BLAS library (no separate liblapack)",
        "Gloo (Debian libgloo-dev)": _debian_version("libgloo-dev") or "version unknown",
        "loaded libraries": "\n  " + "\n  ".join(libs) if libs else "none found",
    }
    info.update({f"build: {k}": v for k, v in build.items()})  # fields added to the C++ side later
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)}
    info["environment"] = ("\n  " + "\n  ".join(f"{k}={v}" for k, v in env.items())
                           if env else "none of " + " ".join(p + "*" for p in ENV_PREFIXES))
    return info


def get_pretty_env_info():
    return "\n".join(f"{key}: {value}" for key, value in get_env_info().items())


def main():
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
