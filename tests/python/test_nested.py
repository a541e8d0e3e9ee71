"""ember.nested (strided nested tensors) against torch 2.13: construction, size queries,
to_padded_tensor, unbind/indexing/narrow, the ops torch runs on strided nested tensors (values
and gradients into the components), the ops it refuses (refused here too), and bad input."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")

SHAPES = {  # components of 1, 2 and 3 dims, with an empty one
    "1d": [(3,), (5,), (0,)],
    "2d": [(2, 3), (4, 3), (1, 3)],
    "3d": [(2, 2, 3), (2, 4, 3)],
    "2d_empty": [(2, 3), (0, 3)],
}


def arrays(shapes, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def pair(shapes, dtype="float64", requires_grad=False, seed=0):
    a = arrays(shapes, dtype, seed)
    e = ember.nested.nested_tensor([ember.tensor(x) for x in a], requires_grad=requires_grad)
    t = torch.nested.nested_tensor([torch.tensor(x) for x in a], requires_grad=requires_grad)
    return e, t


def dtype_name(d):
    return str(d).split(".")[1]


def close(e, t, rtol=1e-6, atol=1e-9):
    """e and t equal: both nested (component by component) or both dense."""
    assert e.is_nested == t.is_nested
    assert dtype_name(e.dtype) == dtype_name(t.dtype)
    if not t.is_nested:
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(force=True), rtol=rtol,
                                   atol=atol)
        return
    ec, tc = e.unbind(), t.unbind()
    assert len(ec) == len(tc)
    for a, b in zip(ec, tc):
        close(a, b, rtol, atol)


def check(fn, shapes, rtol=1e-6, atol=1e-9, grad=True, seed=0, dense_grad=False,
          dtype="float64"):
    """fn(lib, F, nt) on a nested leaf of each library: outputs equal, and the gradients of a
    weighted sum of the padded outputs equal (nested .grad of the leaf). dense_grad: torch's
    nested backward lacks this op (tanh_backward & co. raise there), so the reference gradient
    is fn applied by torch to each component as a dense tensor."""
    e, t = pair(shapes, dtype, requires_grad=grad, seed=seed)
    oe, ot = fn(ember, EF, e), fn(torch, TF, t)
    close(oe, ot, rtol, atol)
    if not grad:
        return oe, ot
    pt = ot.to_padded_tensor(0.0)
    w = np.random.default_rng(1).standard_normal(tuple(pt.shape)).astype(dtype)
    (oe.to_padded_tensor(0.0) * ember.tensor(w)).sum().backward()
    assert e.grad.is_nested
    if dense_grad:
        for i, x in enumerate(arrays(shapes, dtype, seed=seed)):
            xt = torch.tensor(x, requires_grad=True)
            out = fn(torch, TF, xt)
            (out * torch.tensor(w[i][tuple(slice(0, s) for s in out.shape)])).sum().backward()
            close(e.grad.unbind()[i], xt.grad, rtol, atol)
        return oe, ot
    (pt * torch.tensor(w)).sum().backward()
    close(e.grad, t.grad, rtol, atol)
    return oe, ot


# ---- construction and queries ----------------------------------------------------------------

@pytest.mark.parametrize("key", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_construction_and_queries(key, dtype):
    e, t = pair(SHAPES[key], dtype)
    assert e.is_nested and isinstance(e, ember.Tensor) and not ember.zeros(1).is_nested
    assert e.dim() == t.dim() and e.numel() == t.numel() and e.layout == ember.strided
    assert dtype_name(e.dtype) == dtype_name(t.dtype) and not e.requires_grad
    for d in range(-t.dim(), t.dim()):
        try:
            want = t.size(d)
        except RuntimeError:
            with pytest.raises(RuntimeError, match="irregular"):
                e.size(d)
        else:
            assert e.size(d) == want
    for d in (t.dim(), -t.dim() - 1):
        with pytest.raises(IndexError, match="Dimension out of range"):
            e.size(d)
    with pytest.raises(RuntimeError, match="no single size"):
        e.size()
    with pytest.raises(RuntimeError, match="no single size"):
        e.shape
    close(e, t)
    close(e.to_padded_tensor(-1), t.to_padded_tensor(-1))
    assert e._nested_tensor_size().tolist() == t._nested_tensor_size().tolist()


def test_from_lists_dtypes_and_copies():
    close(ember.nested.nested_tensor([[1.0, 2.0], [3.0]]),
          torch.nested.nested_tensor([[1.0, 2.0], [3.0]]))
    assert ember.nested.nested_tensor([[1, 2], [3]]).dtype == ember.int64
    assert ember.nested.nested_tensor([[1, 2]], dtype=ember.float64).dtype == ember.float64
    x = ember.zeros(2)
    nt = ember.nested.nested_tensor([x])
    x += 1  # nested_tensor copies
    assert nt.unbind()[0].tolist() == [0.0, 0.0]
    mixed = [ember.zeros(2), ember.zeros(2, dtype=ember.float64)]
    assert ember.nested.nested_tensor(mixed).dtype == ember.float32  # the first one's, as torch
    assert torch.nested.nested_tensor([torch.zeros(2), torch.zeros(2, dtype=torch.float64)]
                                      ).dtype == torch.float32
    for lib in (ember, torch):
        empty = lib.nested.nested_tensor([])
        assert empty.dim() == 1 and empty.numel() == 0 and empty.size(0) == 0
        assert empty.unbind() == () and tuple(empty.to_padded_tensor(0).shape) == (0,)


def test_requires_grad_leaf_and_grad_accumulation():
    e, t = pair(SHAPES["2d"], requires_grad=True)
    assert e.is_leaf and e.requires_grad and e.grad is None and e.grad_fn is None
    (EF.relu(e) * 2).to_padded_tensor(0).sum().backward()
    (TF.relu(t) * 2).to_padded_tensor(0).sum().backward()
    close(e.grad, t.grad)
    # a second backward accumulates into .grad (torch 2.13 raises there: "NestedTensorImpl
    # doesn't support strides"), so the sum of the two is compared with twice torch's
    (EF.relu(e) * 2).to_padded_tensor(0).sum().backward()
    close(e.grad, t.grad * 2)
    e.grad = None
    assert e.grad is None
    g = arrays(SHAPES["2d"], seed=4)
    (e * 3).backward(ember.nested.nested_tensor([ember.tensor(x) for x in g]))
    # torch 2.13's nested backward(gradient=nested) raises ("doesn't support strides"): the
    # gradient of 3 * x is 3 * g
    close(e.grad, torch.nested.nested_tensor([torch.tensor(3 * x) for x in g]))
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        e.relu().backward()
    with pytest.raises(RuntimeError, match="floating point"):
        ember.nested.nested_tensor([[1, 2]], requires_grad=True)


def test_as_nested_tensor_keeps_autograd():
    a = arrays([(2, 3), (4, 3)])
    xe = [ember.tensor(x, requires_grad=True) for x in a]
    xt = [torch.tensor(x, requires_grad=True) for x in a]
    ne, nt = ember.nested.as_nested_tensor(xe), torch.nested.as_nested_tensor(xt)
    assert ne.requires_grad and not ne.is_leaf
    w = np.arange(24.0).reshape(2, 4, 3)
    (ne.to_padded_tensor(0.5) * ember.tensor(w)).sum().backward()
    (nt.to_padded_tensor(0.5) * torch.tensor(w)).sum().backward()
    for u, v in zip(xe, xt):
        close(u.grad, v.grad)
    close(ember.nested.as_nested_tensor(ember.tensor(a[0]), dtype=ember.float32),
          torch.nested.as_nested_tensor(torch.tensor(a[0]), dtype=torch.float32))
    assert ember.nested.as_nested_tensor(ne) is ne
    assert ember.nested.as_nested_tensor(xe, layout=ember.strided).is_nested
    with pytest.raises(RuntimeError, match="dim\\(\\) > 1"):
        ember.nested.as_nested_tensor(ember.zeros(3))
    with pytest.raises(TypeError, match="as_nested_tensor"):
        ember.nested.as_nested_tensor([1.0, 2.0])


def test_to_padded_tensor_output_size_and_errors():
    e, t = pair(SHAPES["2d"])
    for size in [(3, 4, 3), (5, 6, 4)]:
        close(ember.nested.to_padded_tensor(e, 1.5, size), torch.nested.to_padded_tensor(t, 1.5,
                                                                                          size))
    ei = ember.nested.nested_tensor([[1, 2], [3]])
    ti = torch.nested.nested_tensor([[1, 2], [3]])
    close(ei.to_padded_tensor(7.5), ti.to_padded_tensor(7.5))
    with pytest.raises(RuntimeError, match="Truncation is not supported"):
        e.to_padded_tensor(0, (3, 3, 3))
    with pytest.raises(RuntimeError, match="Broadcasting is not supported"):
        e.to_padded_tensor(0, (4, 3))
    with pytest.raises(RuntimeError, match="to_padded_tensor: expected a nested tensor"):
        ember.zeros(2).to_padded_tensor(0)
    with pytest.raises(RuntimeError, match="to_padded_tensor: expected a nested tensor"):
        ember.nested.to_padded_tensor(ember.zeros(2), 0)


# ---- components ------------------------------------------------------------------------------

def test_unbind_index_and_narrow():
    e, t = pair(SHAPES["2d"], requires_grad=True)
    for i in (0, 1, -1):
        close(e[i], t[i])
    close(e[1, 2], t[1, 2])
    parts = e.unbind()
    parts[1].sum().backward()  # a component's gradient lands in the nested leaf
    t.unbind()[1].sum().backward()
    close(e.grad, t.grad)
    with pytest.raises(IndexError, match="out of bounds"):
        e[5]
    with pytest.raises(NotImplementedError, match="integer first index"):
        e[0:1]
    with pytest.raises(RuntimeError, match="unbound along dimension 0"):
        e.unbind(1)
    e, t = pair(SHAPES["1d"])
    close(e.narrow(0, 1, 2).to_padded_tensor(0), torch.nested.nested_tensor(
        list(t.unbind()[1:3])).to_padded_tensor(0))
    close(ember.nested.narrow(e, 0, 0, 1), torch.nested.narrow(t, 0, 0, 1))
    for dim in (1, -1):
        with pytest.raises(RuntimeError, match="only dim=0 supported"):
            e.narrow(dim, 0, 1)
        with pytest.raises(RuntimeError, match="only dim=0 supported"):
            t.narrow(dim, 0, 1)


# ---- elementwise -----------------------------------------------------------------------------

UNARY = ["relu", "gelu", "tanh", "neg", "abs", "sin", "cos", "silu", "sgn", "tanhshrink",
         "softsign"]
NO_TORCH_NESTED_GRAD = ("tanh", "sgn", "tanhshrink")  # torch 2.13 raises in their backward


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("key", ["1d", "2d", "3d", "2d_empty"])
def test_unary(name, key):
    def fn(lib, F, x):
        f = getattr(lib, name, None) or getattr(F, name)
        return f(x)
    dense = name in NO_TORCH_NESTED_GRAD
    check(fn, SHAPES[key], dense_grad=dense)
    check(lambda lib, F, x: getattr(x, name)() if hasattr(x, name) else F.__dict__[name](x),
          SHAPES[key], dense_grad=dense)


@pytest.mark.parametrize("name", UNARY)
def test_unary_float32(name):
    f = (lambda lib, F, x: getattr(lib, name)(x)) if hasattr(torch, name) else \
        (lambda lib, F, x: getattr(F, name)(x))
    check(f, SHAPES["2d"], rtol=1e-5, atol=1e-6, dtype="float32",
          dense_grad=name in NO_TORCH_NESTED_GRAD)


def test_float32_layers_and_products():
    w = np.random.default_rng(5).standard_normal((4, 3)).astype("float32")
    check(lambda lib, F, x: F.linear(x, lib.tensor(w)), SHAPES["2d"], rtol=1e-5, atol=1e-6,
          dtype="float32")
    check(lambda lib, F, x: F.softmax(x @ x.transpose(1, 2), -1), SHAPES["2d"], rtol=1e-5,
          atol=1e-6, dtype="float32")
    check(lambda lib, F, x: F.layer_norm(x * 3 + 1, (3,), lib.ones(3), lib.zeros(3)),
          SHAPES["2d"], rtol=1e-4, atol=1e-5, dtype="float32")


def test_components_non_contiguous_and_detached():
    a = arrays([(3, 2), (3, 4)])
    be = [ember.tensor(x, requires_grad=True) for x in a]
    bt = [torch.tensor(x, requires_grad=True) for x in a]
    xe, xt = [x.t() for x in be], [x.t() for x in bt]  # non-contiguous components
    e, t = ember.nested.nested_tensor(xe), torch.nested.nested_tensor(xt)
    close(e, t)
    assert not e.requires_grad and e.is_leaf  # nested_tensor copies and detaches, as torch's
    ae, at = ember.nested.as_nested_tensor(xe), torch.nested.as_nested_tensor(xt)
    close(ae, at)
    w = np.random.default_rng(0).standard_normal((2, 4, 3))
    (ae.to_padded_tensor(0.0) * ember.tensor(w)).sum().backward()
    (at.to_padded_tensor(0.0) * torch.tensor(w)).sum().backward()
    for u, v in zip(be, bt):  # the gradient reaches the tensors the components are views of
        close(u.grad, v.grad)
    close(ember.nested.nested_tensor([ember.zeros(2, 0)]), torch.nested.nested_tensor(
        [torch.zeros(2, 0)]))


def test_inplace_activations_and_dropout():
    for name in ("relu", "silu"):
        check(lambda lib, F, x: getattr(F, name)(x * 1, inplace=True), SHAPES["2d"])
    check(lambda lib, F, x: lib.nn.ReLU(inplace=True)(x * 2), SHAPES["2d"])
    e, t = pair(SHAPES["2d"])
    assert EF.dropout(e, 0.5, False, inplace=True) is e
    close(e, TF.dropout(t, 0.5, False, inplace=True))
    with pytest.raises(NotImplementedError):
        TF.dropout(t, 0.5, True, inplace=True)
    with pytest.raises(NotImplementedError, match="dropout: inplace=True in training"):
        EF.dropout(e, 0.5, True, inplace=True)
    with pytest.raises(NotImplementedError):
        TF.hardtanh(t, inplace=True)
    with pytest.raises(NotImplementedError, match="hardtanh"):
        EF.hardtanh(e, inplace=True)


def test_unary_more():
    check(lambda lib, F, x: F.gelu(x, approximate="tanh"), SHAPES["2d"])
    check(lambda lib, F, x: -x, SHAPES["2d"])
    e = ember.nested.nested_tensor([[4.0, 9.0], [1.0]], requires_grad=True)
    t = torch.nested.nested_tensor([[4.0, 9.0], [1.0]], requires_grad=True)
    close(ember.sqrt(e), torch.sqrt(t))
    close(ember.isnan(e), torch.isnan(t))
    close(ember.logical_not(e), torch.logical_not(t))


@pytest.mark.parametrize("name", ["sigmoid", "exp", "log", "floor", "erf"])
def test_unary_torch_refuses(name):
    e, t = pair(SHAPES["2d"])
    with pytest.raises(NotImplementedError):
        getattr(torch, name)(t)
    with pytest.raises(NotImplementedError, match=f"{name}: not supported for nested tensors"):
        getattr(ember, name)(e)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary(op):
    def nested_nested(lib, F, x):
        other = lib.nested.nested_tensor([c.detach() * 0.5 + 2 for c in x.unbind()])
        return getattr(lib, op)(x, other)
    check(nested_nested, SHAPES["2d"])
    check(lambda lib, F, x: getattr(lib, op)(x, 2.5), SHAPES["3d"])
    check(lambda lib, F, x: getattr(x, op)(lib.tensor(1.5, dtype=lib.float64)), SHAPES["1d"])
    # the gradient into both nested operands
    a, at = pair(SHAPES["2d"], requires_grad=True)
    b, bt = pair(SHAPES["2d"], requires_grad=True, seed=3)
    getattr(ember, op)(a, b).to_padded_tensor(0).sum().backward()
    getattr(torch, op)(at, bt).to_padded_tensor(0).sum().backward()
    close(a.grad, at.grad)
    close(b.grad, bt.grad)


def test_binary_operators_and_comparisons():
    check(lambda lib, F, x: (x + x * 3 - 1) / 2, SHAPES["2d"])
    check(lambda lib, F, x: 2 * x + lib.add(x, x, alpha=2), SHAPES["2d"])
    for op in ("eq", "gt", "ge"):
        check(lambda lib, F, x: getattr(x, op)(0.0), SHAPES["2d"], grad=False)
    e = ember.nested.nested_tensor([[1, 2], [3]])
    t = torch.nested.nested_tensor([[1, 2], [3]])
    close(e * 1.5, t * 1.5)
    close(e / 2, t / 2)


def test_binary_bad_input():
    e, t = pair(SHAPES["2d"])
    other, _ = pair([(4, 3), (2, 3), (1, 3)])
    with pytest.raises(RuntimeError, match="add does not support broadcasting"):
        e + other
    with pytest.raises(RuntimeError, match="does not support broadcasting"):
        e * ember.nested.nested_tensor([ember.zeros(2, 3)])
    with pytest.raises(RuntimeError, match="mul: expected both self and other to be nested"):
        e * ember.zeros(3)
    with pytest.raises(RuntimeError, match="eq does not support nested tensor"):
        e == e
    for name in ("lt", "maximum", "pow"):  # torch refuses these too
        with pytest.raises(NotImplementedError):
            getattr(torch, name)(t, t)
        with pytest.raises(NotImplementedError, match=name):
            getattr(ember, name)(e, e)
    with pytest.raises(NotImplementedError):
        1 - t
    with pytest.raises(NotImplementedError, match="rsub"):
        1 - e


def test_masked_fill():
    def fn(lib, F, x):
        mask = lib.nested.nested_tensor([c.detach() > 0 for c in x.unbind()])
        return x.masked_fill(mask, -2.0).masked_fill(lib.tensor(False), 9.0)
    check(fn, SHAPES["2d"])
    e, _ = pair(SHAPES["2d"])
    with pytest.raises(RuntimeError, match="boolean masks"):
        e.masked_fill(e, 0.0)
    with pytest.raises(RuntimeError, match="masked_fill: expected both self and mask"):
        e.masked_fill(ember.ones(3, dtype=ember.bool), 0.0)
    with pytest.raises(NotImplementedError, match="tensor fill value"):
        e.masked_fill(e > 0, ember.tensor(1.0))


# ---- dims, products, layers ------------------------------------------------------------------

@pytest.mark.parametrize("dim", [-1, 1, 2])
def test_softmax(dim):
    check(lambda lib, F, x: F.softmax(x, dim), SHAPES["3d"])
    check(lambda lib, F, x: lib.softmax(x, min(dim, 2)), SHAPES["2d"])
    check(lambda lib, F, x: x.softmax(-1), SHAPES["1d"][:2])
    check(lambda lib, F, x: F.softmax(x.float(), -1, dtype=lib.float64), SHAPES["2d"], rtol=1e-5)
    e, t = pair(SHAPES["2d"])
    with pytest.raises(RuntimeError, match="softmax across nested dimension 0"):
        EF.softmax(e, 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        EF.softmax(e, 3)
    with pytest.raises(NotImplementedError):
        TF.log_softmax(t, -1)
    with pytest.raises(NotImplementedError, match="log_softmax"):
        EF.log_softmax(e, -1)


def test_transpose():
    check(lambda lib, F, x: x.transpose(1, 2).contiguous(), SHAPES["2d"])
    check(lambda lib, F, x: x.transpose(-1, -3).mT.contiguous(), SHAPES["3d"])
    e, _ = pair(SHAPES["2d"])
    with pytest.raises(RuntimeError, match="dimension 0 cannot be transposed"):
        e.transpose(0, 1)
    with pytest.raises(NotImplementedError, match="permute"):
        e.T


def test_matmul_bmm():
    check(lambda lib, F, x: lib.matmul(x, x.transpose(1, 2)), SHAPES["2d"])
    check(lambda lib, F, x: lib.bmm(x.transpose(1, 2), x), SHAPES["2d"])
    check(lambda lib, F, x: x @ x.transpose(-1, -2), SHAPES["3d"])
    w = np.random.default_rng(2).standard_normal((3, 3, 5))
    check(lambda lib, F, x: lib.bmm(x, lib.tensor(w)), SHAPES["2d"])
    e, _ = pair(SHAPES["2d"])
    with pytest.raises(RuntimeError, match="matmul: expected both to be nested"):
        ember.matmul(e, ember.zeros(3, 5))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        ember.matmul(e, e)
    with pytest.raises(RuntimeError, match="only inputs with >= 3 dims"):
        ember.matmul(*pair(SHAPES["1d"])[:1] * 2)
    with pytest.raises(RuntimeError, match="bmm: batch1 and batch2 must be 3D"):
        ember.bmm(*pair(SHAPES["3d"])[:1] * 2)


def test_linear_and_layers():
    rng = np.random.default_rng(5)
    w, b = rng.standard_normal((4, 3)), rng.standard_normal(4)
    check(lambda lib, F, x: F.linear(x, lib.tensor(w), lib.tensor(b)), SHAPES["2d_empty"])
    check(lambda lib, F, x: F.linear(x, lib.tensor(w)), SHAPES["2d"])
    g, beta = rng.standard_normal(3), rng.standard_normal(3)
    check(lambda lib, F, x: F.layer_norm(x, (3,), lib.tensor(g), lib.tensor(beta), 1e-3),
          SHAPES["3d"])
    check(lambda lib, F, x: F.layer_norm(x, (2, 3), lib.ones(2, 3, dtype=lib.float64),
                                         lib.zeros(2, 3, dtype=lib.float64)), SHAPES["3d"][:1])
    # nn modules: gradients into their parameters too
    lt, nt_ = torch.nn.Linear(3, 4).double(), torch.nn.LayerNorm(4).double()
    le, ne = ember.nn.Linear(3, 4).double(), ember.nn.LayerNorm(4).double()
    le.load_state_dict({k: ember.tensor(v.numpy()) for k, v in lt.state_dict().items()})
    e, t = pair(SHAPES["2d"], requires_grad=True)
    close(ne(le(e)), nt_(lt(t)))
    ne(le(e)).to_padded_tensor(0).pow(2).sum().backward()
    nt_(lt(t)).to_padded_tensor(0).pow(2).sum().backward()
    close(e.grad, t.grad)
    close(le.weight.grad, lt.weight.grad)
    close(le.bias.grad, lt.bias.grad)
    with pytest.raises(RuntimeError, match="linear: requires nested_tensor.dim == 3"):
        EF.linear(pair(SHAPES["1d"])[0], ember.zeros(4, 3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="linear: shape mismatch"):
        EF.linear(e, ember.zeros(4, 5, dtype=ember.float64))
    with pytest.raises(ValueError, match="requires weight and bias"):
        EF.layer_norm(e, (3,))
    with pytest.raises(RuntimeError, match="normalized_shape"):
        EF.layer_norm(e, (4,), ember.ones(4), ember.zeros(4))


def test_dropout():
    e, t = pair([(50, 40), (30, 40)], requires_grad=True)
    close(EF.dropout(e, 0.5, training=False), TF.dropout(t, 0.5, training=False))
    close(ember.nn.Dropout(0.3).eval()(e), torch.nn.Dropout(0.3).eval()(t))
    out = EF.dropout(e, 0.5)
    assert out.is_nested and out._nested_tensor_size().tolist() == [[50, 40], [30, 40]]
    for c, x in zip(out.unbind(), e.unbind()):
        kept = c != 0
        assert 0.35 < kept.float().mean().item() < 0.65
        np.testing.assert_allclose(c[kept].detach().numpy(), 2 * x[kept].detach().numpy())
    out.to_padded_tensor(0).sum().backward()
    for g, c in zip(e.grad.unbind(), out.unbind()):
        np.testing.assert_allclose(g.numpy(), 2.0 * (c != 0).double().numpy())
    close(EF.dropout(e, 1.0).to_padded_tensor(3.0), TF.dropout(t, 1.0).to_padded_tensor(3.0))


def test_sum():
    check(lambda lib, F, x: x.sum(-1, keepdim=True), SHAPES["2d_empty"])
    check(lambda lib, F, x: lib.sum(x, [3], keepdim=True), SHAPES["3d"])
    e, t = pair(SHAPES["2d"])
    for call, match in [(lambda x: x.sum(-1), "keepdim=True"),
                        (lambda x: x.sum(1, keepdim=True), "last dimension"),
                        (lambda x: x.sum([1, 2], keepdim=True), "single dimension"),
                        (lambda x: x.sum(-1, keepdim=True, dtype=ember.float32), "dtype")]:
        with pytest.raises(RuntimeError):
            call(t) if "dtype" not in match else t.sum(-1, keepdim=True, dtype=torch.float32)
        with pytest.raises(RuntimeError, match=match):
            call(e)
    with pytest.raises(NotImplementedError, match="full reduction"):
        e.sum()


def test_copies_and_conversions():
    check(lambda lib, F, x: x.clone() * 2, SHAPES["2d"])
    check(lambda lib, F, x: x.to(lib.float32).double(), SHAPES["3d"], rtol=1e-6)
    check(lambda lib, F, x: x.float(), SHAPES["1d"], rtol=1e-6, grad=False)
    e, t = pair(SHAPES["2d"], requires_grad=True)
    d = e.detach()
    assert d.is_nested and not d.requires_grad
    close(d, t.detach())
    close(ember.zeros_like(e), torch.zeros_like(t))
    close(ember.ones_like(e), torch.ones_like(t))
    f, ft = pair(SHAPES["2d"])
    f.mul_(2).add_(f)
    ft.mul_(2).add_(ft)
    close(f, ft)
    g, gt = pair(SHAPES["2d"], seed=7)
    f.add_(g, alpha=-1).mul_(3).relu_().neg_().abs_().tanh_()
    ft.add_(gt, alpha=-1).mul_(3).relu_().neg_().abs_().tanh_()
    close(f, ft)
    f += g
    f *= 2
    ft += gt
    ft *= 2
    close(f, ft)
    for name in ("sub_", "div_", "clamp_"):  # torch 2.13 refuses these
        with pytest.raises(NotImplementedError):
            getattr(ft, name)(1.0)
        with pytest.raises(NotImplementedError, match=name):
            getattr(f, name)(1.0)
    d, dt = pair(SHAPES["2d"], requires_grad=True)
    d, dt = d * 2, dt * 2
    d.detach_()
    dt.detach_()
    assert d.is_nested and not d.requires_grad and d.grad_fn is None
    close(d, dt)
    f.copy_(g)
    ft.copy_(gt)
    close(f, ft)
    f.fill_(2.5)
    ft.fill_(2.5)
    close(f.to_padded_tensor(1), ft.to_padded_tensor(1))
    f.zero_()
    ft.zero_()
    close(f.to_padded_tensor(1), ft.to_padded_tensor(1))
    f.normal_()
    assert f.is_nested and bool((f.to_padded_tensor(0) != 0).any())
    for like in ("empty_like", "randn_like"):
        out = getattr(ember, like)(e)
        assert out.is_nested and out._nested_tensor_size().tolist() == \
            getattr(torch, like)(t)._nested_tensor_size().tolist()
    with pytest.raises(RuntimeError, match="add_ does not support broadcasting"):
        f.add_(ember.nested.nested_tensor([ember.zeros(1)]))
    with pytest.raises(RuntimeError, match="expected a nested tensor of the same structure"):
        f.add_(ember.zeros(3))
    close(e.half(), t.half(), rtol=1e-3, atol=1e-3)


def test_repr_matches_torch():
    for shapes in (SHAPES["1d"], SHAPES["2d"]):
        e, t = pair(shapes, "float32")
        assert repr(e) == repr(t).replace("torch.", "ember.")
    assert repr(ember.nested.nested_tensor([])) == repr(torch.nested.nested_tensor([]))
    e, t = pair([(2,)], requires_grad=True)
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_jagged_not_implemented_and_not_counted():
    assert ember.nested.nested_tensor_from_jagged._ember_not_implemented
    with pytest.raises(NotImplementedError, match="jagged layout is not implemented"):
        ember.nested.nested_tensor_from_jagged(ember.zeros(6, 3), ember.tensor([0, 2, 6]))
    with pytest.raises(NotImplementedError, match="layout=ember.jagged"):
        ember.nested.nested_tensor([ember.zeros(2)], layout=ember.jagged)
    with pytest.raises(NotImplementedError, match="jagged"):
        ember.nested.masked_select(ember.zeros(2), ember.ones(2, dtype=ember.bool))
    with pytest.raises(TypeError, match="only lists"):
        ember.nested.nested_tensor(ember.zeros(2, 3))
    with pytest.raises(RuntimeError, match="same dimension"):
        ember.nested.nested_tensor([ember.zeros(2), ember.zeros(2, 3)])


def test_unsupported_op_names_the_op():
    e, _ = pair(SHAPES["2d"])
    with pytest.raises(NotImplementedError, match="cumsum: not supported for nested tensors"):
        e.cumsum(1)
    with pytest.raises(RuntimeError, match="len\\(\\) of a nested tensor"):
        len(e)
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(e)


def test_pickle_and_deepcopy():
    import copy
    import pickle
    e, t = pair(SHAPES["2d"], requires_grad=True)
    for out in (pickle.loads(pickle.dumps(e)), copy.deepcopy(e)):
        assert out.is_nested and out.is_leaf and out.requires_grad
        close(out, t)


def test_save_and_load_in_torch_format(tmp_path):
    """torch.save writes _rebuild_nested_tensor(buffer, sizes, strides, offsets): ember writes
    and reads the same, both ways (a transposed torch nested tensor: strided components)."""
    e, t = pair(SHAPES["2d"], requires_grad=True)
    ember.save({"nt": e, "x": ember.ones(2)}, tmp_path / "e.pt")
    back = ember.load(tmp_path / "e.pt")  # weights_only: the name is on the allowlist
    assert back["nt"].is_leaf and back["nt"].requires_grad
    close(back["nt"], t)
    close(torch.load(tmp_path / "e.pt")["nt"], t)
    torch.save({"nt": t.detach(), "tr": t.detach().transpose(1, 2)}, tmp_path / "t.pt")
    got = ember.load(tmp_path / "t.pt")
    close(got["nt"], t.detach())
    close(got["tr"], torch.nested.nested_tensor([c.t() for c in t.detach().unbind()]))
    empty = ember.nested.nested_tensor([])
    ember.save(empty, tmp_path / "empty.pt")
    assert ember.load(tmp_path / "empty.pt").size(0) == 0


def test_values_is_the_buffer():
    e, t = pair(SHAPES["2d"])
    close(e.values(), t.values())
    v = e.contiguous().values()
    v += 1  # a view, as torch's (PyG's from_nested_tensor relies on it)
    close(e, torch.nested.nested_tensor([x + 1 for x in t.unbind()]))


def _attention_modules(lib, state):
    mods = [lib.nn.MultiheadAttention(8, 2, batch_first=True),
            lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(
                8, 2, 16, batch_first=True, activation="gelu"), 2, norm=lib.nn.LayerNorm(8))]
    if state is not None:
        for m, s in zip(mods, state):
            m.load_state_dict({k: lib.tensor(v) for k, v in s.items()})
    return [m.eval() for m in mods]


def test_attention_layers_take_nested_input_like_torch():
    """torch's fast path (eval, no grad, self-attention, batch_first) runs
    MultiheadAttention, TransformerEncoderLayer and TransformerEncoder on a nested input; ember
    gives the same nested outputs and padded weights, and torch's AssertionError elsewhere."""
    mt = _attention_modules(torch, None)
    state = [{k: v.detach().numpy() for k, v in m.state_dict().items()} for m in mt]
    me = _attention_modules(ember, state)
    a = [x.astype("float32") for x in arrays([(2, 8), (5, 8), (1, 8)])]
    xt = torch.nested.nested_tensor([torch.tensor(x) for x in a])
    xe = ember.nested.nested_tensor([ember.tensor(x) for x in a])
    calls = [lambda m, x: m[0](x, x, x, need_weights=False)[0],
             lambda m, x: m[0](x, x, x)[1],
             lambda m, x: m[0](x, x, x, average_attn_weights=False)[1],
             lambda m, x: m[1](x), lambda m, x: m[2](x)]
    with torch.no_grad(), ember.no_grad():
        for call in calls:
            close(call(me, xe), call(mt, xt), rtol=1e-5, atol=1e-6)
        for x, lib in ((xt, "torch"), (xe, "ember")):
            mods = mt if lib == "torch" else me
            with pytest.raises(AssertionError, match="non-self attention"):
                mods[0](x, x.clone(), x.clone())
    for x, mods in ((xt, mt), (xe, me)):  # grad enabled: torch leaves its fast path
        with pytest.raises(AssertionError, match="grad is enabled"):
            mods[1](x)


def test_reshape_view_unsqueeze_squeeze():
    shapes = [(2, 6), (4, 6)]
    for shape in [(2, -1, 6), (2, -1, 3, 2), (2, -1, 2, 3)]:
        check(lambda lib, F, x: x.reshape(*shape) * 1, shapes)
        check(lambda lib, F, x: x.view(shape) * 1, shapes)
    for d in (1, 2, 3, -1, -2):
        check(lambda lib, F, x: x.unsqueeze(d) * 1, shapes)
    for d in (2, -2):
        check(lambda lib, F, x: x.unsqueeze(2).squeeze(d) * 1, shapes)
    for d in (1, 3, -1):  # no size-1 dim there: unchanged (torch's backward of it raises)
        check(lambda lib, F, x: x.unsqueeze(2).squeeze(d) * 1, shapes, grad=False)
    e, t = pair(shapes)
    v = e.view(2, -1, 3, 2)
    v.mul_(0)  # a view of the same buffer
    assert e.to_padded_tensor(1).sum().item() == 12  # only the padding
    for call in [lambda x: x.reshape(-1, -1, 6), lambda x: x.reshape(4, -1, 6),
                 lambda x: x.reshape(2, 2, 6), lambda x: x.view(2, -1),
                 lambda x: x.view(2, 6, -1), lambda x: x.unsqueeze(0), lambda x: x.squeeze(),
                 lambda x: x.squeeze(0)]:
        with pytest.raises(RuntimeError):
            call(t)
        with pytest.raises(RuntimeError, match="reshape|view|unsqueeze|squeeze"):
            call(e)
    with pytest.raises(IndexError, match="Dimension out of range"):
        e.unsqueeze(4)


def test_chunk_and_cat():
    shapes = [(2, 6), (4, 6)]
    for chunks in (2, 3):
        e, t = pair(shapes, requires_grad=True)
        oe, ot = e.chunk(chunks, -1), ember.chunk(e, chunks, 2)
        ot2 = t.chunk(chunks, -1)
        assert len(oe) == len(ot2) == chunks
        for a, b, c in zip(oe, ot, ot2):
            close(a, c)
            close(b, c)
    a = arrays(shapes)
    tc = [torch.tensor(x) for x in a]
    # the reference is built from dense cats of the components: torch 2.13's nested cat raises
    # with grad ("doesn't support sizes") and its dim=1 result cannot be unbound (out of bounds)
    want = {0: tc + [2 * c for c in tc], 1: [torch.cat([c, 2 * c], 0) for c in tc],
            -1: [torch.cat([c, 2 * c], -1) for c in tc]}
    close(ember.cat([pair(shapes)[0]] * 2, -1), torch.cat([pair(shapes)[1]] * 2, -1))
    for dim in (0, 1, -1):
        e = ember.nested.nested_tensor([ember.tensor(x) for x in a])
        close(ember.cat([e, e * 2], dim), torch.nested.nested_tensor(want[dim]))
        e, _ = pair(shapes, requires_grad=True)
        ember.cat([e, e * 2], dim).to_padded_tensor(0).sum().backward()
        close(e.grad, torch.nested.nested_tensor([torch.full(s, 3.0, dtype=torch.float64)
                                                  for s in shapes]))
    e, t = pair(shapes)
    with pytest.raises(RuntimeError, match="divisible by chunks"):
        e.chunk(4, -1)
    with pytest.raises(RuntimeError, match="only the last dimension"):
        e.chunk(2, 1)
    with pytest.raises(RuntimeError, match="expected each tensor in the given list to be nested"):
        ember.cat([e, ember.zeros(2, 4, 6)], -1)


def test_scaled_dot_product_attention():
    q_shapes = [(2, 3, 4), (2, 5, 4)]
    kv = [x for x in arrays([(2, 7, 4), (2, 1, 4)], seed=9)]

    def fn(lib, F, q):
        k = lib.nested.nested_tensor([lib.tensor(x) for x in kv])
        return F.scaled_dot_product_attention(q, k, k * 2, scale=0.3)
    check(fn, q_shapes, rtol=1e-5, atol=1e-8)
    check(lambda lib, F, q: F.scaled_dot_product_attention(q, q, q), q_shapes, rtol=1e-5,
          atol=1e-8)
    e, _ = pair(q_shapes)
    with pytest.raises(RuntimeError, match="is_causal=True"):
        EF.scaled_dot_product_attention(e, e, e, is_causal=True)
    with pytest.raises(RuntimeError, match="attn_mask"):
        EF.scaled_dot_product_attention(e, e, e, attn_mask=ember.ones(3, 3, dtype=ember.bool))
    with pytest.raises(RuntimeError, match="all nested"):
        EF.scaled_dot_product_attention(e, ember.zeros(2, 2, 3, 4), ember.zeros(2, 2, 3, 4))


def test_embedding():
    idx = [[1, 2, 3], [0], []]
    w = np.random.default_rng(3).standard_normal((4, 3))
    we, wt = ember.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ie = ember.nested.nested_tensor([ember.tensor(i, dtype=ember.int64) for i in idx])
    it = torch.nested.nested_tensor([torch.tensor(i, dtype=torch.int64) for i in idx])
    close(EF.embedding(ie, we, padding_idx=0), TF.embedding(it, wt, padding_idx=0))
    close(ember.nn.Embedding(4, 3)(ie).to_padded_tensor(0).shape == (3, 3, 3) and
          EF.embedding(ie, we), TF.embedding(it, wt))
    # torch 2.13 has no nested embedding backward: the reference is the dense one of each
    EF.embedding(ie, we).to_padded_tensor(0).pow(2).sum().backward()
    sum(TF.embedding(torch.tensor(i, dtype=torch.int64), wt).pow(2).sum() for i in idx).backward()
    close(we.grad, wt.grad)
    with pytest.raises(RuntimeError, match="components of one dim"):
        EF.embedding(ember.nested.nested_tensor([ember.zeros(1, 2, dtype=ember.int64)]), we)
