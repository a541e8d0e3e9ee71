"""ember.backends.opt_einsum: whether einsum plans contractions with the opt_einsum package.
ember does not use it: is_available() False, enabled False, strategy None (as torch without
the package installed)."""
enabled = False
strategy = None


def is_available():
    return False


def get_opt_einsum():
    return None
