"""Finite-difference gradient check, as torch.autograd.gradcheck.

Note [gradcheck loops in Python]: this is a test utility, not a compute path. It perturbs
one input element at a time (each perturbation calls `fn`, whose ops run in C++), and
pulls one row of the Jacobian per output element with autograd.grad, like PyTorch's own
gradcheck. Use small float64 inputs."""
from .. import _C


def _flat_outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **kwargs):
    import numpy as np  # (here, not at module top: `import ember` does not load NumPy)
    from . import grad as autograd_grad
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    outputs = _flat_outputs(fn(*inputs))
    out_sizes = [o.numel() for o in outputs]
    for idx in diff:
        x = inputs[idx]
        arr = x.detach().numpy()  # shares memory with x: perturb in place
        flat_index = list(np.ndindex(*arr.shape)) if arr.ndim else [()]
        numeric = np.zeros((len(flat_index), sum(out_sizes)))
        for col, pos in enumerate(flat_index):
            orig = arr[pos].copy()
            arr[pos] = orig + eps
            plus = [np.array(o.detach().numpy(), dtype=np.float64).ravel() for o in _flat_outputs(fn(*inputs))]
            arr[pos] = orig - eps
            minus = [np.array(o.detach().numpy(), dtype=np.float64).ravel() for o in _flat_outputs(fn(*inputs))]
            arr[pos] = orig
            numeric[col] = (np.concatenate(plus) - np.concatenate(minus)) / (2 * eps)
        analytic = np.zeros_like(numeric)
        row = 0
        outputs = _flat_outputs(fn(*inputs))
        for o in outputs:
            if not o.requires_grad:
                row += o.numel()
                continue
            for k in range(o.numel()):
                seed = np.zeros(o.numel())
                seed[k] = 1.0
                g = _C._from_numpy(seed.reshape(tuple(o.shape)).astype(o.numpy().dtype))
                (gx,) = autograd_grad([o], [x], [g], retain_graph=True, allow_unused=True)
                if gx is not None:
                    analytic[:, row + k] = np.asarray(gx.numpy(), dtype=np.float64).ravel()
            row += o.numel()
        if not np.allclose(analytic, numeric, atol=atol, rtol=rtol):
            if raise_exception:
                raise RuntimeError(f"gradcheck: Jacobian mismatch for input {idx}:\n"
                                   f"numerical:\n{numeric}\nanalytical:\n{analytic}")
            return False
    return True
