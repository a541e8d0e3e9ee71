"""ember as a drop-in for PyTorch: `import torch` in a program gives ember (docs/drop_in.md).

    python -m ember run train.py --epochs 1        # the script as written, on ember
    python -m ember run -m package.module ARGS
    import ember; ember.install_as_torch()         # the same, in-process, before `import torch`

A finder at the front of sys.meta_path maps module names: `torch` -> `ember`, `torch.a.b` ->
`ember.a.b`, `torchvision` -> `ember.vision`, `torchvision.a` -> `ember.vision.a`. A program gets
ember's own module objects (torch.nn *is* ember.nn), so classes, isinstance checks and pickles agree
whichever name a module was reached by. It sits before the path finders, so this holds even in a
Python where PyTorch is installed too.

Child processes: installing also sets EMBER_AS_TORCH=1 in the environment, and `ember_drop_in.pth`
(installed into site-packages beside the package) installs the finder at interpreter start when
that variable is set. So the ranks of the launcher, multiprocessing's spawned children and
DataLoader workers run the program on ember as well.

A name ember lacks fails saying so: `import torch.xyz` raises ModuleNotFoundError("ember does not
implement torch.xyz yet"), and a missing attribute of a mapped module raises AttributeError with
the same sentence.
"""
import importlib
import importlib.abc
import importlib.util
import os
import sys

ENV_VAR = "EMBER_AS_TORCH"

# torch's top-level module names and the ember module each maps to, longest prefix first.
_PREFIXES = (("torchvision", "ember.vision"), ("torch", "ember"))


def ember_name(fullname):
    """The ember module that stands for module `fullname` of PyTorch, or None if it is not one."""
    for torch_prefix, ember_prefix in _PREFIXES:
        if fullname == torch_prefix or fullname.startswith(torch_prefix + "."):
            return ember_prefix + fullname[len(torch_prefix):]
    return None


def _not_implemented(torch_name):
    return f"ember does not implement {torch_name} yet"


def _explain_missing_attributes(module, torch_name):
    """Makes `torch.<name>.missing` raise an AttributeError that says ember lacks it."""
    if getattr(module, "__ember_drop_in__", False):
        return
    inner = module.__dict__.get("__getattr__")

    def __getattr__(attr):
        if inner is not None:
            try:
                return inner(attr)
            except AttributeError:
                pass
        if attr == "torch" and torch_name == "torch":
            return module  # torch.torch is torch (its __init__ imports its submodules by name)
        if attr.startswith("__") and attr.endswith("__"):  # probes like __path__, __wrapped__
            raise AttributeError(f"module {torch_name!r} has no attribute {attr!r}")
        raise AttributeError(f"module {torch_name!r} has no attribute {attr!r}: "
                             f"{_not_implemented(f'{torch_name}.{attr}')}")

    module.__getattr__ = __getattr__
    module.__ember_drop_in__ = True


class TorchFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `torch...`/`torchvision...` modules and loads ember's module in their place."""

    def __init__(self):
        self._pending = {}  # torch module name -> (ember module, ember module's own __spec__)

    def find_spec(self, fullname, path=None, target=None):
        target_name = ember_name(fullname)
        if target_name is None:
            return None
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (target_name == e.name or target_name.startswith(e.name + ".")):
                raise ModuleNotFoundError(_not_implemented(fullname), name=fullname) from None
            raise  # ember's module exists but imports something missing: show that error
        self._pending[fullname] = (module, module.__spec__)
        return importlib.util.spec_from_loader(fullname, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec):
        return self._pending[spec.name][0]

    def exec_module(self, module):
        # The import system pointed module.__spec__ at the torch name; ember's module keeps its own
        # (pickle, multiprocessing and importlib.reload read it). Its __name__ becomes the torch
        # name, as in PyTorch: programs build dotted paths from it (pyro's patch_dependency
        # asserts "torch.distributions...".split(".")[0] == torch.__name__).
        name = module.__spec__.name
        _, own_spec = self._pending.pop(name)
        module.__spec__ = own_spec
        module.__name__ = name
        _explain_missing_attributes(module, name)

    def get_code(self, fullname):
        """The code of ember's module for `fullname`: runpy asks for it to run a module as
        __main__ (`python -m torch.distributed.run`, `ember run -m torch.utils.collect_env`),
        which then runs ember's module (`ember.distributed.run`)."""
        target = ember_name(fullname)
        spec = importlib.util.find_spec(target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "get_code"):
            raise ImportError(f"{_not_implemented(fullname)} as a program (no code for {target})",
                              name=fullname)
        return spec.loader.get_code(target)


def _spec_name(module):
    """The name a module was loaded as: ember's modules keep their own __spec__ (their __name__ is
    the torch name once the finder hands them out)."""
    spec = getattr(module, "__spec__", None)
    return getattr(spec, "name", None) or getattr(module, "__name__", "")


def installed():
    return any(isinstance(f, TorchFinder) for f in sys.meta_path)


def install_as_torch():
    """Makes `import torch` (and torchvision) give ember from now on, in this process and in the
    processes it starts. Raises RuntimeError if PyTorch itself was imported already.

    >>> ember.install_as_torch()  # doctest: +SKIP
    >>> import torch  # doctest: +SKIP
    >>> torch.__name__, torch.__spec__.name  # doctest: +SKIP
    ('torch', 'ember')
    """
    real = [n for n in ("torch", "torchvision") if n in sys.modules
            and not _spec_name(sys.modules[n]).startswith("ember")]
    if real:
        raise RuntimeError(f"install_as_torch: {real[0]} (PyTorch's own) is imported already in "
                           "this process; call install_as_torch() before anything imports it")
    os.environ[ENV_VAR] = "1"
    if not installed():
        sys.meta_path.insert(0, TorchFinder())


def install_from_environment():
    """Called by ember_drop_in.pth at interpreter start: installs the finder if EMBER_AS_TORCH=1."""
    if os.environ.get(ENV_VAR) == "1" and not installed():
        sys.meta_path.insert(0, TorchFinder())
