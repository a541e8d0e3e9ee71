"""torch.fx.experimental: the parts programs import: proxy_tensor.get_proxy_mode and
symbolic_shapes' guards, which ember answers for its concrete (never symbolic) sizes."""
from . import proxy_tensor, symbolic_shapes  # noqa: F401
