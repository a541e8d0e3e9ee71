"""Per-shape float32 GEMM timings at the MLP (issue 16) and attention (issue 17) shapes.

Compares, one thread each, in alternating order (median of repeats): oneDNN's dnnl_sgemm and
OpenBLAS's cblas_sgemm called directly through ctypes, ember.mm (its dispatch, Note [float32
gemm] in src/kernels/cpu/blas.cpp) and torch.mm (MKL). Shapes are (name, m, n, k, transA, transB)
as row-major C = op(A) op(B). Run: OMP_NUM_THREADS=1 python bench/gemm_shapes.py
"""
import ctypes
import os
import statistics
import time

import numpy as np
import torch

import ember

SHAPES = [
    # MLP 784-128-10, batch 100 (bench/workloads_compile.py)
    ("mlp fc1 fwd   x W1^T", 100, 128, 784, False, True),
    ("mlp fc1 dW1   g^T x", 128, 784, 100, True, False),
    ("mlp fc2 fwd   h W2^T", 100, 10, 128, False, True),
    ("mlp fc2 dW2   g^T h", 10, 128, 100, True, False),
    ("mlp fc2 dh    g W2", 100, 128, 10, False, False),
    # GPT attention per head: T=64, head 32 (bench/workloads_training.py)
    ("attn q k^T", 64, 64, 32, False, True),
    ("attn p v", 64, 32, 64, False, False),
    ("attn dp = g v^T", 64, 64, 32, False, True),
    ("attn dv = p^T g", 64, 32, 64, True, False),
    ("attn dq = ds k", 64, 32, 64, False, False),
    ("attn dk = ds^T q", 64, 32, 64, True, False),
]

blas = ctypes.CDLL("libopenblas.so.0")
dnnl = ctypes.CDLL("libdnnl.so.2")
f32p = ctypes.POINTER(ctypes.c_float)
blas.openblas_set_num_threads(1)
i64, i32, f32 = ctypes.c_int64, ctypes.c_int, ctypes.c_float
dnnl.dnnl_sgemm.argtypes = [ctypes.c_char, ctypes.c_char, i64, i64, i64, f32, f32p, i64, f32p, i64,
                            f32, f32p, i64]
blas.cblas_sgemm.argtypes = [i32, i32, i32, i32, i32, i32, f32, f32p, i32, f32p, i32, f32, f32p,
                             i32]


def operands(m, n, k, ta, tb, rng):
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    return a, b


def timed(fn, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps * 1e6


def main():
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    rng = np.random.default_rng(0)
    print(f"{'shape':24} {'m':>4} {'n':>4} {'k':>4}  {'dnnl':>7} {'oblas':>7} {'ember.mm':>8}"
          f" {'torch.mm':>8}  (us, median of 7, 1 thread)")
    for name, m, n, k, ta, tb in SHAPES:
        a, b = operands(m, n, k, ta, tb, rng)
        c = np.zeros((m, n), np.float32)
        pa, pb, pc = (x.ctypes.data_as(f32p) for x in (a, b, c))
        lda, ldb = a.shape[1], b.shape[1]

        def f_dnnl():
            dnnl.dnnl_sgemm(b"T" if ta else b"N", b"T" if tb else b"N", m, n, k, 1.0, pa, lda, pb,
                            ldb, 0.0, pc, n)

        def f_oblas():
            blas.cblas_sgemm(101, 112 if ta else 111, 112 if tb else 111, m, n, k, 1.0, pa, lda, pb,
                             ldb, 0.0, pc, n)

        ea, eb = ember.from_numpy(a), ember.from_numpy(b)
        ea, eb = (ea.t() if ta else ea), (eb.t() if tb else eb)
        ta_, tb_ = torch.from_numpy(a), torch.from_numpy(b)
        ta_, tb_ = (ta_.t() if ta else ta_), (tb_.t() if tb else tb_)
        fns = [f_dnnl, f_oblas, lambda: ember.mm(ea, eb), lambda: torch.mm(ta_, tb_)]
        reps = max(20, int(2e8 / (m * n * k + 1e5)))
        for f in fns:
            timed(f, reps // 4)
        samples = [[] for _ in fns]
        for r in range(7):
            order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
            for i in order:
                samples[i].append(timed(fns[i], reps))
        med = [statistics.median(s) for s in samples]
        print(f"{name:24} {m:4} {n:4} {k:4}  " + " ".join(f"{v:7.2f}" for v in med[:2])
              + f" {med[2]:8.2f} {med[3]:8.2f}")


if __name__ == "__main__":
    main()
