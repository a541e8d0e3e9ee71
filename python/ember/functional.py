"""ember.functional: torch.functional's functions (einsum, meshgrid, split, unique, norm, ...),
the same objects as ember's top-level ones. Only the names ember implements are here."""
import ember as _ember

_TORCH_FUNCTIONAL = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes",
                     "broadcast_tensors", "cartesian_prod", "block_diag", "cdist", "chain_matmul",
                     "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split", "stft",
                     "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index"]
__all__ = [n for n in _TORCH_FUNCTIONAL if hasattr(_ember, n)]
globals().update({n: getattr(_ember, n) for n in __all__})
