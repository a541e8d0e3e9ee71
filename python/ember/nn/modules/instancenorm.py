"""InstanceNorm1d/2d/3d: each (sample, channel) plane normalized by its own statistics;
running statistics only with track_running_stats=True. Built on _BatchNorm's parameters,
buffers and state_dict keys, as torch's _InstanceNorm on _NormBase."""
import warnings

from .. import functional as F
from .normalization import _BatchNorm
from .utils import _lazy_aliases

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    _no_batch_dim = None  # the rank of an unbatched input (C, *)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def _check_input_dim(self, input):
        d = self._no_batch_dim
        if input.dim() not in (d, d + 1):
            raise ValueError(f"expected {d}D or {d + 1}D input (got {input.dim()}D input)")

    def _get_no_batch_dim(self):
        return self._no_batch_dim

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # Checkpoints from before 0.4.0 held running stats even without tracking: torch
        # reports them as unexpected and drops them.
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                klass = self.__class__.__name__
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with "
                    "track_running_stats=False. If state_dict is a checkpoint saved before "
                    "0.4.0, this may be expected because {klass} does not track running stats "
                    "by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True "
                    "in {klass} to enable them. See the documentation of {klass} for "
                    "details.".format(names=" and ".join(f'"{k}"' for k in keys), klass=klass))
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. "
                          "You can silence this warning by not passing in num_features, which "
                          "is not used because affine=False", stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Over (N, C, L) or (C, L).

    >>> ember.nn.InstanceNorm1d(1)(ember.tensor([[[1.0, 3.0]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Over (N, C, H, W) or (C, H, W).

    >>> ember.nn.InstanceNorm2d(1)(ember.tensor([[[[1.0, 3.0]]]]))
    tensor([[[[-1.0000,  1.0000]]]])
    """
    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Over (N, C, D, H, W) or (C, D, H, W).

    >>> ember.nn.InstanceNorm3d(2)(ember.ones(1, 2, 2, 2, 2)).shape
    ember.Size([1, 2, 2, 2, 2])
    """
    _no_batch_dim = 4


# torch.nn.modules.instancenorm holds the lazy forms too; lazy.py imports this file, so they
# are looked up on first use.
__getattr__ = _lazy_aliases(__package__, {n: ".lazy" for n in (
    "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d")})
