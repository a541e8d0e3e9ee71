"""grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian as torch.func, on ember's reverse-mode
engine.

Note [func transforms on reverse mode]: each transform runs `func` on tracked copies of the
differentiated arguments (a view of a tensor that already requires grad, so an enclosing
transform can differentiate through, or a detached leaf that requires grad) and takes
autograd.grad with create_graph=True, so transforms nest (hessian = jacfwd(jacrev(f))). At the
outermost level the results are detached unless an argument required grad or func's graph
reaches another tensor that requires grad (a captured parameter), as torch's. ember has no
forward-mode AD: jvp uses the double-backward trick and jacfwd computes the same Jacobian as
jacrev (row by row, Note [Jacobian row by row] in autograd/functional.py)."""
import functools

from .. import _C
from .._grad_mode import enable_grad
from ..utils._pytree import tree_flatten, tree_unflatten

_depth = [0]  # how many transforms are running around the current call


def _argnums_tuple(argnums, nargs):
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        nums = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    nums = tuple(a % nargs for a in nums)
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return nums


def _track(x):
    if not isinstance(x, _C.Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if not (x.dtype.is_floating_point):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_(True)


class _Call:
    """One transformed call: tracked arguments, the leaves to differentiate, and whether the
    results keep their graph (Note [func transforms on reverse mode])."""

    def __init__(self, args, argnums):
        nums = _argnums_tuple(argnums, len(args))
        self.args = list(args)
        self.leaves, self.specs = [], []
        keep = _depth[0] > 0
        for n in nums:
            leaves, spec = tree_flatten(args[n])
            tracked = [_track(x) for x in leaves]
            keep = keep or any(x.requires_grad for x in leaves)
            self.args[n] = tree_unflatten(tracked, spec)
            self.leaves.append(tracked)
            self.specs.append(spec)
        self.keep = keep and _C.is_grad_enabled()
        self.single = isinstance(argnums, int)

    def run(self, func, kwargs):
        _depth[0] += 1
        try:
            with enable_grad():
                return func(*self.args, **kwargs)
        finally:
            _depth[0] -= 1

    def outputs(self, func, kwargs, has_aux, name, api):
        """Runs func: (out, aux, out's tensors, out's tree spec), out settled; RuntimeError
        naming `api` (torch names the transform it runs on) when out holds a non-tensor."""
        out, aux = _split_aux(self.run(func, kwargs), has_aux, name)
        self.settle(out)
        out_leaves, out_spec = tree_flatten(out)
        for o in out_leaves:
            if not isinstance(o, _C.Tensor):
                raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, "
                                   f"got unsupported type {type(o)}")
        return out, aux, out_leaves, out_spec

    def settle(self, outputs):
        """At the outermost level, results also keep their graph when func's outputs reach a
        tensor that requires grad other than the arguments (a captured parameter), as torch."""
        if self.keep or not _C.is_grad_enabled():
            return
        own = {x.view_as(x).grad_fn.next_functions[0][0] for x in self.flat_leaves()
               if x.is_leaf}
        stack = [o.grad_fn for o in tree_flatten(outputs)[0]
                 if isinstance(o, _C.Tensor) and o.grad_fn is not None]
        seen = set(stack)
        while stack:  # iterative: graphs can be deep
            node = stack.pop()
            if node.name() == "AccumulateGrad" and node not in own:
                self.keep = True
                return
            for nxt, _ in node.next_functions:
                if nxt is not None and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)

    def flat_leaves(self):
        return [x for group in self.leaves for x in group]

    def rebuild(self, flat):
        """Per-argument trees from one flat list (a tensor for int argnums, else a tuple)."""
        out, i = [], 0
        for group, spec in zip(self.leaves, self.specs):
            out.append(tree_unflatten(flat[i:i + len(group)], spec))
            i += len(group)
        return out[0] if self.single else tuple(out)

    def finish(self, tree):
        if self.keep:
            return tree
        leaves, spec = tree_flatten(tree)
        return tree_unflatten([x.detach() if isinstance(x, _C.Tensor) else x for x in leaves],
                              spec)


def _grads(outputs, inputs, grad_outputs=None, retain_graph=True):
    """autograd.grad with create_graph=True; zeros for inputs the outputs do not reach."""
    from .. import zeros_like
    from ..autograd import grad
    pairs = [(o, None if grad_outputs is None else g)
             for o, g in zip(outputs, grad_outputs or outputs) if o.requires_grad]
    if not pairs:
        return [zeros_like(x) for x in inputs]
    gos = None if grad_outputs is None else [g for _, g in pairs]
    res = grad([o for o, _ in pairs], list(inputs), gos, retain_graph=retain_graph,
               create_graph=True, allow_unused=True)
    return [zeros_like(x) if r is None else r for r, x in zip(res, inputs)]


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}(f)(*args): output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient of func's scalar output w.r.t. args[argnums], output);
    with has_aux, func returns (output, aux) and the value part is (output, aux)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        call = _Call(args, argnums)
        out, aux = _split_aux(call.run(func, kwargs), has_aux, "grad_and_value")
        call.settle(out)
        if not isinstance(out, _C.Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {out.dim()} dims. Maybe you wanted to "
                               "use the vjp or jacrev APIs instead?")
        with enable_grad():
            g = call.rebuild(_grads([out], call.flat_leaves()))
        value = (out, aux) if has_aux else out
        return call.finish(g), call.finish(value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of func's scalar output w.r.t. args[argnums] (a tuple
    of them for tuple argnums; (gradient, aux) with has_aux)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) returns one gradient per primal (a
    tuple), cotangents shaped like the output; vjp_fn may be called many times."""
    call = _Call(primals, tuple(range(len(primals)))) if primals else None
    if call is None:
        raise RuntimeError("vjp(f, *primals): Expected at least one primal")
    out, aux, out_leaves, _ = call.outputs(func, {}, has_aux, "vjp", "vjp(f, *primals)")

    def vjp_fn(cotangents):
        ct_leaves, ct_spec = tree_flatten(cotangents)
        if len(ct_leaves) != len(out_leaves):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function")
        for i, (c, o) in enumerate(zip(ct_leaves, out_leaves)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{c.shape} and output[{i}] has a shape of {o.shape}.")
        with enable_grad():
            g = _grads(out_leaves, call.flat_leaves(), ct_leaves)
        res = call.rebuild(g)
        return call.finish(res)

    result = (call.finish(out), vjp_fn)
    return result + (call.finish(aux),) if has_aux else result


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J @ tangents[, aux]) by the double-backward trick (no forward-mode AD)."""
    from .. import zeros_like
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it "
                           "should be valid to call f(*primals).")
    structure = ("jvp(f, primals, tangents): Expected primals and tangents to have the same "
                 "python structure. For example, if primals is a tuple of 3 tensors, tangents "
                 "also must be.")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError(structure)
    call = _Call(primals, tuple(range(len(primals))))
    t_leaves, _ = tree_flatten(tangents)
    p_leaves = call.flat_leaves()
    if len(t_leaves) != len(p_leaves):
        raise RuntimeError(structure)
    for p, t in zip(p_leaves, t_leaves):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is of "
                               f"size {list(p.shape)} while the given forward gradient is of size "
                               f"{list(t.shape)}.")
    out, aux, out_leaves, out_spec = call.outputs(func, {}, has_aux, "jvp",
                                                  "jvp(f, primals, tangents)")
    for o in out_leaves:
        if strict and not o.requires_grad:
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                               "independent of the inputs. This is not allowed with "
                               "strict=True.")
    with enable_grad():
        us = [zeros_like(o).requires_grad_(True) for o in out_leaves]
        g = _grads(out_leaves, p_leaves, us)
        jv = _grads(g, us, list(t_leaves))
    result = (call.finish(out), call.finish(tree_unflatten(jv, out_spec)))
    return result + (call.finish(aux),) if has_aux else result


def _jacobian(func, argnums, has_aux, name):
    from .. import stack

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        call = _Call(args, argnums)
        api = "vjp(f, *primals)" if name == "jacrev" else "jvp(f, primals, tangents)"
        _, aux, out_leaves, out_spec = call.outputs(func, kwargs, has_aux, name, api)
        inputs = call.flat_leaves()
        per_output = []
        with enable_grad():
            for o in out_leaves:
                flat = o.reshape(-1)
                rows = [_grads([flat[k]], inputs) for k in range(o.numel())]
                per_output.append(call.rebuild([
                    (stack([r[j] for r in rows]) if rows else x.new_zeros((0,) + tuple(x.shape)))
                    .reshape(tuple(o.shape) + tuple(x.shape)) for j, x in enumerate(inputs)]))
        jac = call.finish(tree_unflatten(per_output, out_spec))
        return (jac, call.finish(aux)) if has_aux else jac
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """A function returning the Jacobian of func w.r.t. args[argnums]: for each output leaf of
    shape O and input leaf of shape I, a tensor of shape O + I (one backward per output element;
    chunk_size is accepted and has no effect)."""
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """As torch.func.jacfwd; ember has no forward-mode AD, so this computes the same Jacobian
    in reverse mode (as jacrev)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    return _jacobian(func, argnums, has_aux, "jacfwd")


def hessian(func, argnums=0):
    """jacfwd(jacrev(func, argnums), argnums): shape I + I for one input leaf of shape I."""
    return jacfwd(jacrev(func, argnums), argnums)
