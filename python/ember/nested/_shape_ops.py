"""Shape ops of nested tensors as torch 2.13 runs them on the strided layout: reshape / view,
unsqueeze / squeeze (views of the same buffer: the components stay in order and contiguous),
chunk of the last dim, cat, and the per-component embedding and scaled_dot_product_attention."""
from ._nested_tensor import (buffer, components, from_components, is_nested, nested_dim, numel_of,
                             wrap, wrap_dim)
from ._ops import _handles


@_handles("reshape", "view")
def _reshape(func, name, x, *shape):
    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    if not shape or any(not isinstance(s, int) for s in shape):
        raise NotImplementedError(f"{name}: a nested tensor takes a shape of ints only")
    n = len(x._nested_sizes)
    if shape[0] != n:
        raise RuntimeError(f"{name}: for now nested {name} cannot change or infer the implicit "
                           "batch dimension")
    sizes = []
    for s in x._nested_sizes:  # -1 keeps the component's own size in that dim, as torch's
        if any(d > len(s) for d, v in enumerate(shape[1:], 1) if v == -1):
            raise RuntimeError(f"{name}: shape '{list(shape)}' is invalid for a component of "
                               f"shape {list(s)}")
        new = tuple(s[d - 1] if v == -1 else v for d, v in enumerate(shape[1:], 1))
        if numel_of(new) != numel_of(s):
            raise RuntimeError(f"{name}: shape '{list(shape)}' is invalid for input of size "
                               f"{numel_of(s)}")
        sizes.append(new)
    return wrap(buffer(x), sizes)


@_handles("unsqueeze")
def _unsqueeze(func, name, x, dim):
    n = nested_dim(x) + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    d = dim % n
    if d == 0:
        raise RuntimeError("unsqueeze(): for nested tensors, unsqueezing dimension 0 is not "
                           "supported")
    return wrap(buffer(x), [s[:d - 1] + (1,) + s[d - 1:] for s in x._nested_sizes])


@_handles("squeeze")
def _squeeze(func, name, x, dim=None):
    if dim is None:
        raise RuntimeError("squeeze(): for nested tensors, squeeze without the dim argument is "
                           "not supported: use squeeze(dim)")
    d = wrap_dim(x, dim)
    if d == 0:
        raise RuntimeError("squeeze(): for nested tensors, squeezing dimension 0 is not "
                           "supported")
    sizes = x._nested_sizes
    if not sizes or any(s[d - 1] != 1 for s in sizes):
        return wrap(buffer(x), sizes)
    return wrap(buffer(x), [s[:d - 1] + s[d:] for s in sizes])


@_handles("chunk")
def _chunk(func, name, x, chunks, dim=0):
    d = wrap_dim(x, dim)
    if d != nested_dim(x) - 1:
        raise RuntimeError("chunk: for nested tensors, only the last dimension can be chunked")
    last = {s[-1] for s in x._nested_sizes}
    if len(last) != 1 or next(iter(last)) % chunks:
        raise RuntimeError(f"chunk: the nested tensor's last dimension ({sorted(last)}) must be "
                           f"regular and divisible by chunks ({chunks})")
    width = next(iter(last)) // chunks
    comps = components(x)
    return tuple(from_components([c.narrow(-1, i * width, width) for c in comps], dtype=x.dtype)
                 for i in range(chunks))


@_handles("cat", "concat", "concatenate")
def _cat(func, name, tensors, dim=0):
    import ember
    tensors = list(tensors)
    if not all(is_nested(t) for t in tensors):
        raise RuntimeError("cat(): expected each tensor in the given list to be nested")
    d = wrap_dim(tensors[0], dim)
    if d == 0:
        return from_components([c for t in tensors for c in components(t)],
                               dtype=tensors[0].dtype)
    parts = [components(t) for t in tensors]
    if len({len(p) for p in parts}) != 1:
        raise RuntimeError("cat(): the nested tensors hold different numbers of components")
    return from_components([ember.cat(list(cs), d - 1) for cs in zip(*parts)],
                           dtype=tensors[0].dtype)


@_handles("embedding")
def _embedding(func, name, input, weight, *args, **kwargs):
    if not is_nested(input) or is_nested(weight):
        raise RuntimeError("embedding: expected nested indices and a dense weight")
    if nested_dim(input) > 2:
        raise RuntimeError(f"embedding: nested indices must have components of one dim, got "
                           f"{nested_dim(input) - 1}")
    out = func(buffer(input), weight, *args, **kwargs)
    return wrap(out.reshape(-1), [s + (weight.shape[-1],) for s in input._nested_sizes])


@_handles("scaled_dot_product_attention")
def _sdpa(func, name, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
          scale=None, enable_gqa=False):
    if not all(is_nested(t) for t in (query, key, value)):
        raise RuntimeError("scaled_dot_product_attention: expected query, key and value all "
                           "nested")
    if attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: nested query / key are not supported "
                           "with an explicit attn_mask")
    if is_causal:
        raise RuntimeError("scaled_dot_product_attention: nested query / key are not supported "
                           "with is_causal=True")
    qs, ks, vs = components(query), components(key), components(value)
    if not len(qs) == len(ks) == len(vs):
        raise RuntimeError("scaled_dot_product_attention: query, key and value hold different "
                           "numbers of components")
    return from_components([func(q, k, v, dropout_p=dropout_p, scale=scale,
                                 enable_gqa=enable_gqa) for q, k, v in zip(qs, ks, vs)],
                           dtype=query.dtype)
