"""vmap as torch.func.vmap.

Note [vmap by calls]: ember has no batching rules yet. vmap calls `func` once per index of the
mapped dimension (each call runs whole-tensor C++ ops on the slice) and stacks the results
along out_dims. This gives torch's results, structure and errors, and nests; its cost is
B calls instead of one batched call. randomness follows torch: "error" raises when a call
drew from the default generator (its state moved), "same" restores the state before each
call, "different" lets the calls draw in turn (as one batched draw would)."""
import functools

from .. import _C
from ..utils._pytree import _broadcast_to_and_flatten, tree_flatten, tree_unflatten


def _fname(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Maps func over dimension in_dims of its inputs (an int, None, or a tree matching the
    positional arguments) and stacks the outputs at out_dims (Note [vmap by calls]).

    >>> ember.vmap(lambda row: row.sum())(ember.tensor([[1, 2], [3, 4]]))
    tensor([3, 7])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        name = _fname(func)
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...): expected `in_dims` to be "
                             f"int or a (potentially nested) tuple matching the structure of "
                             f"inputs, got: {type(in_dims)}.")
        if not args:
            raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                             "inputs, or you are trying to vmap over a function with no inputs. "
                             "The latter is unsupported.")
        leaves, spec = tree_flatten(args)
        dims = _broadcast_to_and_flatten(in_dims, spec)
        if dims is None:
            raise ValueError(f"{where}: in_dims is not compatible with the structure of "
                             f"`inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but "
                             f"inputs has structure {spec}.")
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(d, int):
                raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be "
                                 "either an integer dimension or None.")
            if not isinstance(x, _C.Tensor):
                raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                                 f"{type(x)}. We cannot vmap over non-Tensor arguments, please "
                                 "use None as the respective in_dim")
            if not -x.dim() <= d < x.dim():
                raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                                 f"Tensor of dimensionality {x.dim()} so expected in_dim to "
                                 f"satisfy -{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one "
                             "input must be batched")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        from ..random import get_rng_state, set_rng_state
        start = get_rng_state() if randomness != "different" else None
        results = []
        if sizes[0] == 0:
            # Nothing to map: one call on zeros of an element's shape gives the outputs' shapes
            # and dtypes; each result is then empty along its out_dim (torch's result).
            from .. import zeros
            elems = [x if d is None else
                     zeros(tuple(x.shape[:d % x.dim()]) + tuple(x.shape[d % x.dim() + 1:]),
                           dtype=x.dtype) for x, d in zip(leaves, dims)]
            out = func(*tree_unflatten(elems, spec), **kwargs)
            return _stack_outputs([out], out_dims, name, empty=True)
        for b in range(sizes[0]):
            if randomness == "same":  # every batch element draws the same numbers
                set_rng_state(start)
            sliced = [x if d is None else x.select(d, b) for x, d in zip(leaves, dims)]
            results.append(func(*tree_unflatten(sliced, spec), **kwargs))
            if randomness == "error" and not bool((get_rng_state() == start).all()):
                set_rng_state(start)  # the draw is refused, so it leaves no trace
                raise RuntimeError("vmap: called random operation while in randomness error "
                                   "mode. Please either use the 'same' or 'different' "
                                   "randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        return _stack_outputs(results, out_dims, name)
    return wrapper


def _stack_outputs(results, out_dims, name, empty=False):
    from .. import stack
    flat = [tree_flatten(r) for r in results]
    out_spec = flat[0][1]
    dims = _out_dims(out_dims, results[0], out_spec)
    if dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         "compatible with the structure of `outputs`. out_dims has structure "
                         f"{tree_flatten(out_dims)[1]} but outputs has structure {out_spec}.")
    stacked = []
    for i, d in enumerate(dims):
        column = [leaves[i] for leaves, _ in flat]
        if d is None:
            stacked.append(column[0])
            continue
        if not isinstance(column[0], _C.Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(column[0])}. Did you mean to set out_dims= to None for "
                             "output?")
        rank = column[0].dim() + 1
        if not -rank <= d < rank:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-rank}, {rank - 1}], but got {d})")
        out = stack(column, dim=d)
        stacked.append(out.narrow(d, 0, 0) if empty else out)
    return tree_unflatten(stacked, out_spec)


def _out_dims(out_dims, output, out_spec):
    """out_dims flattened against the outputs' structure, None if it is not a prefix of it; a
    single tensor output also takes a 1-tuple (torch's special case)."""
    if isinstance(output, _C.Tensor):
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        return [out_dims] if isinstance(out_dims, int) or out_dims is None else None
    return _broadcast_to_and_flatten(out_dims, out_spec)
