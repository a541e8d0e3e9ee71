"""Builds lltm.cpp ahead of time, as the tutorial's setup.py does:

    python -m ember run setup.py build_ext --inplace     # torch.* is ember under the runner
    python -c "import ember, lltm_cpp"                  # then import it after ember
"""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(name="lltm_cpp",
      ext_modules=[CppExtension("lltm_cpp", ["lltm.cpp"])],
      cmdclass={"build_ext": BuildExtension})
