"""Workloads of ember.fft (issue 14; imported by run.py to register them): rfft of 2^20 float32
points against torch.fft.rfft and numpy.fft.rfft. With --threads 1 each library transforms on
one core: ember with KISS FFT (src/kernels/cpu/fft.cpp), torch with its CPU FFT (MKL in the
x86 wheels, pocketfft elsewhere), NumPy with pocketfft (C++, float32 since NumPy 2)."""
from common import data, same_op, workload

N = 1 << 20


@workload("fft.rfft, 2^20 f32", note="complex64 result of 2^19 + 1 values")
def fft_rfft(L):
    return same_op(L, lambda m, x: m.fft.rfft(x), data(L, N))


@workload("fft.fft, 4096x64 c64 (batched rows)",
          note="64 transforms of 4096 along dim 0: KISS FFT is scalar, one transform at a time "
               "(MKL: AVX2; pocketfft: several columns per SIMD pass); see docs/fft.md")
def fft_fft_batched(L):
    x = data(L, 4096, 64, 2)
    cx = {"numpy": x["numpy"][..., 0] + 1j * x["numpy"][..., 1],
          "torch": L["torch"].view_as_complex(x["torch"]),
          "ember": L["ember"].view_as_complex(x["ember"])}
    cx["numpy"] = cx["numpy"].astype("complex64")
    return {"numpy": lambda: L["numpy"].fft.fft(cx["numpy"], axis=0),
            "torch": lambda: L["torch"].fft.fft(cx["torch"], dim=0),
            "ember": lambda: L["ember"].fft.fft(cx["ember"], dim=0)}
