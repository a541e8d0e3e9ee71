"""ember.backends.openmp: ember's thread pool is OpenMP (with OpenBLAS's OpenMP build)."""


def is_available():
    return True
