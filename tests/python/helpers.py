"""One helper for every op test: build the same inputs in ember and in PyTorch (the
oracle), run the op in both, and compare values, dtype and shape.

    check_op(lambda m, x, y: m.add(x, y), [(3, 4), (4,)], dtypes=["float32", "int64"])

`m` is the module (ember or torch); inputs are built from one NumPy array per shape,
optionally made non-contiguous the same way in both libraries (LAYOUTS)."""
import numpy as np
import pytest
import torch

import ember

NP = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
      "int64": np.int64,
      "float32": np.float32, "float64": np.float64}
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def random_array(shape, dtype, rng, low=-3.0, high=3.0):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("uint8",):
        return rng.integers(0, 10, size=shape).astype(np.uint8)
    if dtype in ("int8", "int16", "int32", "int64"):
        return rng.integers(int(low) - 2, int(high) + 3, size=shape).astype(NP[dtype])
    return rng.uniform(low, high, size=shape).astype(NP[dtype])


def _base_and_view(shape, layout):
    """The shape of the array to allocate and a function making the view in either library."""
    n = len(shape)
    if layout == "transposed" and n >= 2:
        base = tuple(reversed(shape))
        return base, lambda t: t.permute(*reversed(range(n)))
    if layout == "sliced" and n >= 1:
        base = tuple(shape[:-1]) + (2 * shape[-1],)
        return base, lambda t: t.narrow(n - 1, 0, 2 * shape[-1]).unflatten(n - 1, (shape[-1], 2)).select(n, 0)
    if layout == "expanded" and n >= 1 and shape[0] != 1:
        base = (1,) + tuple(shape[1:])
        return base, lambda t: t.expand(*shape)
    return tuple(shape), lambda t: t


def make_inputs(shapes, dtype, layout="contiguous", seed=0, low=-3.0, high=3.0):
    """(ember_tensors, torch_tensors) with equal values and the same strides pattern."""
    rng = np.random.default_rng(seed)
    es, ts = [], []
    for shape in shapes:
        base, view = _base_and_view(shape, layout)
        arr = np.asarray(random_array(base, dtype, rng, low, high))  # shape () gives a NumPy scalar
        es.append(view(ember.from_numpy(arr.copy())))
        ts.append(view(torch.from_numpy(arr.copy())))
    return es, ts


def to_numpy(x):
    if isinstance(x, ember.Tensor):
        return np.array(x.numpy(), copy=True)
    if isinstance(x, torch.Tensor):
        return x.detach().numpy().copy()
    return np.asarray(x)


def assert_promotion_like_torch(a, b):
    """promote_types and can_cast of the dtypes named a and b (e.g. "int32") answer as torch's."""
    pe = ember.promote_types(getattr(ember, a), getattr(ember, b))
    pt = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert pe.name == str(pt).split(".")[-1], (a, b)
    assert ember.can_cast(getattr(ember, a), getattr(ember, b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


def dtype_name(x):
    return str(x.dtype).split(".")[-1]


def assert_same(e, t, rtol=1e-5, atol=1e-6):
    """ember result `e` equals torch result `t`: type, shape, dtype and values."""
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)) and len(e) == len(t), f"{type(e)} vs {type(t)}"
        for a, b in zip(e, t):
            assert_same(a, b, rtol, atol)
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"expected a Tensor, got {type(e)}"
        assert tuple(e.shape) == tuple(t.shape), f"shape {tuple(e.shape)} != {tuple(t.shape)}"
        assert dtype_name(e) == dtype_name(t), f"dtype {e.dtype} != {t.dtype}"
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=rtol, atol=atol, equal_nan=True)
        return
    assert type(e) is type(t), f"{type(e)} vs {type(t)}"
    if isinstance(t, float):
        np.testing.assert_allclose(e, t, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert e == t


def check_op(fn, shapes, dtypes=("float32",), layouts=("contiguous",), rtol=1e-5, atol=1e-6,
             seed=0, low=-3.0, high=3.0):
    """Run fn(module, *inputs) in ember and torch for each dtype and layout and compare.
    When torch raises, ember must raise an exception of a comparable type."""
    for dtype in dtypes:
        for layout in layouts:
            es, ts = make_inputs(shapes, dtype, layout, seed, low, high)
            try:
                expected = fn(torch, *ts)
            except Exception as texc:  # torch refuses: ember must refuse too
                try:
                    fn(ember, *es)
                except (ValueError, TypeError, IndexError, RuntimeError, NotImplementedError):
                    continue
                raise AssertionError(f"torch raised {texc!r} but ember did not "
                                     f"(dtype={dtype}, layout={layout})")
            got = fn(ember, *es)
            try:
                assert_same(got, expected, rtol, atol)
            except AssertionError as e:
                raise AssertionError(f"dtype={dtype} layout={layout} shapes={shapes}: {e}") from None


def check_grad(fn, shapes, dtypes=("float32", "float64"), layouts=("contiguous",), rtol=1e-4,
               atol=1e-5, seed=0, low=-2.0, high=2.0, requires=None):
    """Forward and backward of fn(module, *inputs) in ember and torch: outputs and the
    gradients of every input (seeded with the same random grad_output) must match.
    `requires` lists which inputs require grad (default: all)."""
    rng = np.random.default_rng(seed + 1)
    for dtype in dtypes:
        for layout in layouts:
            es, ts = make_inputs(shapes, dtype, layout, seed, low, high)
            req = requires if requires is not None else [True] * len(shapes)
            es = [_leaf(x, r) for x, r in zip(es, req)]
            ts = [_leaf(x, r) for x, r in zip(ts, req)]
            t_out = fn(torch, *ts)
            e_out = fn(ember, *es)
            assert_same(e_out, t_out, rtol, atol)
            t_outs = t_out if isinstance(t_out, (tuple, list)) else [t_out]
            e_outs = e_out if isinstance(e_out, (tuple, list)) else [e_out]
            pairs = [(e, t) for e, t in zip(e_outs, t_outs) if t.requires_grad]
            seeds = [random_array(tuple(t.shape), dtype, rng) for _, t in pairs]
            torch.autograd.backward([t for _, t in pairs], [torch.from_numpy(s) for s in seeds])
            ember.autograd.backward([e for e, _ in pairs], [ember.from_numpy(s) for s in seeds])
            for i, (e, t) in enumerate(zip(es, ts)):
                if not req[i]:
                    continue
                where = f"grad of input {i} (dtype={dtype}, layout={layout}, shapes={shapes})"
                if t.grad is None:
                    assert e.grad is None or not np.any(to_numpy(e.grad)), where
                    continue
                assert e.grad is not None, f"{where}: ember gave no gradient"
                try:
                    assert_same(e.grad, t.grad, rtol, atol)
                except AssertionError as err:
                    raise AssertionError(f"{where}: {err}") from None


def _leaf(x, requires):
    """A leaf with the same values and strides as view x (views of leaves are not leaves)."""
    if not requires:
        return x
    if isinstance(x, torch.Tensor):
        leaf = x.detach().clone() if x.is_contiguous() else x.detach()
        return leaf.requires_grad_(True)
    return x.detach().requires_grad_(True)


def gradcheck_op(fn, shapes, seed=0, low=-2.0, high=2.0):
    """Finite differences in float64 against ember's own backward."""
    es, _ = make_inputs(shapes, "float64", "contiguous", seed, low, high)
    es = [x.detach().requires_grad_(True) for x in es]
    assert ember.autograd.gradcheck(lambda *xs: fn(ember, *xs), es, eps=1e-6, atol=1e-5, rtol=1e-3)


# ---- threads ----------------------------------------------------------------------------------
def on_thread_counts(fn, counts=(1, 2)):
    """[fn() run with ember.set_num_threads(n) for n in counts]; the thread count restored after
    (also when fn raises)."""
    old = ember.get_num_threads()
    try:
        results = []
        for n in counts:
            ember.set_num_threads(n)
            results.append(fn())
        return results
    finally:
        ember.set_num_threads(old)


# ---- modules: the same layer built in both libraries ------------------------------------------
def copy_state(e_mod, t_mod):
    """torch's parameters and buffers into ember (through NumPy), in place."""
    e_mod.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                           for k, v in t_mod.state_dict().items()})


def randomize_both(e_mod, t_mod, rng):
    """The same random float32 values (standard normal; a running_var's |v| + 0.5) into every
    floating entry of both modules' state_dicts, in place (the two list them in the same order)."""
    for (name, t), e in zip(t_mod.state_dict().items(), e_mod.state_dict().values()):
        if t.dtype.is_floating_point:
            v = rng.standard_normal(tuple(t.shape)).astype(np.float32)
            if "running_var" in name:
                v = np.abs(v) + 0.5
            with torch.no_grad():
                t.copy_(torch.from_numpy(v))
            with ember.no_grad():
                e.copy_(ember.from_numpy(v.copy()))


def build_pair(build, dtype="float32", train=True):
    """(ember module, torch module) from build(lib), torch's state copied into ember."""
    t_mod = build(torch)
    e_mod = build(ember)
    if dtype == "float64":
        t_mod.double()
        e_mod.double()
    copy_state(e_mod, t_mod)
    return e_mod.train(train), t_mod.train(train)


def assert_same_param_grads(e_mod, t_mod, rtol, atol):
    """The same parameter names in the same order, and the same grads (None where torch's is)."""
    e_params, t_params = dict(e_mod.named_parameters()), dict(t_mod.named_parameters())
    assert list(e_params) == list(t_params)
    for name, tp in t_params.items():
        if tp.grad is None:
            assert e_params[name].grad is None, name
            continue
        tg = tp.grad.to_dense() if tp.grad.is_sparse else tp.grad  # Embedding(sparse=True)
        try:
            assert_same(e_params[name].grad, tg, rtol, atol)
        except AssertionError as err:
            raise AssertionError(f"grad of {name}: {err}") from None


# ---- errors: the same call must fail in both libraries -----------------------------------------
def errors_of_both(fn, es=(), ts=(), exc=RuntimeError, ember_exc=None):
    """fn(torch, *ts) must raise exc and fn(ember, *es) ember_exc (exc unless told); returns
    (ember's message, torch's message) for the caller to compare."""
    with pytest.raises(exc) as texc:
        fn(torch, *ts)
    with pytest.raises(ember_exc or exc) as eexc:
        fn(ember, *es)
    return str(eexc.value), str(texc.value)
