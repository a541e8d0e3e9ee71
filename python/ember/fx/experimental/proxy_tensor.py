"""torch.fx.experimental.proxy_tensor: tracing by proxy tensors (make_fx). ember's fx traces with
Proxy objects (symbolic_trace) and never runs a proxy-tensor mode, so get_proxy_mode is None."""

__all__ = ["get_proxy_mode"]


def get_proxy_mode():
    """The proxy-tensor tracing mode in effect: none, in ember.

    >>> ember.fx.experimental.proxy_tensor.get_proxy_mode() is None
    True
    """
    return None
