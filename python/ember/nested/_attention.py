"""nn.MultiheadAttention given a nested query: torch 2.13 runs it only on its fast path
(self-attention in eval, no gradient, batch_first, ...) and raises AssertionError elsewhere.
ember runs the plain path on each component (a batch of one) and nests the results; the
weights come back padded with zeros, as torch's. TransformerEncoderLayer / TransformerEncoder
then take nested input too: the rest of a layer (add, layer_norm, linear, activation,
dropout in eval) are ops ember.nested runs."""
from ._nested_tensor import components, from_components, is_nested


def _why_not(mha, query, key, value, key_padding_mask, attn_mask):
    """torch's reason for leaving its fast path ('' when it takes it)."""
    from .. import is_grad_enabled
    from ..amp.autocast_mode import is_autocast_enabled
    if query.dim() != 3:
        return f"input not batched; expected query.dim() of 3 but got {query.dim()}"
    if query is not key or key is not value:
        return "non-self attention was used (query, key, and value are not the same Tensor)"
    if mha.in_proj_weight is None:
        return "in_proj_weight was None"
    if query.dtype != mha.in_proj_weight.dtype:
        return (f"dtypes of query ({query.dtype}) and self.in_proj_weight "
                f"({mha.in_proj_weight.dtype}) don't match")
    if mha.training:
        return "training is enabled"
    if mha.num_heads % 2:
        return "self.num_heads is not even"
    if not mha.batch_first:
        return "batch_first was not True"
    if mha.bias_k is not None or mha.bias_v is not None:
        return f"self.bias_{'k' if mha.bias_k is not None else 'v'} was not None"
    if mha.add_zero_attn:
        return "add_zero_attn was enabled"
    if not mha._qkv_same_embed_dim:
        return "_qkv_same_embed_dim was not True"
    if key_padding_mask is not None or attn_mask is not None:
        return ("supplying both src_key_padding_mask and src_mask at the same time is not "
                "supported with NestedTensor input")
    if is_autocast_enabled():
        return "autocast is enabled"
    weights = (mha.in_proj_weight, mha.in_proj_bias, mha.out_proj.weight, mha.out_proj.bias)
    if is_grad_enabled() and (query.requires_grad or
                              any(w is not None and w.requires_grad for w in weights)):
        return ("grad is enabled and at least one of query or the input/output projection "
                "weights or biases requires_grad")
    return ""


def multihead_attention(mha, query, key, value, key_padding_mask, need_weights, attn_mask,
                        average_attn_weights):
    """MultiheadAttention.forward of a nested query: (nested output, padded weights or None)."""
    why = _why_not(mha, query, key, value, key_padding_mask, attn_mask)
    if why:
        raise AssertionError("MultiheadAttention does not support NestedTensor outside of its "
                             f"fast path. The fast path was not hit because {why}")
    outs, weights = [], []
    for c in components(query):
        c = c.unsqueeze(0)
        out, w = mha(c, c, c, need_weights=need_weights,
                     average_attn_weights=average_attn_weights)
        outs.append(out.squeeze(0))
        weights.append(w)
    out = from_components(outs, dtype=query.dtype)
    if not need_weights:
        return out, None
    return out, _pad_weights(weights, query)


def _pad_weights(weights, query):
    """Each component's (1, [H,] L, L) weights zero-padded to the longest L, stacked."""
    import ember
    from ..nn import functional as F
    if not weights:
        return ember.empty(0, dtype=query.dtype)
    longest = max(w.shape[-1] for w in weights)
    rows = []
    for w in weights:
        grow = longest - w.shape[-1]
        rows.append(F.pad(w, [0, grow, 0, grow]) if grow else w)
    return ember.cat(rows, 0)
