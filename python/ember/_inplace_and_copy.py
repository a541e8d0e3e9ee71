"""torch's in-place `_` forms and `*_copy` forms, each generated from one table row
(STYLE.md, "Breadth without bloat"):

- INPLACE_FUNCTIONS: torch.exp_(x) and friends, the top-level spelling of a Tensor method that
  already writes in place (C++: version counter, autograd history, torch's errors).
- INPLACE_METHODS: Tensor in-place forms of out-of-place ops (addmm_, greater_, ...): the op
  runs out of place, then its result is written into self through copy_, refused (as torch)
  when the shape differs or the dtype cannot be cast into self.
- COPY_FORMS: torch.t_copy(x) and friends: the view op, then a contiguous copy (gradients flow
  through both), with `out=`.
No math here: every value comes from an ember op."""
import builtins
import warnings

from . import _C
from ._comparison import renamed_error
from ._dtype import int64

Tensor = _C.Tensor


def _check_input(x, fn):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


# ---- torch.name_(input, ...) = input.name_(...) ----------------------------------------------
INPLACE_NAMES = (
    "abs_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "deg2rad_", "detach_", "erf_",
    "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_", "lcm_", "ldexp_", "log1p_",
    "log2_", "log_", "neg_", "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_",
    "sigmoid_", "sin_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_", "index_put_",
    "resize_as_", "as_strided_",
)


def _function_form(name):
    def fn(input, *args, **kwargs):
        _check_input(input, name)
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"torch.{name}(input, ...): input.{name}(...), in place; returns input.\n\n"
                  + EXAMPLES[name])
    return fn


def fill(input, value):
    """A new tensor of input's shape and dtype holding `value` (a number or a 0-d tensor; the
    gradient flows to a tensor value, none to input).

    >>> ember.fill(ember.zeros(2, 2), 3.0)
    tensor([[3., 3.],
            [3., 3.]])
    """
    _check_input(input, "fill")
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill(): only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions")
    return input.clone().fill_(value)


# ---- Tensor.name_ from an out-of-place op ------------------------------------------------------
def _records(self, args, kwargs):
    return _C.is_grad_enabled() and any(
        isinstance(a, Tensor) and a.requires_grad for a in (self, *args, *kwargs.values()))


def write_back(self, fn, name, *args, **kwargs):
    """fn(self, *args, **kwargs) written into self, as torch's in-place form `name` (the
    in-place form of every out-of-place op ember composes): the result must keep self's shape
    and cast to its dtype, and an error names `name`. While autograd records, fn runs on a
    clone of self, so what it saves for backward is not the tensor that copy_ then changes
    (x.hypot_(y) on a non-leaf used to fail at backward)."""
    source = self.clone() if _records(self, args, kwargs) else self
    try:
        result = fn(source, *args, **kwargs)
    except Exception as e:
        err = renamed_error(name, e)
        if err is None:
            raise
        raise err from None
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"{name}: output with shape {list(self.shape)} doesn't match the "
                           f"broadcast shape {list(result.shape)}")
    if not _C.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"{name}: result type {result.dtype} can't be cast to the desired "
                           f"output type {self.dtype}")
    return self.copy_(result)


# Generated Tensor in-place method -> (its signature, an example): their docstrings.
METHOD_DOCS = {
    "addbmm_": ("addbmm_(batch1, batch2, *, beta=1, alpha=1) -> Tensor",
                ">>> x = ember.zeros(2, 2)\n"
                ">>> x.addbmm_(ember.ones(3, 2, 1), ember.ones(3, 1, 2))\n"
                "tensor([[3., 3.],\n"
                "        [3., 3.]])"),
    "addmm_": ("addmm_(mat1, mat2, *, beta=1, alpha=1) -> Tensor",
               ">>> x = ember.ones(2, 2)\n"
               ">>> x.addmm_(ember.eye(2), ember.tensor([[1.0, 2.0], [3.0, 4.0]]), beta=2)\n"
               "tensor([[3., 4.],\n"
               "        [5., 6.]])"),
    "addmv_": ("addmv_(mat, vec, *, beta=1, alpha=1) -> Tensor",
               ">>> x = ember.zeros(2)\n"
               ">>> x.addmv_(ember.tensor([[1.0, 2.0], [3.0, 4.0]]), ember.ones(2))\n"
               "tensor([3., 7.])"),
    "addr_": ("addr_(vec1, vec2, *, beta=1, alpha=1) -> Tensor",
              ">>> x = ember.zeros(2, 2)\n"
              ">>> x.addr_(ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))\n"
              "tensor([[3., 4.],\n"
              "        [6., 8.]])"),
    "baddbmm_": ("baddbmm_(batch1, batch2, *, beta=1, alpha=1) -> Tensor",
                 ">>> x = ember.ones(1, 2, 2)\n"
                 ">>> x.baddbmm_(ember.ones(1, 2, 3), ember.ones(1, 3, 2), alpha=0.5)\n"
                 "tensor([[[2.5000, 2.5000],\n"
                 "         [2.5000, 2.5000]]])"),
    "bitwise_left_shift_": ("bitwise_left_shift_(other) -> Tensor",
                            ">>> x = ember.tensor([1, 2, 3])\n"
                            ">>> x.bitwise_left_shift_(2)\n"
                            "tensor([ 4,  8, 12])"),
    "bitwise_right_shift_": ("bitwise_right_shift_(other) -> Tensor",
                             ">>> x = ember.tensor([8, 9, -8])\n"
                             ">>> x.bitwise_right_shift_(2)\n"
                             "tensor([ 2,  2, -2])"),
    "bitwise_not_": ("bitwise_not_() -> Tensor",
                     ">>> x = ember.tensor([0, 5, -1])\n"
                     ">>> x.bitwise_not_()\n"
                     "tensor([-1, -6,  0])"),
    "clamp_max_": ("clamp_max_(max) -> Tensor",
                   ">>> x = ember.tensor([1.0, 5.0])\n"
                   ">>> x.clamp_max_(2.0)\n"
                   "tensor([1., 2.])"),
    "clamp_min_": ("clamp_min_(min) -> Tensor",
                   ">>> x = ember.tensor([1.0, 5.0])\n"
                   ">>> x.clamp_min_(2.0)\n"
                   "tensor([2., 5.])"),
    "deg2rad_": ("deg2rad_() -> Tensor",
                 ">>> x = ember.tensor([180.0, 90.0])\n"
                 ">>> x.deg2rad_()\n"
                 "tensor([3.1416, 1.5708])"),
    "rad2deg_": ("rad2deg_() -> Tensor",
                 ">>> x = ember.tensor([3.14159265, 1.0])\n"
                 ">>> x.rad2deg_()\n"
                 "tensor([180.0000,  57.2958])"),
    "float_power_": ("float_power_(exponent) -> Tensor",
                     ">>> x = ember.tensor([2.0, 3.0], dtype=ember.float64)\n"
                     ">>> x.float_power_(2)\n"
                     "tensor([4., 9.], dtype=ember.float64)"),
    "fmod_": ("fmod_(divisor) -> Tensor",
              ">>> x = ember.tensor([-3.0, 3.0, 5.5])\n"
              ">>> x.fmod_(2)\n"
              "tensor([-1.0000,  1.0000,  1.5000])"),
    "frac_": ("frac_() -> Tensor",
              ">>> x = ember.tensor([1.5, -2.25])\n"
              ">>> x.frac_()\n"
              "tensor([ 0.5000, -0.2500])"),
    "hypot_": ("hypot_(other) -> Tensor",
               ">>> x = ember.tensor([3.0, 5.0])\n"
               ">>> x.hypot_(ember.tensor([4.0, 12.0]))\n"
               "tensor([ 5., 13.])"),
    "ldexp_": ("ldexp_(other) -> Tensor",
               ">>> x = ember.tensor([1.0, 3.0])\n"
               ">>> x.ldexp_(ember.tensor([2, 3]))\n"
               "tensor([ 4., 24.])"),
    "greater_": ("greater_(other) -> Tensor",
                 ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
                 ">>> x.greater_(2)\n"
                 "tensor([0., 0., 1.])"),
    "greater_equal_": ("greater_equal_(other) -> Tensor",
                       ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
                       ">>> x.greater_equal_(2)\n"
                       "tensor([0., 1., 1.])"),
    "less_": ("less_(other) -> Tensor",
              ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
              ">>> x.less_(2)\n"
              "tensor([1., 0., 0.])"),
    "less_equal_": ("less_equal_(other) -> Tensor",
                    ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
                    ">>> x.less_equal_(2)\n"
                    "tensor([1., 1., 0.])"),
    "not_equal_": ("not_equal_(other) -> Tensor",
                   ">>> x = ember.tensor([1.0, 2.0, 3.0])\n"
                   ">>> x.not_equal_(2)\n"
                   "tensor([1., 0., 1.])"),
}


def _method_doc(name, what):
    """The docstring of the generated method `name`: signature, what it does, example."""
    if name not in METHOD_DOCS:
        return what
    sig, example = METHOD_DOCS[name]
    return f"{sig}\n\n{what}\n\n{example}"


def inplace_form(fn, name):
    """The Tensor method `name` (e.g. hypot_) that writes fn's result into self."""
    def method(self, *args, **kwargs):
        return write_back(self, fn, name, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    base = getattr(fn, "__name__", name[:-1])
    method.__doc__ = _method_doc(name, f"The in-place form of Tensor.{base}: its result written "
                                       "into self (same shape; its dtype must cast to self's).")
    return method


def _inplace_method(name, op):
    def method(self, *args, **kwargs):
        return write_back(self, getattr(Tensor, op), name, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = _method_doc(name, f"The in-place form of Tensor.{op}: its result written "
                                       "into self (same shape; its dtype must cast to self's).")
    return method


# Tensor in-place name -> the out-of-place method whose result it writes into self.
INPLACE_METHODS = {"addmm_": "addmm", "bitwise_not_": "bitwise_not"}
# torch's other names of in-place methods ember has (the error names the alias).
INPLACE_ALIASES = {"greater_": "gt_", "greater_equal_": "ge_", "less_": "lt_",
                   "less_equal_": "le_", "not_equal_": "ne_"}


def _inplace_alias(name, target):
    def method(self, other):
        try:
            return getattr(self, target)(other)
        except (RuntimeError, ValueError, TypeError, IndexError) as e:
            if type(e) not in (RuntimeError, ValueError, TypeError, IndexError):
                raise
            raise type(e)(f"{name} (an alias of {target}): {e}") from None
    method.__name__ = method.__qualname__ = name
    method.__doc__ = _method_doc(name, f"Alias of Tensor.{target}.")
    return method


def fill_diagonal_(self, fill_value, wrap=False):
    """fill_diagonal_(fill_value, wrap=False) -> Tensor

    Fills the main diagonal in place (all dims equal for > 2 dims); a tall matrix with
    wrap=True starts again N + 1 rows further down, as torch.

    >>> x = ember.zeros(3, 2)
    >>> x.fill_diagonal_(5.0)
    tensor([[5., 0.],
            [0., 5.],
            [0., 0.]])
    """
    if self.dim() < 2:
        raise RuntimeError("fill_diagonal_: dimensions must larger than 1")
    n = self.shape[0]
    if self.dim() > 2 and any(s != n for s in self.shape):
        raise RuntimeError(f"fill_diagonal_: all dimensions of input must be of equal length "
                           f"(got shape {list(self.shape)})")
    rows, cols = self.shape[0], self.shape[1]
    if self.dim() == 2:
        # positions k * (cols + 1) of the row-major flat index; past the square only with wrap
        limit = rows * cols if wrap and rows > cols else min(rows, cols) * cols
        flat = _C.arange(0, limit, cols + 1, int64) if limit else _C.zeros([0], int64)
        index = (_C.floor_divide(flat, cols), _C.remainder(flat, cols))
    else:
        index = (_C.arange(0, n, 1, int64),) * self.dim()
    value = fill_value if isinstance(fill_value, Tensor) else _C.scalar_tensor(fill_value, None)
    return self.index_put_(index, value.to(self.dtype), False)


def _python_values(self, fn, name, *others):
    """fn applied to each element's Python value (torch's apply_/map_/map2_ call a Python
    callable per element: that call is the op, so it cannot move to C++)."""
    if self.requires_grad and _C.is_grad_enabled():
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if not callable(fn):
        raise TypeError(f"{name}(): argument 'callable' must be callable, not {type(fn).__name__}")
    columns = [self.reshape(-1).tolist()]
    for o in others:
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): expected a Tensor, got {type(o).__name__}")
        columns.append(o.expand(*self.shape).reshape(-1).tolist())
    values = list(builtins.map(fn, *columns))
    from ._creation import tensor
    result = tensor(values, dtype=self.dtype) if values else _C.zeros([0], self.dtype)
    return self.copy_(result.reshape(list(self.shape)))


def apply_(self, callable):
    """apply_(callable) -> Tensor

    Replaces each element by callable(element) (a Python call per element, CPU only as in
    torch; not for tensors that require grad).

    >>> x = ember.tensor([1, 2, 3])
    >>> x.apply_(lambda v: v * 10 + 1)
    tensor([11, 21, 31])
    """
    return _python_values(self, callable, "apply_")


def map_(self, tensor, callable):
    """map_(tensor, callable) -> Tensor

    Replaces each element a of self by callable(a, b), b the matching element of `tensor`
    (broadcast to self's shape); a Python call per element, as torch.

    >>> x = ember.tensor([1.0, 2.0])
    >>> x.map_(ember.tensor([10.0, 20.0]), lambda a, b: max(a, b) - a)
    tensor([ 9., 18.])
    """
    return _python_values(self, callable, "map_", tensor)


def map2_(self, x, y, callable):
    """map2_(x, y, callable) -> Tensor

    Like map_ with two other tensors: each element a becomes callable(a, b, c).

    >>> x = ember.tensor([1, 2])
    >>> x.map2_(ember.tensor([3, 4]), ember.tensor([5, 6]), lambda a, b, c: a + b * c)
    tensor([16, 26])
    """
    return _python_values(self, callable, "map2_", x, y)


# ---- torch.name_copy(input, ..., out=None) ------------------------------------------------------
def _slice(input, dim=0, start=None, end=None, step=1):
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < input.dim():
        raise IndexError(f"slice: Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    return input[(slice(None),) * d + (slice(start, end, step),)]


def _view(input, size):
    return input.view(*size) if not isinstance(size, builtins.int) else input.view(size)


# name -> (the view op, whether it returns a sequence of tensors)
COPY_FORMS = {
    "alias_copy": (lambda input: input.view(list(input.shape)), False),
    "as_strided_copy": (lambda input, size, stride, storage_offset=None:
                        input.as_strided(size, stride, storage_offset), False),
    "detach_copy": (lambda input: input.detach(), False),
    "diagonal_copy": (lambda input, offset=0, dim1=0, dim2=1: input.diagonal(offset, dim1, dim2),
                      False),
    "expand_copy": (lambda input, size, *, implicit=False: input.expand(*size), False),
    "narrow_copy": (lambda input, dim, start, length: input.narrow(dim, start, length), False),
    "permute_copy": (lambda input, dims: input.permute(*dims), False),
    "select_copy": (lambda input, dim, index: input.select(dim, index), False),
    "slice_copy": (_slice, False),
    "split_copy": (lambda input, split_size, dim=0: input.split(split_size, dim), True),
    "split_with_sizes_copy": (lambda input, split_sizes, dim=0: input.split(list(split_sizes), dim),
                              True),
    "squeeze_copy": (lambda input, dim=None: input.squeeze(dim), False),
    "t_copy": (lambda input: input.t(), False),
    "transpose_copy": (lambda input, dim0, dim1: input.transpose(dim0, dim1), False),
    "unbind_copy": (lambda input, dim=0: input.unbind(dim), True),
    "unfold_copy": (lambda input, dimension, size, step: input.unfold(dimension, size, step), False),
    "unsqueeze_copy": (lambda input, dim: input.unsqueeze(dim), False),
    "view_copy": (_view, False),
}


def _into(result, out, name):
    """result written into `out` (resized when its shape differs, as torch's out= does)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if not _C.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"{name}: result type {result.dtype} can't be cast to the desired "
                           f"output type {out.dtype}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warnings.warn(f"{name}: an output with one or more elements was resized since it had "
                          f"shape {list(out.shape)}, which does not match the required output "
                          f"shape {list(result.shape)}.", UserWarning, stacklevel=3)
        out.resize_(list(result.shape))
    return out.copy_(result)


def _copy_form(name, view_op, many):
    def fn(input, *args, out=None, **kwargs):
        _check_input(input, name)
        try:
            result = view_op(input, *args, **kwargs)
        except Exception as e:  # the view op's error, naming the function that was called
            err = renamed_error(name, e)
            if err is None:
                raise
            raise err from None
        if not many:
            result = result.clone()
            return result if out is None else _into(result, out, name)
        results = tuple(r.clone() for r in result)
        if out is None:
            return results  # a tuple, as torch's split_copy / unbind_copy
        if not isinstance(out, (list, tuple)) or len(out) != len(results):
            raise RuntimeError(f"{name}: expected out to be a list of {len(results)} tensors, got "
                               f"{out!r:.80}")
        for r, o in zip(results, out):
            _into(r, o, name)
        return None
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"torch.{name}: a contiguous copy of torch.{name[:-5]}'s view(s).\n\n"
                  + EXAMPLES[name])
    return fn


# name -> its docstring example (the doctests of tests/python/test_docstring_examples.py)
EXAMPLES = {
    "abs_": """\
>>> x = ember.tensor([-1.5, 2.0])
>>> ember.abs_(x)
tensor([1.5000, 2.0000])
>>> x
tensor([1.5000, 2.0000])""",
    "addmv_": """\
>>> y = ember.zeros(2)
>>> ember.addmv_(y, ember.eye(2), ember.tensor([1.0, 2.0]))
tensor([1., 2.])""",
    "arccos_": """\
>>> ember.arccos_(ember.tensor([1.0, 0.0]))
tensor([0.0000, 1.5708])""",
    "arccosh_": """\
>>> ember.arccosh_(ember.tensor([1.0, 2.0]))
tensor([0.0000, 1.3170])""",
    "arcsin_": """\
>>> ember.arcsin_(ember.tensor([0.0, 1.0]))
tensor([0.0000, 1.5708])""",
    "arcsinh_": """\
>>> ember.arcsinh_(ember.tensor([0.0, 1.0]))
tensor([0.0000, 0.8814])""",
    "arctan_": """\
>>> ember.arctan_(ember.tensor([0.0, 1.0]))
tensor([0.0000, 0.7854])""",
    "arctanh_": """\
>>> ember.arctanh_(ember.tensor([0.0, 0.5]))
tensor([0.0000, 0.5493])""",
    "ceil_": """\
>>> ember.ceil_(ember.tensor([-1.5, 0.2]))
tensor([-1.,  1.])""",
    "clamp_": """\
>>> ember.clamp_(ember.tensor([-2.0, 0.5, 3.0]), min=0.0, max=1.0)
tensor([0.0000, 0.5000, 1.0000])""",
    "clamp_max_": """\
>>> ember.clamp_max_(ember.tensor([-2.0, 0.5, 3.0]), 1.0)
tensor([-2.0000,  0.5000,  1.0000])""",
    "clamp_min_": """\
>>> ember.clamp_min_(ember.tensor([-2.0, 0.5, 3.0]), 0.0)
tensor([0.0000, 0.5000, 3.0000])""",
    "clip_": """\
>>> ember.clip_(ember.tensor([-2.0, 0.5, 3.0]), -1.0, 1.0)
tensor([-1.0000,  0.5000,  1.0000])""",
    "cos_": """\
>>> ember.cos_(ember.tensor([0.0, 3.1415927]))
tensor([ 1., -1.])""",
    "deg2rad_": """\
>>> ember.deg2rad_(ember.tensor([180.0, 90.0]))
tensor([3.1416, 1.5708])""",
    "detach_": """\
>>> x = ember.ones(2, requires_grad=True) * 2
>>> ember.detach_(x).requires_grad
False""",
    "erf_": """\
>>> ember.erf_(ember.tensor([0.0, 1.0]))
tensor([0.0000, 0.8427])""",
    "exp_": """\
>>> ember.exp_(ember.tensor([0.0, 1.0]))
tensor([1.0000, 2.7183])""",
    "expm1_": """\
>>> ember.expm1_(ember.tensor([0.0, 1.0]))
tensor([0.0000, 1.7183])""",
    "fill_": """\
>>> ember.fill_(ember.zeros(3), 7)
tensor([7., 7., 7.])""",
    "fix_": """\
>>> ember.fix_(ember.tensor([-1.7, 1.7]))
tensor([-1.,  1.])""",
    "floor_": """\
>>> ember.floor_(ember.tensor([-1.5, 0.2]))
tensor([-2.,  0.])""",
    "frac_": """\
>>> ember.frac_(ember.tensor([-1.25, 2.5]))
tensor([-0.2500,  0.5000])""",
    "gcd_": """\
>>> ember.gcd_(ember.tensor([12, 9]), ember.tensor([8, 6]))
tensor([4, 3])""",
    "lcm_": """\
>>> ember.lcm_(ember.tensor([4, 3]), ember.tensor([6, 5]))
tensor([12, 15])""",
    "ldexp_": """\
>>> ember.ldexp_(ember.tensor([1.0, 3.0]), ember.tensor([2, 1]))
tensor([4., 6.])""",
    "log1p_": """\
>>> ember.log1p_(ember.tensor([0.0, 1.0]))
tensor([0.0000, 0.6931])""",
    "log2_": """\
>>> ember.log2_(ember.tensor([1.0, 8.0]))
tensor([0., 3.])""",
    "log_": """\
>>> ember.log_(ember.tensor([1.0, 2.0]))
tensor([0.0000, 0.6931])""",
    "neg_": """\
>>> ember.neg_(ember.tensor([1.0, -2.0]))
tensor([-1.,  2.])""",
    "negative_": """\
>>> ember.negative_(ember.tensor([1.0, -2.0]))
tensor([-1.,  2.])""",
    "rad2deg_": """\
>>> ember.rad2deg_(ember.tensor([3.1415927, 1.5707964]))
tensor([180.,  90.])""",
    "reciprocal_": """\
>>> ember.reciprocal_(ember.tensor([2.0, 4.0]))
tensor([0.5000, 0.2500])""",
    "round_": """\
>>> ember.round_(ember.tensor([0.5, 1.5, 2.7]))
tensor([0., 2., 3.])""",
    "rsqrt_": """\
>>> ember.rsqrt_(ember.tensor([4.0, 16.0]))
tensor([0.5000, 0.2500])""",
    "sigmoid_": """\
>>> ember.sigmoid_(ember.tensor([0.0]))
tensor([0.5000])""",
    "sin_": """\
>>> ember.sin_(ember.tensor([0.0, 1.5707964]))
tensor([0., 1.])""",
    "sqrt_": """\
>>> ember.sqrt_(ember.tensor([4.0, 9.0]))
tensor([2., 3.])""",
    "square_": """\
>>> ember.square_(ember.tensor([2.0, -3.0]))
tensor([4., 9.])""",
    "tan_": """\
>>> ember.tan_(ember.tensor([0.0, 0.7853982]))
tensor([0., 1.])""",
    "tanh_": """\
>>> ember.tanh_(ember.tensor([0.0, 1.0]))
tensor([0.0000, 0.7616])""",
    "trunc_": """\
>>> ember.trunc_(ember.tensor([-1.7, 1.7]))
tensor([-1.,  1.])""",
    "zero_": """\
>>> ember.zero_(ember.ones(3))
tensor([0., 0., 0.])""",
    "index_put_": """\
>>> x = ember.zeros(4)
>>> ember.index_put_(x, (ember.tensor([0, 2]),), ember.tensor([5.0, 6.0]))
tensor([5., 0., 6., 0.])""",
    "resize_as_": """\
>>> ember.resize_as_(ember.zeros(2), ember.zeros(2, 3)).shape
ember.Size([2, 3])""",
    "as_strided_": """\
>>> x = ember.arange(6.0)
>>> ember.as_strided_(x, (2, 2), (1, 2))
tensor([[0., 2.],
        [1., 3.]])""",
    "alias_copy": """\
>>> ember.alias_copy(ember.tensor([1.0, 2.0]))
tensor([1., 2.])""",
    "as_strided_copy": """\
>>> ember.as_strided_copy(ember.arange(6.0), (2, 2), (1, 2))
tensor([[0., 2.],
        [1., 3.]])""",
    "detach_copy": """\
>>> ember.detach_copy(ember.ones(2, requires_grad=True))
tensor([1., 1.])""",
    "diagonal_copy": """\
>>> ember.diagonal_copy(ember.arange(9.0).reshape(3, 3))
tensor([0., 4., 8.])""",
    "expand_copy": """\
>>> ember.expand_copy(ember.tensor([1.0, 2.0]), (2, 2))
tensor([[1., 2.],
        [1., 2.]])""",
    "narrow_copy": """\
>>> ember.narrow_copy(ember.arange(5), 0, 1, 3)
tensor([1, 2, 3])""",
    "permute_copy": """\
>>> ember.permute_copy(ember.zeros(2, 3, 4), (2, 0, 1)).shape
ember.Size([4, 2, 3])""",
    "select_copy": """\
>>> ember.select_copy(ember.arange(6).reshape(2, 3), 1, 2)
tensor([2, 5])""",
    "slice_copy": """\
>>> ember.slice_copy(ember.arange(6), 0, 1, 5, 2)
tensor([1, 3])""",
    "split_copy": """\
>>> ember.split_copy(ember.arange(5), 2)
(tensor([0, 1]), tensor([2, 3]), tensor([4]))""",
    "split_with_sizes_copy": """\
>>> ember.split_with_sizes_copy(ember.arange(5), [2, 3])
(tensor([0, 1]), tensor([2, 3, 4]))""",
    "squeeze_copy": """\
>>> ember.squeeze_copy(ember.zeros(2, 1, 3)).shape
ember.Size([2, 3])""",
    "t_copy": """\
>>> ember.t_copy(ember.tensor([[1, 2], [3, 4]]))
tensor([[1, 3],
        [2, 4]])""",
    "transpose_copy": """\
>>> ember.transpose_copy(ember.zeros(2, 3, 4), 0, 2).shape
ember.Size([4, 3, 2])""",
    "unbind_copy": """\
>>> ember.unbind_copy(ember.tensor([[1, 2], [3, 4]]))
(tensor([1, 2]), tensor([3, 4]))""",
    "unfold_copy": """\
>>> ember.unfold_copy(ember.arange(5), 0, 2, 1)
tensor([[0, 1],
        [1, 2],
        [2, 3],
        [3, 4]])""",
    "unsqueeze_copy": """\
>>> ember.unsqueeze_copy(ember.tensor([1, 2]), 0)
tensor([[1, 2]])""",
    "view_copy": """\
>>> ember.view_copy(ember.arange(6), (2, 3))
tensor([[0, 1, 2],
        [3, 4, 5]])""",
}

FUNCTIONS = {n: _function_form(n) for n in INPLACE_NAMES}
FUNCTIONS["fill"] = fill
FUNCTIONS.update({n: _copy_form(n, op, many) for n, (op, many) in COPY_FORMS.items()})

METHODS = {n: _inplace_method(n, op) for n, op in INPLACE_METHODS.items()}
METHODS.update({n: _inplace_alias(n, t) for n, t in INPLACE_ALIASES.items()})
METHODS.update({"fill_diagonal_": fill_diagonal_, "apply_": apply_, "map_": map_, "map2_": map2_,
                "narrow_copy": FUNCTIONS["narrow_copy"]})
