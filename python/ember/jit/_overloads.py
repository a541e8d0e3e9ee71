"""torch.jit._overload and _overload_method: TorchScript's overload declarations. Eagerly they
record the declaration (so `_get_fn_overloads` lists them, as torch's registry does) and return
it unchanged; the plain `def` that follows under the same name is the function Python calls.
A declaration's body must be `pass` or `...`, checked as torch checks it."""
import ast
import inspect
import textwrap
import warnings

_overloaded_fns = {}       # qualified name -> [declarations]
_overloaded_methods = {}   # qualified name -> {class name: [declarations]}

_OVERLOAD_EXAMPLE = """
Example usage of overload function:
@torch.jit._overload
def my_function(x: type0) -> type0: # decl 1
    pass

@torch.jit._overload
def my_function(x: type1) -> type1: # decl 2
    pass

def my_function(x):                 # implementation
    if isinstance(x, type0):
        return x
    elif isinstance(x, type1):
        return x
"""


def _qualified_name(func):
    return f"{func.__module__}.{func.__qualname__}"


def _check_overload_body(func):
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        warnings.warn(f"Unable to retrieve source for @torch.jit._overload function: {func}.",
                      stacklevel=3)
        return
    body = ast.parse(source).body[0].body
    only = body[0] if len(body) == 1 else None
    if not (isinstance(only, ast.Pass) or (isinstance(only, ast.Expr)
                                           and isinstance(only.value, ast.Constant)
                                           and only.value.value is Ellipsis)):
        raise RuntimeError("Only `pass` statement or `...` can be the body of overload "
                           "declaration:\n" + "\n".join(source.split("\n")[:3]) +
                           " <- Expecting `pass` or `...` here!\n" + _OVERLOAD_EXAMPLE)


def _overload(func):
    """Records func as one overload declaration of its name and returns it."""
    _check_overload_body(func)
    _overloaded_fns.setdefault(_qualified_name(func), []).append(func)
    return func


def _overload_method(func):
    """Records func as one overload declaration of a method of its class and returns it."""
    _check_overload_body(func)
    class_name = func.__qualname__.rsplit(".", 1)[0]
    by_class = _overloaded_methods.setdefault(_qualified_name(func), {})
    by_class.setdefault(class_name, []).append(func)
    return func


def _get_fn_overloads(qual_name):
    return _overloaded_fns.get(qual_name)


def _clear_fn_overloads(qual_name):
    del _overloaded_fns[qual_name]
