"""ember.backends.cpu: the instruction set ember's SIMD kernels dispatch to."""
import os


def get_cpu_capability():
    """'AVX512', 'AVX2' or 'DEFAULT', as torch names them: Highway's pick for this CPU (AVX3
    needs avx512 f/bw/dq/vl), capped by EMBER_SIMD_TARGET and EMBER_DISABLE_SIMD as the
    kernels are."""
    if os.environ.get("EMBER_DISABLE_SIMD", "0") not in ("", "0"):
        return "DEFAULT"
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        flags = []
    best = ("AVX512" if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= set(flags)
            else "AVX2" if {"avx2", "fma"} <= set(flags) else "DEFAULT")
    cap = os.environ.get("EMBER_SIMD_TARGET", "").lower()
    order = ["DEFAULT", "AVX2", "AVX512"]
    wanted = {"avx3": "AVX512", "avx512": "AVX512", "avx2": "AVX2", "sse4": "DEFAULT",
              "scalar": "DEFAULT", "emu128": "DEFAULT"}.get(cap)
    return best if wanted is None else order[min(order.index(best), order.index(wanted))]
