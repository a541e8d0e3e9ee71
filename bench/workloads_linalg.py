"""Workloads of ember.linalg (issue 14 item 2; imported by run.py to register them): the LAPACK
routines at 512 x 512 float64 against torch.linalg and numpy.linalg. With --threads 1 the three
libraries' LAPACKs run on one core each; eigenvector / singular-vector signs may differ between
them, which does not change the work."""
from common import data, same_op, workload

N = 512


def _spd(L, seed=0):
    x = data(L, N, N, dtype="float64", seed=seed)
    out = {}
    for lib, a in x.items():
        out[lib] = a @ a.T + N * (L["numpy"].eye(N) if lib == "numpy" else L[lib].eye(N, dtype=a.dtype))
    return out


@workload("linalg.solve, 512x512 f64, 512 rhs", flops=2 / 3 * N ** 3 + 2 * N ** 3)
def linalg_solve(L):
    return same_op(L, lambda m, a, b: m.linalg.solve(a, b), _spd(L), data(L, N, N, dtype="float64", seed=1))


@workload("linalg.svd, 512x512 f64 (reduced)")
def linalg_svd(L):
    return same_op(L, lambda m, a: m.linalg.svd(a, full_matrices=False), data(L, N, N, dtype="float64"))


@workload("linalg.qr, 512x512 f64", flops=4 / 3 * N ** 3 * 2)
def linalg_qr(L):
    return same_op(L, lambda m, a: m.linalg.qr(a), data(L, N, N, dtype="float64"))


@workload("linalg.eigh, 512x512 f64")
def linalg_eigh(L):
    return same_op(L, lambda m, a: m.linalg.eigh(a), _spd(L))
