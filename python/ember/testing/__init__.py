"""ember.testing: assert_close, make_tensor and the deprecated assert_allclose, as torch.testing."""
from ._comparison import assert_close, assert_allclose
from ._creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
