"""`np`, a stand-in for the numpy module that imports NumPy on its first attribute access, for
modules that `import ember` loads but that need NumPy only when they work (reading a file,
gathering objects): Note [Lazy imports]."""


class _LazyNumPy:
    def __getattr__(self, name):
        import numpy
        return getattr(numpy, name)


np = _LazyNumPy()
