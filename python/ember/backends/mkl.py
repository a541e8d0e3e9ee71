"""ember.backends.mkl: ember uses OpenBLAS, not MKL, so is_available() is False (torch's
wheel: True)."""
VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available():
    return False
