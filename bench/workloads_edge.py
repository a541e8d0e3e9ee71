"""Elementwise ops on the input ranges real programs reach (issue 17 item 1): huge arguments
of sin/cos, exp where it overflows, sigmoid of large negatives, NaN (padding), -inf
(causal masks before softmax), huge logits. Each row also times ember on standard-normal
input of the same size (the `ember/own` column: 1.0 means the range costs nothing extra).
Imported by run.py to register them."""
from common import OWN, Skip, workload

N = 1_000_000


def _inputs(L, kind, seed=0):
    np = L["numpy"]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(N).astype("float32")
    if kind == "1e30":
        x = x * np.float32(1e30)
    elif kind == "overflow":
        x = rng.uniform(89, 1000, N).astype("float32")
    elif kind == "-100":
        x = x * np.float32(0.1) - np.float32(100)
    elif kind == "-95":
        x = x * np.float32(0.1) - np.float32(95)
    elif kind == "1e-40":
        x = x * np.float32(1e-40)
    elif kind == "nan":
        x = np.full(N, np.nan, "float32")
    elif kind == "large":
        x = x * np.float32(1e4)
    elif kind == "causal":  # rows of 1000 with the upper triangle at -inf, as masked_fill does
        x = x.reshape(1000, 1000)
        x[np.triu_indices(1000, 1)] = -np.inf
        x = x.ravel()
    return {"numpy": x, "torch": L["torch"].tensor(x), "ember": L["ember"].tensor(x)}


def _edge(name, fn, kind, reference="randn"):
    """Register `name`: fn(module, x) on `kind` inputs, ember also on `reference` inputs."""
    @workload(name, note=f"1M f32; ember/own: over ember's time on {reference}")
    def make(L):
        x, r = _inputs(L, kind), _inputs(L, reference)
        out = {lib: (lambda m=L[lib], v=x[lib]: fn(m, v)) for lib in ("ember", "torch")}
        out[OWN] = lambda m=L["ember"], v=r["ember"]: fn(m, v)
        out["numpy"] = Skip("not compared")
        return out
    return make


def _rows(v):
    return v.view(1000, 1000)


def _fwd_bwd(m, fn, x):
    """fn(x) and its backward with a gradient of ones (x is a fresh leaf each call)."""
    leaf = x.detach().requires_grad_(True)
    y = fn(leaf)
    y.backward(m.ones_like(y))
    return leaf.grad


_EDGE = [
    ("sin, |x| ~ 1e30", lambda m, x: m.sin(x), "1e30"),
    ("cos, |x| ~ 1e30", lambda m, x: m.cos(x), "1e30"),
    ("sin, NaN", lambda m, x: m.sin(x), "nan"),
    ("exp, overflow (x in [89, 1000])", lambda m, x: m.exp(x), "overflow"),
    ("exp, NaN", lambda m, x: m.exp(x), "nan"),
    ("tanh, NaN", lambda m, x: m.tanh(x), "nan"),
    ("sigmoid, x ~ -100", lambda m, x: m.sigmoid(x), "-100"),
    ("sigmoid, NaN", lambda m, x: m.sigmoid(x), "nan"),
    ("erf, randn", lambda m, x: m.erf(x), "randn"),
    ("erf, NaN", lambda m, x: m.erf(x), "nan"),
    ("erfc, randn", lambda m, x: m.erfc(x), "randn"),
    ("erfinv, 0.3 randn", lambda m, x: m.erfinv(x * 0.3), "randn"),
    ("gelu, NaN", lambda m, x: m.nn.functional.gelu(x), "nan"),
    ("gelu, |x| ~ 1e4", lambda m, x: m.nn.functional.gelu(x), "large"),
    ("gelu tanh, NaN", lambda m, x: m.nn.functional.gelu(x, approximate="tanh"), "nan"),
    ("silu, x ~ -100", lambda m, x: m.nn.functional.silu(x), "-100"),
    ("silu, NaN", lambda m, x: m.nn.functional.silu(x), "nan"),
    ("silu fwd+bwd, x ~ -100", lambda m, x: _fwd_bwd(m, m.nn.functional.silu, x), "-100"),
    ("softplus, |x| ~ 1e4", lambda m, x: m.nn.functional.softplus(x), "large"),
    ("softplus, x ~ -100", lambda m, x: m.nn.functional.softplus(x), "-100"),
    ("softplus, NaN", lambda m, x: m.nn.functional.softplus(x), "nan"),
    ("mish, x ~ -100", lambda m, x: m.nn.functional.mish(x), "-100"),
    ("mish, NaN", lambda m, x: m.nn.functional.mish(x), "nan"),
    ("softplus fwd+bwd, x ~ -100", lambda m, x: _fwd_bwd(m, m.nn.functional.softplus, x), "-100"),
    ("mish fwd+bwd, x ~ -100", lambda m, x: _fwd_bwd(m, m.nn.functional.mish, x), "-100"),
    ("exp, x ~ -95 (denormal results)", lambda m, x: m.exp(x), "-95"),
    ("elu, x ~ -100", lambda m, x: m.nn.functional.elu(x), "-100"),
    ("tanh, |x| ~ 1e-40 (denormal inputs)", lambda m, x: m.tanh(x), "1e-40"),
    ("hardswish, NaN", lambda m, x: m.nn.functional.hardswish(x), "nan"),
    ("logsigmoid, x ~ -100", lambda m, x: m.nn.functional.logsigmoid(x), "-100"),
    ("logsigmoid, NaN", lambda m, x: m.nn.functional.logsigmoid(x), "nan"),
    ("softmax rows of 1000, causal -inf mask", lambda m, x: m.softmax(_rows(x), -1), "causal"),
    ("softmax rows of 1000, logits ~ 1e4", lambda m, x: m.softmax(_rows(x), -1), "large"),
    ("log_softmax rows of 1000, causal -inf mask", lambda m, x: m.log_softmax(_rows(x), -1),
     "causal"),
    ("logsumexp rows of 1000, causal -inf mask", lambda m, x: m.logsumexp(_rows(x), -1),
     "causal"),
]

for _name, _fn, _kind in _EDGE:
    _edge(_name, _fn, _kind)

