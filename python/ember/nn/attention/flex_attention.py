"""flex_attention: attention whose scores a Python function changes (score_mod) and whose mask
a Python function gives (mask_mod, through a BlockMask), as torch.nn.attention.flex_attention.

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx
    def alibi(score, b, h, q_idx, kv_idx):
        return score - (q_idx - kv_idx) * slopes[h]
    out = flex_attention(q, k, v, score_mod=alibi, block_mask=create_block_mask(causal, ...))

How it runs: the functions are called once, on index tensors broadcast over (batch, head,
query, key) (torch calls them per element under vmap; any function of elementwise ops and
indexing gives the same values both ways), and attention is then composed of ember's ops:
scores = q @ k^T * scale, score_mod, the mask as -inf, a softmax that gives fully masked rows
zeros (and an lse of -inf), times v. So it is differentiable (torch's CPU flex_attention has no
backward), and it materializes the (L, S) scores per head, as torch's unfused eager path does.
A BlockMask keeps its mask_mod and the dense mask; its block view (`to_dense`, `sparsity`,
BLOCK_SIZE 128) is derived from that.
"""
import math
from typing import NamedTuple

_DEFAULT_SPARSE_BLOCK_SIZE = 128  # a BlockMask's block, as torch's

__all__ = ["BlockMask", "flex_attention", "create_block_mask", "create_mask", "and_masks",
           "or_masks", "noop_mask", "AuxRequest", "AuxOutput"]


def _indices(B, H, L, S):
    from ... import arange
    return (arange(B).view(B, 1, 1, 1), arange(H).view(1, H, 1, 1),
            arange(L).view(1, 1, L, 1), arange(S).view(1, 1, 1, S))


def noop_mask(batch, head, token_q, token_kv):
    """The mask_mod that masks nothing.

    >>> fa = ember.nn.attention.flex_attention
    >>> bool(fa.noop_mask(*[ember.tensor(0)] * 4))
    True
    """
    return batch.new_ones((), dtype=_bool())


def _bool():
    from ... import bool as b
    return b


def and_masks(*mask_mods):
    """The mask_mod true where all of mask_mods are.

    >>> fa = ember.nn.attention.flex_attention
    >>> m = fa.and_masks(lambda b, h, q, k: q >= k, lambda b, h, q, k: q - k < 2)
    >>> fa.create_mask(m, 1, 1, 3, 3)[0, 0].int()
    tensor([[1, 0, 0],
            [1, 1, 0],
            [0, 1, 1]], dtype=ember.int32)
    """
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=_bool())
        for m in mask_mods:
            result = result & m(b, h, q_idx, kv_idx)
        return result
    return and_mask


def or_masks(*mask_mods):
    """The mask_mod true where any of mask_mods is.

    >>> fa = ember.nn.attention.flex_attention
    >>> m = fa.or_masks(lambda b, h, q, k: q == k, lambda b, h, q, k: k == 0)
    >>> fa.create_mask(m, 1, 1, 2, 2)[0, 0].int()
    tensor([[1, 0],
            [1, 1]], dtype=ember.int32)
    """
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=_bool())
        for m in mask_mods:
            result = result | m(b, h, q_idx, kv_idx)
        return result
    return or_mask


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """The (B, H, Q_LEN, KV_LEN) bool mask of a mask_mod (or, for a score_mod, where it leaves
    the scores finite); B or H None means 1.

    >>> ember.nn.attention.flex_attention.create_mask(lambda b, h, q, k: q >= k, None, None, 2, 2)
    tensor([[[[ True, False],
              [ True,  True]]]])
    """
    from ... import zeros
    B, H = B or 1, H or 1
    idx = _indices(B, H, Q_LEN, KV_LEN)
    if len(_params(mod_fn)) == 5:  # a score_mod: masked where it gives -inf
        out = mod_fn(zeros(B, H, Q_LEN, KV_LEN), *idx) != -math.inf
    else:
        out = mod_fn(*idx)
    return out.expand(B, H, Q_LEN, KV_LEN).to(_bool()).contiguous()


def _params(fn):
    import inspect
    return [p for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


class BlockMask:
    """Which (query, key) pairs attend: the mask_mod, the dense mask it gives, and its block
    view (blocks of BLOCK_SIZE x BLOCK_SIZE with any pair attending). Made by create_block_mask.

    >>> bm = ember.nn.attention.flex_attention.create_block_mask(
    ...     lambda b, h, q, k: q >= k, None, None, 256, 256)
    >>> bm.shape, bm.to_dense().tolist(), bm.sparsity()
    ((1, 1, 256, 256), [[[[1, 0], [1, 1]]]], 25.0)
    """

    def __init__(self, mask_mod, dense, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE):
        self.mask_mod = mask_mod
        self._dense = dense
        bs = BLOCK_SIZE if isinstance(BLOCK_SIZE, tuple) else (BLOCK_SIZE, BLOCK_SIZE)
        self.BLOCK_SIZE = tuple(bs)
        self.shape = tuple(dense.shape)
        self.seq_lengths = self.shape[2:]

    def to_dense(self):
        """The block view: (B, H, query blocks, key blocks), 1 where a pair in the block
        attends (int32)."""
        from ... import int32
        from ...nn.functional import pad
        B, H, L, S = self.shape
        bq, bk = self.BLOCK_SIZE
        nq, nk = math.ceil(L / bq), math.ceil(S / bk)
        m = pad(self._dense.to(int32), (0, nk * bk - S, 0, nq * bq - L))
        return m.view(B, H, nq, bq, nk, bk).amax(dim=(3, 5))

    def sparsity(self):
        """The percentage of blocks in which no pair attends."""
        blocks = self.to_dense()
        return 100.0 * (1.0 - float(blocks.sum()) / blocks.numel())

    def numel(self):
        return self.to_dense().numel()

    def to(self, device):
        return self

    def as_tuple(self):
        return (self.seq_lengths, self._dense, self.mask_mod)

    def __repr__(self):
        return (f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, "
                f"BLOCK_SIZE={self.BLOCK_SIZE})")


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None,
                      BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False, separate_full_blocks=True,
                      compute_dq_write_order=False, dq_kv_order=True):
    """A BlockMask of mask_mod for (B, H, Q_LEN, KV_LEN); B or H None broadcast over all.
    (See BlockMask's example.)

    >>> ember.nn.attention.flex_attention.create_block_mask.__name__
    'create_block_mask'
    """
    return BlockMask(mask_mod, create_mask(mask_mod, B, H, Q_LEN, KV_LEN), BLOCK_SIZE)


class AuxRequest(NamedTuple):
    """Which auxiliary outputs flex_attention returns (return_aux=).

    >>> ember.nn.attention.flex_attention.AuxRequest(lse=True)
    AuxRequest(lse=True, max_scores=False)
    """
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """flex_attention's auxiliary outputs (None where not requested).

    >>> ember.nn.attention.flex_attention.AuxOutput().lse is None
    True
    """
    lse: object = None
    max_scores: object = None


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *, return_aux=None):
    """Attention of query (B, Hq, L, E) over key (B, Hkv, S, E) and value (B, Hkv, S, Ev)
    with score_mod(score, b, h, q_idx, kv_idx) applied to the scaled scores and block_mask's
    pairs kept (see the module). Returns (B, Hq, L, Ev), with the log-sum-exp (B, Hq, L)
    when return_lse, or an AuxOutput with return_aux.

    >>> fa = ember.nn.attention.flex_attention
    >>> q = k = v = ember.ones(1, 1, 2, 4)
    >>> fa.flex_attention(q, k, v, score_mod=lambda s, b, h, qi, ki: s * 0).shape
    ember.Size([1, 1, 2, 4])
    """
    from ... import matmul, where
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise ValueError(f"flex_attention: expected 4-d query, key and value (B, H, L, E), got "
                         f"shapes {tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}")
    B, Hq, L, E = query.shape
    Hkv, S = key.shape[1], key.shape[2]
    if key.shape[0] != B or value.shape[0] != B or value.shape[1:3] != key.shape[1:3] \
            or key.shape[3] != E:
        raise ValueError(f"flex_attention: query {tuple(query.shape)}, key {tuple(key.shape)} "
                         f"and value {tuple(value.shape)} do not fit together")
    if Hq != Hkv:
        if not enable_gqa or Hq % Hkv:
            raise ValueError(f"flex_attention: expect query and key/value to have the same number "
                             f"of heads but got Hq={Hq} and Hkv={Hkv}; try enable_gqa=True for "
                             f"GQA (Hq a multiple of Hkv)")
        key = key.repeat_interleave(Hq // Hkv, dim=1)
        value = value.repeat_interleave(Hq // Hkv, dim=1)
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    scores = matmul(query, key.transpose(-2, -1)) * scale
    idx = _indices(B, Hq, L, S)
    if score_mod is not None:
        scores = score_mod(scores, *idx)
    if block_mask is not None:
        if tuple(block_mask.seq_lengths) != (L, S):
            raise ValueError(f"flex_attention: the block_mask was made for sequence lengths "
                             f"{tuple(block_mask.seq_lengths)}, the inputs have ({L}, {S})")
        scores = where(block_mask._dense, scores, -math.inf)
    dead = (scores.detach().amax(-1) == -math.inf).unsqueeze(-1)  # rows nothing attends to
    safe = where(dead, 0.0, scores)                  # (their zeros out, no NaN in the gradient)
    lse = safe.logsumexp(-1, keepdim=True)
    probs = where(dead, 0.0, (safe - lse).exp())
    lse = where(dead, -math.inf, lse).squeeze(-1)
    out = matmul(probs.to(value.dtype), value)
    if return_aux is not None:
        return out, AuxOutput(lse=lse if return_aux.lse else None,
                              max_scores=scores.amax(-1) if return_aux.max_scores else None)
    return (out, lse) if return_lse else out
