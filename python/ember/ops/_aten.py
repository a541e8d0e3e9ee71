"""`ember.ops.aten`: the handful of torch's aten operator overloads that libraries name directly
(PyG's Index/EdgeIndex/HashTensor key their handlers by `aten.clone.default`, ...; flop
counters and dispatch tables by `aten.mm.default`). Each overload is a callable with aten's
signature that runs ember's own function of the same meaning; ember has no dispatcher beneath
them, so an overload is the function, not a route into one. An overload this table lacks is an
AttributeError naming it; an operator defined with ember.library under the `aten` namespace
is found after the table."""
import ember


def _slice(self, dim=0, start=None, end=None, step=1):
    # aten.slice clamps start/end as Python slicing does (end may be 2**63 - 1).
    dim = dim + self.dim() if dim < 0 else dim
    return self[(slice(None),) * dim + (slice(start, end, step),)]


def _index(self, indices):
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"aten::index.Tensor: indices must be a list of optional tensors, got "
                        f"{type(indices).__name__}")
    return self[tuple(slice(None) if i is None else i for i in indices)]


def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    if layout is not None and layout != self.layout:
        raise RuntimeError(f"aten::_to_copy: ember converts layouts with to_dense()/to_sparse(), "
                           f"not _to_copy (asked {layout} for a {self.layout} tensor)")
    kwargs = {"memory_format": memory_format} if memory_format is not None else {}
    out = self.to(device=self.device if device is None else device,
                  dtype=self.dtype if dtype is None else dtype, non_blocking=non_blocking,
                  copy=True, **kwargs)
    return out.pin_memory() if pin_memory else out


def _alias(self):
    return self.as_strided(self.size(), self.stride(), self.storage_offset())


def _pin_memory(self, device=None):
    return self.pin_memory()


def _sort_stable(self, *, stable, dim=-1, descending=False):
    return tuple(ember.sort(self, stable=stable, dim=dim, descending=descending))


def _sort(self, dim=-1, descending=False):
    return tuple(ember.sort(self, dim=dim, descending=descending))


def _sparse_addmm(self, mat1, mat2, *, beta=1, alpha=1):
    return ember.sparse.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


def _clone(self, *, memory_format=None):
    return self.clone() if memory_format is None else self.clone(memory_format=memory_format)


def _add_(self, other, *, alpha=1):
    return self.add_(other, alpha=alpha)


def _sub_(self, other, *, alpha=1):
    return self.sub_(other, alpha=alpha)


# name -> {overload: callable}; the first overload is the one the packet itself calls.
_TABLE = {
    "clone": {"default": _clone},
    "detach": {"default": lambda self: ember.detach(self)},
    "alias": {"default": _alias},
    "_to_copy": {"default": _to_copy},
    "_pin_memory": {"default": _pin_memory},
    "cat": {"default": lambda tensors, dim=0: ember.cat(tensors, dim)},
    "flip": {"default": lambda self, dims: ember.flip(self, dims)},
    "index_select": {"default": lambda self, dim, index: ember.index_select(self, dim, index)},
    "slice": {"Tensor": _slice},
    "index": {"Tensor": _index},
    "select": {"int": lambda self, dim, index: ember.select(self, dim, index)},
    "unbind": {"int": lambda self, dim=0: ember.unbind(self, dim)},
    "unsqueeze": {"default": lambda self, dim: ember.unsqueeze(self, dim)},
    "squeeze": {"default": lambda self: ember.squeeze(self),
                "dim": lambda self, dim: ember.squeeze(self, dim),
                "dims": lambda self, dim: ember.squeeze(self, tuple(dim))},
    "sort": {"default": _sort, "stable": _sort_stable},
    "add": {"Tensor": lambda self, other, *, alpha=1: ember.add(self, other, alpha=alpha)},
    "add_": {"Tensor": _add_},
    "sub": {"Tensor": lambda self, other, *, alpha=1: ember.sub(self, other, alpha=alpha)},
    "sub_": {"Tensor": _sub_},
    "mm": {"default": lambda self, mat2: ember.mm(self, mat2)},
    "addmm": {"default": lambda self, mat1, mat2, *, beta=1, alpha=1:
              ember.addmm(self, mat1, mat2, beta=beta, alpha=alpha)},
    "bmm": {"default": lambda self, mat2: ember.bmm(self, mat2)},
    "_sparse_addmm": {"default": _sparse_addmm},
}


class OpOverload:
    """One aten overload (`ember.ops.aten.clone.default`): callable with aten's signature."""

    def __init__(self, packet, overload, fn):
        self.overloadpacket = packet
        self._overloadname = overload
        self._fn = fn
        self.__name__ = f"{packet.__name__}.{overload}"

    def name(self):
        return f"aten::{self.overloadpacket.__name__}" + \
            ("" if self._overloadname == "default" else f".{self._overloadname}")

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __str__(self):
        return f"aten.{self.__name__}"

    def __repr__(self):
        return f"<OpOverload(op='aten.{self.overloadpacket.__name__}', " \
               f"overload='{self._overloadname}')>"


class OpOverloadPacket:
    """An aten operator (`ember.ops.aten.clone`): its overloads as attributes; calling it calls
    its first overload."""

    def __init__(self, name, overloads):
        self.__name__ = name
        self._overloads = {k: OpOverload(self, k, fn) for k, fn in overloads.items()}

    def overloads(self):
        return list(self._overloads)

    def __getattr__(self, overload):
        if overload.startswith("__") or overload == "_overloads":
            raise AttributeError(overload)
        try:
            return self._overloads[overload]
        except KeyError:
            raise AttributeError(f"The underlying op of 'aten.{self.__name__}' has no overload "
                                 f"name '{overload}' in ember (it has: "
                                 f"{', '.join(self._overloads)})") from None

    def __call__(self, *args, **kwargs):
        return next(iter(self._overloads.values()))(*args, **kwargs)

    def __str__(self):
        return f"aten.{self.__name__}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self.__name__}')>"


class AtenNamespace:
    """`ember.ops.aten`: the table's operators, one packet object each."""

    name = "aten"

    def __init__(self):
        self._packets = {}

    def __getattr__(self, op):
        if op.startswith("__") or op == "_packets":
            raise AttributeError(op)
        packet = self._packets.get(op)
        if packet is None:
            if op in _TABLE:
                packet = self._packets[op] = OpOverloadPacket(op, _TABLE[op])
            else:
                from .._library.registry import OpNamespace
                try:
                    return getattr(OpNamespace("aten"), op)
                except AttributeError:
                    raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{op}': "
                                         f"ember does not implement torch.ops.aten.{op} yet "
                                         f"(call ember's function of that name)") from None
        return packet

    def __dir__(self):
        return sorted(_TABLE)

    def __repr__(self):
        return "<ember.ops.aten>"


aten = AtenNamespace()
