"""The restricted unpickler behind `ember.load(weights_only=True)`, and its allowlist.

It follows torch.serialization's weights-only rules (torch/_weights_only_unpickler.py):
only a fixed set of pickle opcodes; a GLOBAL resolves only to torch's default safe globals
(tensor rebuild functions, storage types, dtypes, OrderedDict, Parameter, ...) or to what
the user allowlisted with add_safe_globals / safe_globals; REDUCE and NEWOBJ call only
allowlisted objects; BUILD sets state only on instances of allowlisted classes. Nothing is
imported and no other code runs. Each name goes through class_paths, so a torch name and
ember's object are the same global.
"""
import _compat_pickle
import pickle
from collections import Counter, OrderedDict
from pickle import UnpicklingError

from .class_paths import TorchGlobal, to_ember, torch_default_safe_names

__all__ = ["add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "WeightsUnpickler", "FullUnpickler", "UNSAFE_MESSAGE"]

_user_globals = set()  # objects, or (object, "module.name") pairs
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_MAX_MARKS = 1000          # MARK nesting depth
_MAX_STACK = 10_000_000    # values on the unpickling stack

UNSAFE_MESSAGE = (
    "Re-running `ember.load` with `weights_only` set to `False` will likely succeed, but it "
    "can result in arbitrary code execution. Do it only if you got the file from a trusted source.")


def _check_entry(f):
    if isinstance(f, tuple):
        if len(f) != 2:
            raise ValueError("Expected tuple of length 2 (global, str of callable full path), but "
                             f"got tuple of length: {len(f)}")
        if type(f[1]) is not str:
            raise TypeError("Expected second item in tuple to be str of callable full path, but "
                            f"got: {type(f[1])}")


def add_safe_globals(safe_globals):
    """Marks these globals (classes, functions, or (object, "module.name") pairs) as safe
    for weights_only loads, as torch.serialization.add_safe_globals."""
    global _user_globals
    if isinstance(safe_globals, (str, bytes)):
        raise TypeError("add_safe_globals: expected a list of classes, functions or (object, "
                        f"'module.name') pairs, got {type(safe_globals).__name__}")
    for f in safe_globals:
        _check_entry(f)
    _user_globals = _user_globals | set(safe_globals)


def get_safe_globals():
    """The globals add_safe_globals marked, as a list."""
    return list(_user_globals)


def clear_safe_globals():
    """Forgets every global add_safe_globals marked."""
    global _user_globals
    _user_globals = set()


class safe_globals:
    """Context manager: these globals are safe inside the `with` block only."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        global _user_globals
        _user_globals = _user_globals - set(self.safe_globals)


def _resolve(obj):
    return obj.target if isinstance(obj, TorchGlobal) and obj.target is not None else obj


def _user_by_name():
    out = {}
    for f in _user_globals:
        if isinstance(f, tuple):
            out[f[1]] = f[0]
        else:
            out[f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', '')}"] = f
    return out


def _display(full):
    return full[len("builtins."):] if full.startswith("builtins.") else full


_OPCODES = (  # torch's weights-only unpickler's set
    pickle.GLOBAL, pickle.NEWOBJ, pickle.REDUCE, pickle.BUILD, pickle.APPEND, pickle.APPENDS,
    pickle.SETITEM, pickle.SETITEMS, pickle.MARK, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2,
    pickle.TUPLE3, pickle.NONE, pickle.NEWFALSE, pickle.NEWTRUE, pickle.EMPTY_TUPLE,
    pickle.EMPTY_LIST, pickle.EMPTY_DICT, pickle.EMPTY_SET, pickle.BININT, pickle.BININT1,
    pickle.BININT2, pickle.BINFLOAT, pickle.BINUNICODE, pickle.SHORT_BINSTRING,
    pickle.BINPERSID, pickle.BINGET, pickle.LONG_BINGET, pickle.BINPUT, pickle.LONG_BINPUT,
    pickle.LONG1, pickle.PROTO, pickle.STOP)


def _check_mapping(opcode, target):
    if type(target) not in (dict, OrderedDict, Counter):
        raise UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                              f"collections.Counter, but got {type(target)}")


# Errors that say what is wrong as they are (torch raises the same types for these files);
# anything else raised while unpickling becomes an UnpicklingError naming the opcode.
_PASS_THROUGH = (pickle._Stop, UnpicklingError, RuntimeError, TypeError, ValueError, EOFError)


class WeightsUnpickler(pickle._Unpickler):
    """pickle's Python unpickler with torch's weights-only restrictions (module docstring)."""
    dispatch = {op[0]: pickle._Unpickler.dispatch[op[0]] for op in _OPCODES}

    def __init__(self, file):
        super().__init__(file, encoding="utf-8")  # (SHORT_BINSTRING decoded as torch does)
        user = _user_by_name()
        defaults = {n: _resolve(to_ember(n)) for n in torch_default_safe_names()}
        self._names = {**defaults, **{n: _resolve(o) for n, o in user.items()}}
        self._user_objects = {id(_resolve(o)): o for o in user.values()}
        self._allowed = {id(o) for o in self._names.values()}

    def find_class(self, module, name):
        if self.proto < 3:  # protocol 2 writes Python 2's names (__builtin__.set): map them back
            module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        full = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} "
                                  "is blocked.")
        obj = self._names.get(full)
        if obj is None:  # a torch name whose ember object the user allowlisted
            mapped = to_ember(full)
            if mapped is not None and id(_resolve(mapped)) in self._user_objects:
                obj = _resolve(mapped)
        if obj is None:
            shown = _display(full)
            raise UnpicklingError(
                f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please "
                f"use `ember.serialization.add_safe_globals([{shown}])` or the "
                f"`ember.serialization.safe_globals([{shown}])` context manager to allowlist this "
                "global if you trust this class/function.")
        return obj

    def _allowed_object(self, obj):
        return id(obj) in self._allowed or id(obj) in self._user_objects

    def load(self):
        self._unframer = pickle._Unframer(self._file_read, self._file_readline)
        self.read, self.readinto = self._unframer.read, self._unframer.readinto
        self.readline = self._unframer.readline
        self.metastack, self.stack = [], []
        self.append = self.stack.append
        self.proto = 0
        read, dispatch = self.read, self.dispatch
        try:
            while True:
                key = read(1)
                if not key:
                    raise EOFError("load: data.pkl ends before its STOP opcode (truncated)")
                op = dispatch.get(key[0])
                if op is None:
                    raise UnpicklingError(f"Unsupported operand {key[0]}")
                try:
                    op(self)
                except _PASS_THROUGH:
                    raise
                except Exception as e:  # an allowlisted call given odd arguments, a bad memo index, ...
                    raise UnpicklingError(f"opcode {key!r} failed: {type(e).__name__}: "
                                          f"{str(e)[:200]}") from None
                if len(self.metastack) > _MAX_MARKS or len(self.stack) > _MAX_STACK:
                    raise UnpicklingError(f"the pickle nests deeper than {_MAX_MARKS} marks or "
                                          f"holds more than {_MAX_STACK} values at once")
        except pickle._Stop as stop:
            return stop.value

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if not self._allowed_object(cls):
            raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                                  f"allowlisted via `add_safe_globals` but got {cls}")
        if not isinstance(args, tuple):
            raise UnpicklingError(f"NEWOBJ expects a tuple of arguments, got {type(args).__name__}")
        self.append(cls.__new__(cls, *args))
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._allowed_object(func):
            raise UnpicklingError(f"Trying to call reduce for unrecognized function {func!r:.200}")
        if not isinstance(args, tuple):
            raise UnpicklingError(f"REDUCE expects a tuple of arguments, got {type(args).__name__}")
        self.stack[-1] = func(*args)
    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_build(self):
        inst = self.stack[-2]  # (the state is on top)
        if type(inst) is not OrderedDict and not self._allowed_object(type(inst)):
            raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                  f"allowlisted via `add_safe_globals`, but got {type(inst)}")
        pickle._Unpickler.load_build(self)
    dispatch[pickle.BUILD[0]] = load_build

    def load_append(self):
        if type(self.stack[-2]) is not list:
            raise UnpicklingError(f"Can only append to lists, but got {type(self.stack[-2])}")
        pickle._Unpickler.load_append(self)
    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        if type(self.stack[-1]) is not list:
            raise UnpicklingError(f"Can only extend lists, but got {type(self.stack[-1])}")
        self.stack[-1].extend(items)
    dispatch[pickle.APPENDS[0]] = load_appends

    def load_setitem(self):
        _check_mapping("SETITEM", self.stack[-3])
        pickle._Unpickler.load_setitem(self)
    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self):
        items = self.pop_mark()
        d = self.stack[-1]
        _check_mapping("SETITEMS", d)
        if len(items) % 2:
            raise UnpicklingError("SETITEMS needs key, value pairs")
        for i in range(0, len(items), 2):
            d[items[i]] = items[i + 1]
    dispatch[pickle.SETITEMS[0]] = load_setitems


class FullUnpickler(pickle.Unpickler):
    """weights_only=False: the ordinary (C) unpickler, which can run any code the file names;
    torch's names still map to ember's objects."""

    def find_class(self, module, name):
        obj = to_ember(f"{module}.{name}")
        if obj is not None:
            return _resolve(obj)
        if module == "torch" or module.startswith("torch."):
            raise UnpicklingError(f"load: the file needs {module}.{name}, which ember does not have")
        return super().find_class(module, name)
