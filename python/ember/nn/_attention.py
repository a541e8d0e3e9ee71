"""Attention and the normalizations without a C++ op, as composites of ember ops (so they get
autograd and double backward for free): scaled_dot_product_attention,
multi_head_attention_forward, group_norm, rms_norm. Re-exported by ember.nn.functional."""
import math
import numbers
import warnings

from .. import _C
from .._creation import arange, zeros_like
from .._dtype import bool as _bool, float32, float64
from ._normalization import _verify_batch_size

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "group_norm",
           "rms_norm"]

_NEG_INF = float("-inf")
_EPS = {float32: 1.1920928955078125e-07, float64: 2.220446049250313e-16}  # torch.finfo(dt).eps


def _shape(t):
    return tuple(t.shape)


# ---- scaled dot-product attention ------------------------------------------------------------
def _causal_keep(L, S):
    """(L, S) bool, True where key j may be seen by query i: j <= i (upper-left aligned, as
    torch's is_causal; tril without tril)."""
    return arange(L).unsqueeze(-1) >= arange(S)


def _sdpa_check(query, key, value, attn_mask, enable_gqa):
    name = "scaled_dot_product_attention"
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"{name}: expected query, key and value to all be at least 2 "
                           f"dimensional, but got query.dim: {query.dim()} key.dim: {key.dim()} "
                           f"and value.dim: {value.dim()} instead.")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"{name}: expected query, key and value to have the same dtype, but "
                           f"got {query.dtype}, {key.dtype} and {value.dtype}.")
    if not query.is_floating_point():
        raise RuntimeError(f"{name}: expected floating-point query, got {query.dtype}")
    if key.size(-1) != query.size(-1):
        raise RuntimeError(f"{name}: query {_shape(query)} and key {_shape(key)} must have the "
                           f"same embedding size ({query.size(-1)} != {key.size(-1)})")
    if key.size(-2) != value.size(-2):
        raise RuntimeError(f"{name}: key {_shape(key)} and value {_shape(value)} must have the "
                           f"same sequence length ({key.size(-2)} != {value.size(-2)})")
    if attn_mask is not None and attn_mask.dtype != _bool and attn_mask.dtype != query.dtype:
        raise RuntimeError(f"{name}: expected attn_mask dtype to be bool or to match query "
                           f"dtype, but got attn_mask.dtype: {attn_mask.dtype} and query.dtype: "
                           f"{query.dtype} instead.")
    if enable_gqa and query.dim() >= 3:
        hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
        if hk != hv or hq % hk != 0:
            raise RuntimeError(f"{name}: number of heads in key and value must divide the number "
                               f"of heads in query (query {hq}, key {hk}, value {hv})")


def _repeat_heads(t, n):
    """repeat_interleave(n, dim=-3): (..., H, S, E) -> (..., H*n, S, E)."""
    if n == 1:
        return t
    s = _shape(t)
    return t.unsqueeze(-3).expand(*s[:-2], n, *s[-2:]).reshape(*s[:-3], s[-3] * n, *s[-2:])


def _safe_softmax(scores):
    """softmax over the last dim, but a row where every score is -inf (all keys masked) gives
    zeros instead of NaN, as torch's SDPA does. The row is set to 0 before the softmax too, so
    the backward stays finite."""
    dead = (scores == _NEG_INF).all(-1, keepdim=True)
    attn = _C.softmax(scores.masked_fill(dead, 0.0), -1, None)
    return attn.masked_fill(dead, 0.0)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + bias) @ value, scale = 1/sqrt(E) by default.
    bias: a bool attn_mask keeps where True (-inf elsewhere); a float mask is added; is_causal
    keeps key j <= query i (upper-left aligned when L != S); not both, as torch's docs say.
    Shapes (N, ..., Hq, L, E), (N, ..., H, S, E), (N, ..., H, S, Ev) -> (N, ..., Hq, L, Ev).

    >>> q = k = ember.zeros(1, 1, 2, 2)
    >>> v = ember.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> ember.nn.functional.scaled_dot_product_attention(q, k, v)
    tensor([[[[2., 3.],
              [2., 3.]]]])
    >>> ember.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    tensor([[[[1., 2.],
              [2., 3.]]]])
    """
    _sdpa_check(query, key, value, attn_mask, enable_gqa)
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: explicit attn_mask should not be set "
                           "when is_causal=True")
    L, S = query.size(-2), key.size(-2)
    scale = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    if enable_gqa and query.dim() >= 3:
        key = _repeat_heads(key, query.size(-3) // key.size(-3))
        value = _repeat_heads(value, query.size(-3) // value.size(-3))
    if (attn_mask is None and dropout_p == 0.0 and S > 0 and query.dim() == key.dim() == value.dim()
            and _shape(query)[:-2] == _shape(key)[:-2] == _shape(value)[:-2]):
        # One fused kernel each way (src/ops/attention.cpp): no (L, S) score tensor.
        return _C.scaled_dot_product_attention_fused(query, key, value, is_causal, scale)
    scores = _C.matmul(query, key.transpose(-2, -1)) * scale
    # Only an explicit mask can mask a whole row (then torch's SDPA gives zeros, not NaN): a
    # causal mask always keeps key 0, so causal attention alone takes the plain softmax.
    masked = attn_mask is not None
    if attn_mask is not None:
        try:
            if attn_mask.dtype == _bool:
                scores = _C.where(attn_mask, scores, _NEG_INF)
            else:
                scores = scores + attn_mask
        except ValueError as e:  # ember's broadcasting error; torch raises RuntimeError
            raise RuntimeError(f"scaled_dot_product_attention: attn_mask {_shape(attn_mask)} does "
                               f"not broadcast to the attention weights (..., {L}, {S}): {e}"
                               ) from None
    if is_causal:
        scores = scores.masked_fill(_causal_keep(L, S).logical_not(), _NEG_INF)
    attn = _safe_softmax(scores) if masked else _C.softmax(scores, -1, None)
    if dropout_p > 0.0:
        attn = _C.dropout(attn, dropout_p, True)
    return _C.matmul(attn, value)


# ---- multi-head attention --------------------------------------------------------------------
def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, _C.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True = masked out) becomes a float mask of target_type with -inf where True;
    a float mask passes through. Other dtypes are refused, as in torch."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill(mask, _NEG_INF)
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (3-D) input, False for unbatched (2-D); torch's AssertionErrors."""
    qd = query.dim()
    if qd not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{qd}-D query tensor")
    kind = "For batched (3-D) `query`" if qd == 3 else "For unbatched (2-D) `query`"
    if key.dim() != qd or value.dim() != qd:
        raise AssertionError(f"{kind}, expected `key` and `value` to be {qd}-D but found "
                             f"{key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != qd - 1:
        raise AssertionError(f"{kind}, expected `key_padding_mask` to be `None` or {qd - 1}-D "
                             f"but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"{kind}, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if qd == 2 and attn_mask.dim() == 3 and _shape(attn_mask) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{_shape(attn_mask)}")
    return qd == 3


def _in_projection(query, key, value, embed_dim, in_proj_weight, in_proj_bias,
                   use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight):
    """q, k, v = the three input projections; packed weights are rows [q; k; v] of (3E, E)."""
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    else:
        for n, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {n}_proj_weight is "
                                     "None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
        for n, w, x in (("query", w_q, query), ("key", w_k, key), ("value", w_v, value)):
            if _shape(w) != (embed_dim, x.size(-1)):
                raise AssertionError(f"expecting {n} weights shape of {(embed_dim, x.size(-1))}, "
                                     f"but got {_shape(w)}")
    if not use_separate_proj_weight and query is key and key is value:
        return _C.linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)  # one GEMM
    return (_C.linear(query, w_q, b_q), _C.linear(key, w_k, b_k), _C.linear(value, w_v, b_v))


def _one_more_key(attn_mask, key_padding_mask):
    """The (float) masks widened by one attended key at the end (bias_k, add_zero_attn)."""
    from .functional import pad
    return (None if attn_mask is None else pad(attn_mask, (0, 1)),
            None if key_padding_mask is None else pad(key_padding_mask, (0, 1)))


def _heads(x, static, name, batch_heads, head_dim):
    """(S, N, E) -> (N*H, S, head_dim), or the given static_k / static_v of that shape."""
    if static is None:
        return x.reshape(x.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.size(0) != batch_heads:
        raise AssertionError(f"expecting static_{name[0]}.size(0) of {batch_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting static_{name[0]}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static


def _mha_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len):
    """attn_mask as (1 or N*H, L, S), checked against torch's expected shapes."""
    if attn_mask.dim() == 2:
        if _shape(attn_mask) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {_shape(attn_mask)}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if _shape(attn_mask) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {_shape(attn_mask)}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch's F.multi_head_attention_forward on (L, N, E) / (L, E) inputs (sequence first).
    Masks: True in a bool key_padding_mask / attn_mask means "do not attend".

    >>> E, F = 4, ember.nn.functional
    >>> q = ember.ones(3, 1, E)
    >>> out, weights = F.multi_head_attention_forward(
    ...     q, q, q, E, 2, ember.ones(3 * E, E), None, None, None, False, 0.0,
    ...     ember.eye(E), None)
    >>> out.shape, weights.shape
    (ember.Size([3, 1, 4]), ember.Size([1, 3, 3]))
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # run as a batch of one, squeeze at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = _shape(query)
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint alone drives SDPA, as in torch
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if _shape(key)[:2] != _shape(value)[:2]:
            raise AssertionError(f"key's sequence and batch dims {_shape(key)[:2]} do not match "
                                 f"value's {_shape(value)[:2]}")
    elif _shape(key) != _shape(value):
        raise AssertionError(f"key shape {_shape(key)} does not match value shape {_shape(value)}")

    q, k, v = _in_projection(query, key, value, embed_dim, in_proj_weight, in_proj_bias,
                             use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight)
    if attn_mask is not None:
        attn_mask = _mha_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len)
    if bias_k is not None and bias_v is not None:  # one more key/value: the learned bias
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key.")
        k = _C.cat([k, bias_k.repeat(1, bsz, 1)], 0)
        v = _C.cat([v, bias_v.repeat(1, bsz, 1)], 0)
        attn_mask, key_padding_mask = _one_more_key(attn_mask, key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    # (L, N, E) -> (N*H, L, head_dim): batch and heads become one batch dim
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, "key", bsz * num_heads, head_dim)
    v = _heads(v, static_v, "value", bsz * num_heads, head_dim)
    if add_zero_attn:  # one more key/value of zeros
        zeros = _C.zeros([bsz * num_heads, 1, head_dim], k.dtype)
        k, v = _C.cat([k, zeros], 1), _C.cat([v, zeros], 1)
        attn_mask, key_padding_mask = _one_more_key(attn_mask, key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:  # (N, S) -> (N*H, 1, S), merged into attn_mask
        if _shape(key_padding_mask) != (bsz, src_len):
            raise AssertionError(f"Expected key_padded_mask.shape to be {(bsz, src_len)}, but got "
                                 f"{_shape(key_padding_mask)}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                            .expand(bsz, num_heads, 1, src_len)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:  # plain softmax, as torch: an all-masked row gives NaN here
        scores = _C.bmm(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = _C.softmax(scores, -1, None)
        if dropout_p > 0.0:
            weights = _C.dropout(weights, dropout_p, True)
        out = _C.bmm(weights, v)
    else:
        if attn_mask is not None:  # (1 or N*H, L, S) -> broadcastable to (N, H, L, S)
            attn_mask = (attn_mask.unsqueeze(0) if attn_mask.size(0) == 1
                         else attn_mask.view(bsz, num_heads, -1, src_len))
        out = scaled_dot_product_attention(
            q.view(bsz, num_heads, tgt_len, head_dim), k.view(bsz, num_heads, src_len, head_dim),
            v.view(bsz, num_heads, src_len, head_dim), attn_mask, dropout_p, is_causal)
        out = out.view(bsz * num_heads, tgt_len, head_dim)
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = _C.linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not is_batched:
        weights = weights.squeeze(0)
    return out, weights


# ---- normalizations --------------------------------------------------------------------------
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """(N, C, *) split into num_groups groups of C/G channels; each (sample, group) normalized
    by its own mean and biased variance, then scaled per channel: y = x_hat * weight + bias.

    >>> ember.nn.functional.group_norm(ember.tensor([[1.0, 3.0, 5.0, 7.0]]), 2)
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    if input.dim() < 2:
        raise RuntimeError("group_norm: expected at least 2 dimensions for input tensor but "
                           f"received {input.dim()}")
    shape = _shape(input)
    n, c = shape[0], shape[1]
    if num_groups <= 0 or c % num_groups != 0:
        raise RuntimeError("group_norm: expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(shape)} and num_groups="
                           f"{num_groups}")
    _verify_batch_size([n * c // num_groups, num_groups] + list(shape[2:]))
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.dim() != 1 or p.numel() != c):
            raise RuntimeError(f"group_norm: expected {name} to be a vector of size equal to the "
                               f"number of channels in input ({c}), but got {name} of shape "
                               f"{list(_shape(p))}")
    x = input.reshape(n, num_groups, -1)
    mean = x.mean(-1, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(-1, keepdim=True)
    y = (xc * (var + eps).rsqrt()).reshape(*shape)
    per_channel = (c,) + (1,) * (len(shape) - 2)  # broadcast over the spatial dims
    if weight is not None:
        y = y * weight.reshape(*per_channel)
    if bias is not None:
        y = y + bias.reshape(*per_channel)
    return y


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """y = x / sqrt(mean(x^2 over the trailing normalized_shape dims) + eps) * weight;
    eps=None means torch.finfo(input.dtype).eps.

    >>> ember.nn.functional.rms_norm(ember.tensor([[3.0, 4.0]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    nd = len(normalized_shape)
    shape = _shape(input)
    if nd == 0 or input.dim() < nd or shape[input.dim() - nd:] != normalized_shape:
        raise RuntimeError(f"rms_norm: given normalized_shape={list(normalized_shape)}, expected "
                           f"input with shape [*, {', '.join(map(str, normalized_shape))}], but "
                           f"got input of size {list(shape)}")
    if weight is not None and _shape(weight) != normalized_shape:
        raise RuntimeError(f"rms_norm: expected weight of shape {list(normalized_shape)}, but got "
                           f"{list(_shape(weight))}")
    if eps is None:
        eps = _EPS.get(input.dtype, _EPS[float32])
    dims = tuple(range(-nd, 0))
    y = input * ((input * input).mean(dim=dims, keepdim=True) + eps).rsqrt()
    return y * weight if weight is not None else y
