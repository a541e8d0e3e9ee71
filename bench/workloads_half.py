"""Workloads of the 16-bit floats (issue 15; imported by run.py to register them): bfloat16 and
float16 matmul 2048^2, bfloat16 exp/sum/softmax on 4M elements, a float32 2048^2 matmul
for the fp16 target (>= 0.8x ember's own float32), and the Fashion-MNIST CNN epoch under
autocast(bfloat16) (target: <= 0.8x ember's float32 epoch, workloads_nn.py's CNN row; run both
with --only "Fashion-MNIST epoch, CNN"). NumPy has no bfloat16 (and its float16 matmul is a
scalar loop of minutes), so NumPy skips these rows."""
from common import Skip, data, workload
from workloads_nn import _epoch

N = 2048
M = 1 << 22


def half_data(L, *shape, dtype):
    x = data(L, *shape)
    return {"torch": x["torch"].to(getattr(L["torch"], dtype)),
            "ember": x["ember"].to(getattr(L["ember"], dtype)), "numpy": None}


def half_op(L, fn, dtype, *shapes):
    xs = [half_data(L, *s, dtype=dtype) for s in shapes]
    out = {lib: (lambda m=L[lib], args=tuple(x[lib] for x in xs): fn(m, *args))
           for lib in ("torch", "ember")}
    out["numpy"] = Skip("NumPy has no bfloat16 / no fast float16 matmul")
    return out


@workload(f"matmul {N}^2 bf16", flops=2 * N**3,
          note="ember: its AMX tile kernel (Note [AMX bfloat16 gemm]; without AMX oneDNN 2.6, "
               "then sgemm); torch: its bundled oneDNN 3.x")
def matmul_bf16(L):
    return half_op(L, lambda m, a, b: a @ b, "bfloat16", (N, N), (N, N))


@workload(f"matmul {N}^2 fp16", flops=2 * N**3,
          note="ember: two bfloat16 planes on its AMX kernel (Note [AMX float16 gemm]; without AMX "
               "F16C widening + its float32 gemm); compare with the f32 row")
def matmul_fp16(L):
    return half_op(L, lambda m, a, b: a @ b, "float16", (N, N), (N, N))


@workload(f"matmul {N}^2 f32 (reference for fp16)", flops=2 * N**3)
def matmul_f32_ref(L):
    x, y = data(L, N, N), data(L, N, N, seed=1)
    return {lib: (lambda a=x[lib], b=y[lib]: a @ b) for lib in ("torch", "ember", "numpy")}


@workload("exp 4M bf16", bytes=4 * M)
def exp_bf16(L):
    return half_op(L, lambda m, x: m.exp(x), "bfloat16", (M,))


@workload("sum 4M bf16", bytes=2 * M)
def sum_bf16(L):
    return half_op(L, lambda m, x: m.sum(x), "bfloat16", (M,))


@workload("softmax 4M bf16 (1024 rows)", bytes=4 * M)
def softmax_bf16(L):
    return half_op(L, lambda m, x: m.softmax(x, 1), "bfloat16", (M // 4096, 4096))


@workload("Fashion-MNIST epoch, CNN under autocast(bfloat16), batch 64", repeats=3, warm_calls=0,
          note="60000 images, Adam, forward + loss under autocast('cpu', bfloat16) in both "
               "libraries; compare ember with its float32 CNN row")
def epoch_cnn_bf16(L):
    return _epoch(L, "cnn", amp="bf16")
