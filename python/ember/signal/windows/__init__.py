"""ember.signal.windows: torch.signal.windows' eleven window functions (scipy.signal.windows'
definitions), composed of linspace, cos, exp and i0."""
from .windows import (bartlett, blackman, cosine, exponential, gaussian,  # noqa: F401
                      general_cosine, general_hamming, hamming, hann, kaiser, nuttall)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
