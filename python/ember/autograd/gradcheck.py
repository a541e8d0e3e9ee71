"""Finite-difference gradient checks, as torch.autograd.gradcheck and gradgradcheck.

Note [gradcheck loops in Python]: this is a test utility, not a compute path. It perturbs
one input element at a time (each perturbation calls `fn`, whose ops run in C++), and
pulls one row of the Jacobian per output element with autograd.grad, like PyTorch's own
gradcheck. Use small float64 inputs."""
import warnings

from .. import _C


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails (a RuntimeError, as torch's)."""


def _flat_outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _to_numpy64(t):
    import numpy as np
    return np.array(t.detach().numpy(), dtype=np.float64).ravel()


def _numerical(fn, inputs, idx, out_sizes, eps):
    import numpy as np  # (here, not at module top: `import ember` does not load NumPy)
    arr = inputs[idx].detach().numpy()  # shares memory with the input: perturb in place
    flat_index = list(np.ndindex(*arr.shape)) if arr.ndim else [()]
    numeric = np.zeros((len(flat_index), sum(out_sizes)))
    for col, pos in enumerate(flat_index):
        orig = arr[pos].copy()
        try:
            arr[pos] = orig + eps
            plus = [_to_numpy64(o) for o in _flat_outputs(fn(*inputs))]
            arr[pos] = orig - eps
            minus = [_to_numpy64(o) for o in _flat_outputs(fn(*inputs))]
        finally:  # the caller's input is left as it was, also when fn raises
            arr[pos] = orig
        numeric[col] = (np.concatenate(plus) - np.concatenate(minus)) / (2 * eps)
    return numeric


def _analytical(outputs, x, rows, check_grad_dtypes):
    import numpy as np
    from . import grad as autograd_grad
    analytic = np.zeros((rows, sum(o.numel() for o in outputs)))
    col = 0
    for o in outputs:
        if not o.requires_grad:
            col += o.numel()
            continue
        for k in range(o.numel()):
            seed = np.zeros(o.numel())
            seed[k] = 1.0
            g = _C._from_numpy(seed.reshape(tuple(o.shape)).astype(o.detach().numpy().dtype))
            (gx,) = autograd_grad([o], [x], [g], retain_graph=True, allow_unused=True)
            if gx is not None:
                if check_grad_dtypes and gx.dtype != x.dtype:
                    raise GradcheckError(f"Gradient has dtype mismatch: got {gx.dtype} for an "
                                         f"input of dtype {x.dtype}")
                if tuple(gx.shape) != tuple(x.shape):
                    raise GradcheckError(f"Gradient has incorrect size: got {tuple(gx.shape)}, "
                                         f"expected {tuple(x.shape)}")
                analytic[:, col + k] = _to_numpy64(gx)
        col += o.numel()
    return analytic


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """Compares the Jacobian autograd gives with central finite differences for every input
    that requires grad; raises GradcheckError (or returns False) on a mismatch. The forward-AD
    and batched checks torch offers are not run (ember has neither); their flags are accepted.

    >>> x = ember.tensor([0.5, 1.5], dtype=ember.float64, requires_grad=True)
    >>> ember.autograd.gradcheck(ember.sin, (x,))
    True
    """
    import numpy as np
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff:
        if str(inputs[i].dtype).rsplit(".", 1)[-1] != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ")
    try:
        if not check_backward_ad:
            return True
        outputs = _flat_outputs(func(*inputs))
        sizes = [o.numel() for o in outputs]
        for idx in diff:
            numeric = _numerical(func, inputs, idx, sizes, eps)
            outputs = _flat_outputs(func(*inputs))
            analytic = _analytical(outputs, inputs[idx], numeric.shape[0], check_grad_dtypes)
            start = 0
            for j, size in enumerate(sizes):
                a, n = analytic[:, start:start + size], numeric[:, start:start + size]
                start += size
                if not np.allclose(a, n, atol=atol, rtol=rtol):
                    raise GradcheckError(f"Jacobian mismatch for output {j} with respect to "
                                         f"input {idx},\nnumerical:{n}\nanalytical:{a}\n")
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the function (inputs, grad_outputs) -> autograd.grad(func(inputs), inputs,
    grad_outputs, create_graph=True): checks second derivatives. Missing grad_outputs are drawn
    uniformly from [-1, 1) (ember's RNG; seed with ember.manual_seed).

    >>> x = ember.tensor([0.5, 1.5], dtype=ember.float64, requires_grad=True)
    >>> ember.autograd.gradgradcheck(ember.sin, (x,))
    True
    """
    from . import grad as autograd_grad
    from ..testing import make_tensor
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if grad_outputs is None:
        outputs = _flat_outputs(func(*inputs))
        grad_outputs = tuple(make_tensor(tuple(o.shape), dtype=o.dtype, low=-1, high=1,
                                         requires_grad=True, noncontiguous=
                                         gen_non_contig_grad_outputs) for o in outputs)
    else:
        grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) \
            else (grad_outputs,)
    n_in = len(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]

    def first_derivatives(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _flat_outputs(func(*ins))
        pairs = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
        grads = autograd_grad([o for o, _ in pairs], [ins[i] for i in diff],
                              [g for _, g in pairs], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    if not check_rev_over_rev:
        return True
    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)
