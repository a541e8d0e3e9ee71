"""torch.__config__: how ember was built (show) and how it runs in parallel (parallel_info), in
torch's text layout, so programs that search it (PyG checks for 'USE_MKL=OFF') read ember's real
build: ember does not use MKL or MKL-DNN; its BLAS is the one _C.build_info() names."""
import os

from . import _C


def show():
    """The build configuration of ember as text, in torch's layout ('... built with:', one
    '  - ' line per component, then the 'Build settings:' line of KEY=VALUE pairs).

    >>> 'USE_MKL=OFF' in ember.__config__.show()
    True
    """
    info = _C.build_info()
    openmp = info.get("openmp")
    lines = ["ember built with:",
             f"  - {info.get('compiler', 'unknown compiler')}",
             f"  - C++ Version: {info.get('cxx_standard', 'unknown')}"]
    if openmp:
        lines.append(f"  - OpenMP {openmp}")
    lines.append(f"  - BLAS: {info.get('blas_config', info.get('blas', 'none'))}")
    lines.append(f"  - CPU capability usage: {info.get('simd_target', 'unknown')}")
    settings = {
        "BLAS_INFO": info.get("blas", "none").lower(),
        "BUILD_TYPE": info.get("build_type", "unknown"),
        "COMMIT_SHA": info.get("git_revision", "unknown"),
        "USE_CUDA": "0",
        "USE_MKL": "OFF",
        "USE_MKLDNN": "OFF",
        "USE_OPENMP": "ON" if openmp else "OFF",
    }
    lines.append("  - Build settings: " + ", ".join(f"{k}={v}" for k, v in settings.items()) + ", ")
    return "\n".join(lines) + "\n"


def parallel_info():
    """ember's threading as text, in torch's layout: the intra-op thread count, the OpenMP and
    BLAS builds, and the thread environment variables.

    >>> 'get_num_threads() : ' in ember.__config__.parallel_info()
    True
    """
    info = _C.build_info()
    lines = ["ATen/Parallel:", f"\tat::get_num_threads() : {_C.get_num_threads()}"]
    if info.get("openmp"):
        lines.append(f"OpenMP {info['openmp']}")
    lines.append(f"{info.get('blas_config', info.get('blas', 'none'))}")
    lines.append(f"\tblas_num_threads : {info.get('blas_num_threads', 'unknown')}")
    lines.append(f"std::thread::hardware_concurrency() : {os.cpu_count()}")
    lines.append("Environment variables:")
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        lines.append(f"\t{var} : {os.environ.get(var, '[not set]')}")
    lines.append(f"ATen parallel backend: {'OpenMP' if info.get('openmp') else 'native thread pool'}")
    return "\n".join(lines) + "\n"
