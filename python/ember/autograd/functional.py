"""ember.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp with torch's arguments,
output structure and errors, on ember's reverse-mode engine.

ember has no forward-mode AD. Forward products use the double-backward trick (torch uses it
for jvp and hvp too): with g(u) = J^T u built with create_graph=True for a dummy u that
requires grad, the gradient of g with respect to u along v is J v.

Note [Jacobian row by row]: jacobian pulls one row per output element with autograd.grad
(strategy="reverse-mode") or one column per input element with the trick above
(strategy="forward-mode"). Each pass is whole-tensor C++ work; `vectorize=True` is accepted
and computes the same rows one by one (ember has no batched backward)."""
from .. import _C
from .._grad_mode import enable_grad, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(value, what, fn):
    """(was it a tuple, the tensors as a tuple); anything but tensors raises TypeError."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, _C.Tensor):
            where = f"value at index {i}" if is_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the {where} has type {type(item)}.")
    return is_tuple, items


def _prepare(tensors, create_graph, need_graph):
    # With create_graph, an input that requires grad keeps its history (a view of it, so the
    # caller's tensor is not touched); otherwise a detached copy of the reference is used.
    return tuple(t.view_as(t) if create_graph and t.requires_grad
                 else t.detach().requires_grad_(need_graph) for t in tensors)


def _finish(values, create_graph):
    if isinstance(values, _C.Tensor):
        return values if create_graph else values.detach()
    return tuple(_finish(v, create_graph) for v in values)


def _unpack(values, outer_is_tuple, inner_is_tuple=None):
    if inner_is_tuple is not None and not inner_is_tuple:
        values = tuple(v[0] for v in values)
    return values if outer_is_tuple else values[0]


def _check_v(v, refs, refs_are_tuple):
    if len(v) != len(refs):
        if refs_are_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, refs)):
        if a.shape != b.shape:
            where = f"Entry {i} in " if refs_are_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.shape} but got "
                               f"{a.shape}.")


def _strict_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "outputs":
            raise RuntimeError(f"Output {i} of the user-provided function does not require "
                               "gradients. The outputs must be computed in a differentiable "
                               "manner from the input when running in strict mode.")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the "
                               "inputs of the user-provided function. This is not allowed in "
                               "strict mode.")
        if kind == "jacobian":
            raise RuntimeError("While computing the hessian, found that the jacobian of the "
                               f"user-provided function with respect to input {i} is "
                               "independent of the input. This is not allowed in strict mode. "
                               "You should ensure that your function is twice differentiable "
                               "and that the jacobian depends on the inputs (this would be "
                               "violated by a linear function for example).")
        raise RuntimeError(f"The hessian of the user-provided function with respect to input {i}"
                           " is independent of the input. This is not allowed in strict mode. "
                           "You should ensure that your function is thrice differentiable and "
                           "that the hessian depends on the inputs.")


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that have a graph; None for inputs none of them reach."""
    from . import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad([o for o, _ in kept], list(inputs), [g for _, g in kept],
                retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i}"
                         " in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    from .. import zeros_like
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _v_or_default(v, refs, refs_are_tuple, create_graph, fn, default_msg):
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(default_msg)
        return None
    _, v = _as_tuple(v, "v", fn)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, refs, refs_are_tuple)
    return v


def _product(outs, wrt, v, refs, create_graph, strict, stage):
    """The last backward pass of each product: v^T d outs / d wrt, zeros shaped as refs where
    nothing flows (an error in strict mode, naming `stage`), recorded under create_graph."""
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        return _zeros_for_none(_grad(outs, wrt, v, create_graph), refs, strict, create_graph,
                               stage)


def _results(outputs, outputs_tuple, res, res_tuple, create_graph):
    """(outputs, res), each finished for create_graph and unpacked unless it was a tuple."""
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(res, create_graph), res_tuple))


def _call(func, inputs, strict, fn):
    is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn)
    _strict_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T J): the vector-Jacobian product, shaped like `inputs`."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, strict, "vjp")
        v = _v_or_default(v, outputs, outputs_tuple, create_graph, "vjp",
                          "The vector v can only be None if the user-provided function returns "
                          "a single Tensor with a single element.")
    res = _product(outputs, inputs, v, inputs, create_graph, strict, "back")
    return _results(outputs, outputs_tuple, res, inputs_tuple, create_graph)


def _forward_products(outputs, inputs, strict):
    """The pieces of the double-backward trick: dummy grad_outputs u and g(u) = J^T u."""
    from .. import zeros_like
    us = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
    g = _grad(outputs, inputs, us, create_graph=True)
    _strict_requires_grad(g, "grad_inputs", strict)
    return us, g


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), J v): the Jacobian-vector product, shaped like the outputs (computed
    with the double-backward trick: ember has no forward-mode AD)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, "jvp",
                          "The vector v can only be None if the input to the user-provided "
                          "function is a single Tensor with a single element.")
        outputs_tuple, outputs = _call(func, inputs, strict, "jvp")
        us, g = _forward_products(outputs, inputs, strict)
    res = _product(g, us, v, outputs, create_graph, strict, "back_trick")
    return _results(outputs, outputs_tuple, res, outputs_tuple, create_graph)


def _jacobian_reverse(outputs, inputs, create_graph, strict):
    from .. import stack, zeros_like
    jac = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        flat = out.reshape(-1)
        for k in range(out.numel()):
            grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, (g, inp) in enumerate(zip(grads, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is "
                                           f"independent of input {j}. This is not allowed in "
                                           "strict mode.")
                    g = zeros_like(inp)
                elif strict and create_graph and not g.requires_grad:
                    raise RuntimeError("The jacobian of the user-provided function is "
                                       f"independent of input {i}. This is not allowed in "
                                       "strict mode when create_graph=True.")
                rows[j].append(g)
        jac.append(tuple(
            (stack(r) if r else out.new_zeros((0,) + tuple(inp.shape)))
            .reshape(tuple(out.shape) + tuple(inp.shape)) for r, inp in zip(rows, inputs)))
    return tuple(jac)


def _jacobian_forward(outputs, inputs):
    """One column per input element: J e_k by the double-backward trick."""
    from .. import eye, stack, zeros_like
    us, g = _forward_products(outputs, inputs, strict=False)
    columns = [[[] for _ in inputs] for _ in outputs]
    for j, inp in enumerate(inputs):
        basis = eye(inp.numel(), dtype=inp.dtype)
        for k in range(inp.numel()):
            v = [None if g_ is None else
                 (basis[k].reshape(inp.shape) if jj == j else zeros_like(g_))
                 for jj, g_ in enumerate(g)]
            kept = [(gg, vv) for gg, vv in zip(g, v) if gg is not None]
            jv = _grad(tuple(x for x, _ in kept), us, tuple(x for _, x in kept),
                       retain_graph=True) if kept else (None,) * len(us)
            for i, (col, out) in enumerate(zip(jv, outputs)):
                columns[i][j].append(zeros_like(out) if col is None else col)
    jac = []  # lists, not tuples: torch's forward-mode jacobian returns lists
    for out, cols in zip(outputs, columns):
        # columns stacked last: (out..., in_numel) -> (out..., in...)
        jac.append(list(
            (stack(c, dim=-1) if c else out.new_zeros(tuple(out.shape) + (0,)))
            .reshape(tuple(out.shape) + tuple(inp.shape)) for c, inp in zip(cols, inputs)))
    return jac


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: a Tensor of shape out.shape + in.shape, or (nested)
    tuples of them when the inputs and/or outputs are tuples (Note [Jacobian row by row])."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      'and `strategy="forward-mode"` are not supported together '
                                      '(yet). Please either set `create_graph=False` or '
                                      '`strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               '`strategy="forward-mode"` are not supported together (yet). '
                               'Please either set `strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-"
                                      "reverse Hessian isonly implemented for `vectorize=True`.")
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, strict, "jacobian")
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set"
                               " `strict=False` or `vectorize=False`.")
        if strategy == "forward-mode":
            return _unpack(_jacobian_forward(outputs, inputs), outputs_tuple, inputs_tuple)
        jac = _jacobian_reverse(outputs, inputs, create_graph, strict)
        return _unpack(_finish(jac, create_graph), outputs_tuple, inputs_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar func: in.shape + in.shape, or a tuple of tuples for tuple inputs
    (H[i][j] is the block for inputs i and j)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _strict_requires_grad(outs, "outputs", strict)
        if out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(res, inputs_tuple, inputs_tuple)


def _second_order(func, inputs, v, create_graph, strict, fn):
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn)
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, fn,
                          "The vector v can only be None if the input to the user-provided "
                          "function is a single Tensor with a single element.")
        outputs_tuple, outputs = _call(func, inputs, strict, fn)
        if outputs_tuple:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor")
        if outputs[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn} should "
                               "contain a single element")
        jac = _grad(outputs, inputs, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T H) for a scalar func, shaped like `inputs`."""
    inputs_tuple, inputs, v, outputs, jac = _second_order(func, inputs, v, create_graph, strict,
                                                          "vhp")
    res = _product(jac, inputs, v, inputs, create_graph, strict, "double_back")
    return _results(outputs, False, res, inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), H v) for a scalar func, shaped like `inputs` (double-backward trick)."""
    from .. import zeros_like
    inputs_tuple, inputs, v, outputs, jac = _second_order(func, inputs, v, create_graph, strict,
                                                          "hvp")
    with enable_grad():
        us = tuple(zeros_like(t).requires_grad_(True) for t in inputs)
        double_back = _grad(jac, inputs, us, create_graph=True)
        _strict_requires_grad(jac, "hessian", strict)
    res = _product(double_back, us, v, inputs, create_graph, strict, "double_back_trick")
    return _results(outputs, False, res, inputs_tuple, create_graph)
