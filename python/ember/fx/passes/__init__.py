"""ember.fx.passes: graph passes (shape_prop), as torch.fx.passes."""
from . import shape_prop  # noqa: F401
