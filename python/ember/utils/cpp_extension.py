"""ember.utils.cpp_extension: C++ ops built from Python, as torch.utils.cpp_extension.

    ext = load_inline("ops", cpp_sources=SRC, functions=["lltm_forward"])   # compiled, cached
    ext = load("ops", ["ops.cpp"])                                          # from files
    setup(ext_modules=[CppExtension("ops", ["ops.cpp"])], cmdclass={"build_ext": BuildExtension})

Sources compile with the C++ compiler here ($CXX, else c++) against the headers installed with
this package (include_paths(): ember's own, and include/ember/compat, whose <torch/extension.h>
gives torch's C++ names over ember) and link libember (library_paths()), the library ember._C
uses, so one process has one allocator, thread pool and op registry. The module's functions reach
Python through nanobind, the binding library of ember._C, in its split mode: an extension compiles
nanobind's headers only and calls the backend module ember._nb_backend, which shares _C's state,
so ember.Tensor arguments arrive as ember::Tensor (or at::Tensor) and go back as ember.Tensor.

load() and load_inline() cache builds by content: the key hashes the sources, the flags, the
compiler's version, the Python version and the ember library in use, and the file's name carries
the state of the headers the sources included, so an unchanged extension loads without compiling,
in this process or the next, and editing a header rebuilds. The cache lives in $TORCH_EXTENSIONS_DIR,
else $EMBER_EXTENSIONS_DIR, else ~/.cache/ember_extensions/py<ver>_cpu, one folder per name.
docs/cpp.md: writing an extension, what torch-style source is accepted.
"""
import concurrent.futures
import hashlib
import importlib.util
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile

from .. import _C

__all__ = ["load", "load_inline", "CppExtension", "BuildExtension", "include_paths",
           "library_paths", "get_default_build_root", "get_cxx_compiler", "is_ninja_available",
           "verify_ninja_availability"]

# What a setup.py tests before choosing CUDAExtension: ember runs on the CPU, as torch does where
# no CUDA/ROCm/SYCL toolkit is found (these are then None / False in torch too).
CUDA_HOME = None
ROCM_HOME = None
SYCL_HOME = None
IS_HIP_EXTENSION = False
IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform.startswith("darwin")

# The installed package directory is a prefix: include/ (ember/, ember/compat/, nanobind/ in a
# wheel) and lib/ (libember). A development build (build/<dir>/python/ember) has the same
# include/ and lib/; its nanobind headers are those of the nanobind package ember was built with.
_PACKAGE_DIR = os.path.dirname(os.path.abspath(_C.__file__))
_BACKEND_MODULE = "ember._nb_backend"
# nanobind's split mode compiles extensions for the stable ABI, from Python 3.10 on.
_LIMITED_API = "0x030A0000"
_EXTENSION_CFLAGS = ["-fPIC", "-fvisibility=hidden", f"-DNB_BACKEND_MODULE={_BACKEND_MODULE}",
                     f"-DPy_LIMITED_API={_LIMITED_API}"]


def _nanobind_include():
    bundled = os.path.join(_PACKAGE_DIR, "include")
    if os.path.isfile(os.path.join(bundled, "nanobind", "nanobind.h")):
        return bundled
    try:
        import nanobind
    except ImportError:
        raise RuntimeError("cpp_extension: nanobind's headers are neither in this ember package "
                           f"({bundled}/nanobind) nor installed (pip install nanobind)") from None
    return nanobind.include_dir()


def include_paths(device_type="cpu", torch_include_dirs=True):
    """The include directories a C++ extension compiles with: ember's headers (<ember/ember.h>),
    include/ember/compat (<torch/extension.h>, <torch/torch.h>, <ATen/ATen.h>) and nanobind's."""
    _check_device_type(device_type)
    include = os.path.join(_PACKAGE_DIR, "include")
    paths = [include, os.path.join(include, "ember", "compat")]
    nanobind_include = _nanobind_include()
    return paths if nanobind_include == include else paths + [nanobind_include]


def library_paths(device_type="cpu", torch_include_dirs=True, cross_target_platform=None):
    """The directory holding libember, which every extension links."""
    _check_device_type(device_type)
    return [os.path.join(_PACKAGE_DIR, "lib")]


def _check_device_type(device_type):
    if device_type != "cpu":
        raise ValueError(f"cpp_extension: ember runs on the CPU only, got device_type={device_type!r}")


def _libember():
    """The file name of libember to link: its SONAME (libember.so.MAJOR.MINOR), the one file a
    wheel ships."""
    lib = library_paths()[0]
    names = sorted(f for f in os.listdir(lib) if f.startswith("libember.so.") and f.count(".") == 3)
    if not names:
        raise RuntimeError(f"cpp_extension: libember.so.<major>.<minor> not found in {lib}")
    return os.path.join(lib, names[0])


def _link_flags():
    lib = _libember()
    return [f"-L{os.path.dirname(lib)}", f"-l:{os.path.basename(lib)}",
            f"-Wl,-rpath,{os.path.dirname(lib)}"]


def get_cxx_compiler():
    """The C++ compiler extensions build with: $CXX, else c++."""
    return os.environ.get("CXX", "c++")


def get_default_build_root():
    """Where load() builds when neither $TORCH_EXTENSIONS_DIR nor $EMBER_EXTENSIONS_DIR is set."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.realpath(os.path.join(cache, "ember_extensions"))


def is_ninja_available():
    """Whether ninja runs here. ember builds extensions without it (one compiler call per source,
    in parallel), so nothing requires it."""
    try:
        subprocess.check_output(["ninja", "--version"], stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def verify_ninja_availability():
    """Raises RuntimeError if ninja is not available (as torch's)."""
    if not is_ninja_available():
        raise RuntimeError("Ninja is required to load C++ extensions")


def _build_root():
    root = os.environ.get("TORCH_EXTENSIONS_DIR") or os.environ.get("EMBER_EXTENSIONS_DIR")
    if root:
        return root
    return os.path.join(get_default_build_root(),
                        f"py{sys.version_info.major}{sys.version_info.minor}{getattr(sys, 'abiflags', '')}_cpu")


def _get_build_directory(name, verbose):
    directory = os.path.join(_build_root(), name)
    if verbose:
        print(f"Using {directory} as the build directory of extension '{name}'", file=sys.stderr)
    os.makedirs(directory, exist_ok=True)
    return directory


def _check_name(name):
    if not name.isidentifier():
        raise ValueError(f"cpp_extension: the extension name must be a Python identifier (it names "
                         f"the module and its PyInit_ function), got {name!r}")


def _refuse_gpu(what, sources):
    gpu = [s for s in sources if os.path.splitext(s)[1] in (".cu", ".cuh", ".sycl")]
    if what or gpu:
        raise OSError("cpp_extension: ember runs on the CPU only; CUDA and SYCL sources cannot "
                      f"be built{': ' + ', '.join(gpu) if gpu else ''}")


_compiler_ids = {}


def _compiler_id(cxx):
    """The compiler's version text (part of the cache key: a new compiler rebuilds)."""
    if cxx not in _compiler_ids:
        try:
            out = subprocess.run(shlex.split(cxx) + ["--version"], capture_output=True, text=True,
                                 check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise RuntimeError(f"cpp_extension: the C++ compiler {cxx!r} does not run ({e}); set "
                               "CXX to a C++20 compiler (g++ >= 12)") from None
        _compiler_ids[cxx] = out.splitlines()[0] if out else cxx
    return _compiler_ids[cxx]


def _fingerprint(path):
    st = os.stat(path)
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def _cache_key(name, sources, cflags, ldflags, include_dirs, kind):
    """A hash of everything the built file depends on, but the headers' contents: those come
    with the ember library, whose file (and _C's) stands for them."""
    h = hashlib.sha256()
    for part in (name, kind, sys.version, _compiler_id(get_cxx_compiler()), _fingerprint(_libember()),
                 _fingerprint(_C.__file__), *cflags, *ldflags, *include_dirs):
        h.update(part.encode() + b"\0")
    for src in sources:
        with open(src, "rb") as f:
            h.update(os.path.basename(src).encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()[:16]


def _run(cmd, verbose, what):
    if verbose:
        print(shlex.join(cmd), file=sys.stderr)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"Error building extension '{what}':\n{shlex.join(cmd)}\n"
                           f"{proc.stdout}{proc.stderr}")
    if verbose and (proc.stdout or proc.stderr):
        print(proc.stdout + proc.stderr, file=sys.stderr)


def _compile_and_link(name, sources, cflags, ldflags, workdir, output, verbose, standalone):
    """Compiles each source (in parallel, MAX_JOBS at most) and links `output`; returns the
    headers the sources included (the compiler's -MMD lists)."""
    cxx = shlex.split(get_cxx_compiler())
    objects = [os.path.join(workdir, f"{i}_{os.path.splitext(os.path.basename(s))[0]}.o")
               for i, s in enumerate(sources)]
    jobs = int(os.environ.get("MAX_JOBS") or os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(jobs, len(sources)))) as pool:
        for f in [pool.submit(_run, cxx + cflags + ["-MMD", "-MF", obj + ".d", "-c", src, "-o", obj],
                              verbose, name) for src, obj in zip(sources, objects)]:
            f.result()
    link = cxx + ([] if standalone else ["-shared"]) + objects + ["-o", output] + ldflags
    _run(link, verbose, name)
    headers = set()
    for obj in objects:
        with open(obj + ".d") as f:  # "obj.o: src.cpp a.h \\\n b.h"
            text = f.read().replace("\\\n", " ").replace("\\ ", "\0")
        headers.update(p.replace("\0", " ") for p in text.split(":", 1)[1].split())
    return sorted(headers - set(sources))


def _headers_state(headers):
    """A hash of the size and time of each header: a changed header changes it."""
    h = hashlib.sha256()
    for path in headers:
        h.update((_fingerprint(path) if os.path.exists(path) else f"{path}:missing").encode() + b"\0")
    return h.hexdigest()[:8]


def _write_atomically(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


_loaded = {}


def _import(name, path):
    """The module built at `path` (one module object per file, as an import would give)."""
    if path not in _loaded:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[path] = module
    return _loaded[path]


def _jit_compile(name, sources, extra_cflags, extra_ldflags, extra_include_paths, build_directory,
                 verbose, is_python_module, is_standalone, keep_intermediates):
    _check_name(name)
    sources = [os.path.abspath(s) for s in sources]
    missing = [s for s in sources if not os.path.isfile(s)]
    if missing:
        raise FileNotFoundError(f"cpp_extension: {name}: no such source file: {', '.join(missing)}")
    include_dirs = [os.path.abspath(p) for p in (extra_include_paths or [])] + include_paths() + [
        sysconfig.get_paths()["include"]]
    cflags = (["-std=c++20", "-O2"] + _EXTENSION_CFLAGS + [f"-DTORCH_EXTENSION_NAME={name}"] +
              [f"-I{p}" for p in include_dirs] + list(extra_cflags or []))
    ldflags = _link_flags() + list(extra_ldflags or [])
    build_directory = build_directory or _get_build_directory(name, verbose)
    os.makedirs(build_directory, exist_ok=True)
    kind = "exe" if is_standalone else "so"
    key = _cache_key(name, sources, cflags, ldflags, include_dirs, kind)
    # The file's name also carries the state of the headers the last build included (listed in
    # <name>.<key>.headers), so editing a header rebuilds, under a new name a process can load.
    manifest = os.path.join(build_directory, f"{name}.{key}.headers")
    output = None
    if os.path.exists(manifest):
        with open(manifest) as f:
            headers = f.read().splitlines()
        output = os.path.join(build_directory, f"{name}.{key}.{_headers_state(headers)}.{kind}")
    if output is None or not os.path.exists(output):
        # Built in a directory of its own and moved into place in one step, so that processes
        # building the same extension at once never see half a file.
        workdir = tempfile.mkdtemp(prefix=f"{name}.{key}.", dir=build_directory)
        try:
            tmp = os.path.join(workdir, f"{name}.{kind}")
            headers = _compile_and_link(name, sources, cflags, ldflags, workdir, tmp, verbose,
                                        is_standalone)
            output = os.path.join(build_directory, f"{name}.{key}.{_headers_state(headers)}.{kind}")
            os.replace(tmp, output)
            _write_atomically(manifest, "\n".join(headers))
        finally:
            if not keep_intermediates:
                for f in os.listdir(workdir):
                    os.remove(os.path.join(workdir, f))
                os.rmdir(workdir)
    elif verbose:
        print(f"cpp_extension: {name} is up to date ({output})", file=sys.stderr)
    if is_standalone:
        return output
    if not is_python_module:
        import ctypes
        ctypes.CDLL(output, mode=ctypes.RTLD_GLOBAL)  # runs its static initializers
        return output
    return _import(name, output)


def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None,
         extra_ldflags=None, extra_include_paths=None, build_directory=None, verbose=False,
         with_cuda=None, with_sycl=None, is_python_module=True, is_standalone=False,
         keep_intermediates=True):
    """Compiles C++ `sources` (a path or a list) into the extension module `name` and imports
    it (cached by content: see the module docstring). is_python_module=False loads the library
    into the process (RTLD_GLOBAL) and returns its path; is_standalone=True links an executable
    and returns its path. CUDA/SYCL sources raise OSError: ember runs on the CPU only."""
    sources = [sources] if isinstance(sources, str) else list(sources)
    _refuse_gpu(with_cuda or with_sycl or extra_cuda_cflags or extra_sycl_cflags, sources)
    return _jit_compile(name, sources, extra_cflags, extra_ldflags, extra_include_paths,
                        build_directory, verbose, is_python_module, is_standalone, keep_intermediates)


def _module_definition(functions):
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(functions, (list, tuple)):
        functions = {f: f for f in functions}
    elif not isinstance(functions, dict):
        raise ValueError(f"load_inline: functions must be a list, a dict or a str, got "
                         f"{type(functions).__name__}")
    lines = ["PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {"]
    for fn, doc in functions.items():
        doc = doc.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        lines.append(f'  m.def("{fn}", {fn}, "{doc}");')
    return "\n".join(lines + ["}"])


def load_inline(name, cpp_sources, cuda_sources=None, sycl_sources=None, functions=None,
                extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None,
                extra_ldflags=None, extra_include_paths=None, build_directory=None, verbose=False,
                with_cuda=None, with_sycl=None, is_python_module=True,
                with_pytorch_error_handling=True, keep_intermediates=True, use_pch=False,
                no_implicit_headers=False):
    """load() from source text: `cpp_sources` (a str or a list of them) is written to one file,
    after `#include <torch/extension.h>` unless no_implicit_headers; `functions` (a name, a list
    of names or {name: docstring}) become the module's functions through a generated
    PYBIND11_MODULE. C++ exceptions always reach Python as ember's errors, so
    with_pytorch_error_handling changes nothing; use_pch is accepted and ignored."""
    _check_name(name)
    _refuse_gpu(cuda_sources or sycl_sources or with_cuda or with_sycl, [])
    cpp_sources = [cpp_sources] if isinstance(cpp_sources, str) else list(cpp_sources)
    if not no_implicit_headers:
        cpp_sources.insert(0, "#include <torch/extension.h>")
    if functions is not None:
        cpp_sources.append(_module_definition(functions))
    text = "\n".join(cpp_sources) + "\n"
    build_directory = build_directory or _get_build_directory(name, verbose)
    os.makedirs(build_directory, exist_ok=True)
    # Named by its content: two processes writing different sources never share a file.
    source = os.path.join(build_directory,
                          f"main.{hashlib.sha256(text.encode()).hexdigest()[:16]}.cpp")
    if not os.path.exists(source):
        _write_atomically(source, text)
    return _jit_compile(name, [source], extra_cflags, extra_ldflags, extra_include_paths,
                        build_directory, verbose, is_python_module, False, keep_intermediates)


def CppExtension(name, sources, *args, **kwargs):
    """A setuptools.Extension for C++ against ember: its include and library paths, libember,
    language c++ (build it with BuildExtension)."""
    from setuptools import Extension

    kwargs["include_dirs"] = list(kwargs.get("include_dirs", [])) + include_paths()
    kwargs["library_dirs"] = list(kwargs.get("library_dirs", [])) + library_paths()
    kwargs["extra_link_args"] = list(kwargs.get("extra_link_args", [])) + _link_flags()
    kwargs["language"] = "c++"
    return Extension(name, sources, *args, **kwargs)


def _build_extension_class():
    from setuptools.command.build_ext import build_ext

    class BuildExtension(build_ext):
        """setuptools' build_ext with what an ember extension needs: C++20, TORCH_EXTENSION_NAME
        (the last part of the extension's name), nanobind's split mode and the stable ABI it
        needs. extra_compile_args may be a dict as torch's ({"cxx": [...]}); no_python_abi_suffix
        =True names the file <name>.so. use_ninja is accepted: setuptools' compiler builds
        either way."""

        @classmethod
        def with_options(cls, **options):
            """A subclass whose constructor adds `options` to its keyword arguments."""
            class BuildExtensionWithOptions(cls):
                def __init__(self, *args, **kwargs):
                    kwargs.update(options)
                    super().__init__(*args, **kwargs)

            return BuildExtensionWithOptions

        def __init__(self, *args, **kwargs):
            self.no_python_abi_suffix = kwargs.pop("no_python_abi_suffix", False)
            self.use_ninja = kwargs.pop("use_ninja", True)
            super().__init__(*args, **kwargs)

        def build_extensions(self):
            for ext in self.extensions:
                _refuse_gpu(None, ext.sources)
                args = ext.extra_compile_args
                if isinstance(args, dict):
                    gpu = sorted(k for k in args if k != "cxx" and args[k])
                    if gpu:
                        raise OSError("BuildExtension: ember runs on the CPU only; extra_compile_args "
                                      f"for {', '.join(gpu)} cannot be used")
                    args = args.get("cxx", [])
                std = [] if any(a.startswith("-std=") for a in args) else ["-std=c++20"]
                ext.extra_compile_args = (std + _EXTENSION_CFLAGS +
                                          [f"-DTORCH_EXTENSION_NAME={ext.name.split('.')[-1]}"] + list(args))
            super().build_extensions()

        def get_ext_filename(self, ext_name):
            filename = super().get_ext_filename(ext_name)
            if self.no_python_abi_suffix:
                parts = filename.split(".")
                if len(parts) > 2:  # name.cpython-311-x86_64-linux-gnu.so -> name.so
                    filename = ".".join(parts[:-2] + parts[-1:])
            return filename

    BuildExtension.__module__ = __name__
    return BuildExtension


def __getattr__(name):
    # BuildExtension subclasses setuptools' build_ext: made on first use, so that load() and
    # load_inline() do not import setuptools.
    if name == "BuildExtension":
        cls = _build_extension_class()
        globals()["BuildExtension"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
