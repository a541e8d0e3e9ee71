"""ember.jit.annotations: imported by programs for TorchScript type comments; the typing names."""
from typing import Any, Dict, List, Optional, Tuple  # noqa: F401
