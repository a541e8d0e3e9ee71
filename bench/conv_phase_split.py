"""Issue 17's phase-split lead, measured: DCGAN's 4x4 stride-2 pad-1 convolutions (D2-D4,
batch 16) as the step runs them, against the equivalent 2x2 stride-1 convolution over the
input split into its four phases (space-to-depth, 4x the channels), forward alone and forward
plus both gradients, one thread, minimum of 7 repeats. Run once per library, in turn:

    OMP_NUM_THREADS=1 python bench/conv_phase_split.py torch
    OMP_NUM_THREADS=1 PYTHONPATH=<build>/python python bench/conv_phase_split.py ember
"""
import sys
import time

if len(sys.argv) > 1 and sys.argv[1] == "torch":
    import torch
else:
    import ember as torch

F = torch.nn.functional
LAYERS = [(64, 128, 32), (128, 256, 16), (256, 512, 8)]  # D2, D3, D4: in, out, image side


def split_input(x):
    """[N, C, H, W] -> padded by 1 and phase-split: [N, 4C, H/2+1, W/2+1]."""
    n, c, h, w = x.shape
    xp = F.pad(x, (1, 1, 1, 1))
    xp = xp.reshape(n, c, (h + 2) // 2, 2, (w + 2) // 2, 2).permute(0, 1, 3, 5, 2, 4)
    return xp.reshape(n, c * 4, (h + 2) // 2, (w + 2) // 2)


def split_weight(w):
    """[O, C, 4, 4] -> [O, 4C, 2, 2], tap (2u+a, 2v+b) to channel (c, a, b), tap (u, v)."""
    o, c = w.shape[:2]
    return w.reshape(o, c, 2, 2, 2, 2).permute(0, 1, 3, 5, 2, 4).reshape(o, c * 4, 2, 2).contiguous()


def best_ms(f, repeats=7):
    f()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else "ember"
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for cin, cout, side in LAYERS:
        x = torch.randn(16, cin, side, side)
        w = torch.randn(cout, cin, 4, 4) * 0.05
        xs, ws = split_input(x).contiguous(), split_weight(w)
        err = float((F.conv2d(x, w, stride=2, padding=1) - F.conv2d(xs, ws)).abs().max())
        grad = torch.randn(16, cout, side // 2, side // 2)
        xr, wr = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
        xsr, wsr = xs.clone().requires_grad_(True), ws.clone().requires_grad_(True)
        s2 = best_ms(lambda: F.conv2d(x, w, stride=2, padding=1))
        s1 = best_ms(lambda: F.conv2d(xs, ws))
        s1_split = best_ms(lambda: F.conv2d(split_input(x), ws))
        s2_bwd = best_ms(lambda: F.conv2d(xr, wr, stride=2, padding=1).backward(grad))
        s1_bwd = best_ms(lambda: F.conv2d(xsr, wsr).backward(grad))
        print(f"{lib} {cin}->{cout} {side}x{side}: max err {err:.1e}; forward s2 {s2:.2f} ms, "
              f"split {s1:.2f}, +split {s1_split:.2f}; forward+grads s2 {s2_bwd:.2f}, split {s1_bwd:.2f}",
              flush=True)


if __name__ == "__main__":
    main()
