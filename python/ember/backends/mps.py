"""ember.backends.mps: Apple's Metal backend is neither built nor available."""
_NO_MPS = "Cannot execute {}() without MPS backend."


def is_available():
    return False


def is_built():
    return False


def is_macos_or_newer(major, minor):
    raise RuntimeError(_NO_MPS.format("isOnMacOSorNewer"))


def is_macos13_or_newer(minor=0):
    raise RuntimeError(_NO_MPS.format("isOnMacOSorNewer"))


def get_name():
    raise RuntimeError(_NO_MPS.format("getName"))


def get_core_count():
    raise RuntimeError(_NO_MPS.format("getCoreCount"))
