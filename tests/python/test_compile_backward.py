"""ember.compile records backward() as the ops its nodes make (Note [Expanded backward] in
docs/compile.md) and replays a training step without autograd (Note [Flat replay]): the
replay gives eager's bits, parameters and their .grad included, and anything the recording
cannot stand for (a hook, a custom Function, a graph still needed) keeps the backward whole."""
import numpy as np
import pytest

import ember

F = ember.nn.functional


def _bits(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _bits(x, y)
        return
    if a is None or b is None:
        assert a is None and b is None
        return
    assert a.shape == b.shape and a.dtype == b.dtype
    assert a.detach().contiguous().numpy().tobytes() == b.detach().contiguous().numpy().tobytes()


def _x(*shape, seed=0, dtype="float32"):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _sgd_by_hand(lr, *params):
    """p -= lr * p.grad, then p.grad = None, for each p (a training step's manual update)."""
    with ember.no_grad():
        for p in params:
            p.sub_(lr * p.grad)
            p.grad = None


def _graph(cf):
    gs = [e.graph for e in cf._ember_compiled.entries if e.graph is not None]
    assert gs, ember.compile.explain(cf).break_reasons
    return gs[-1]


def _twins(make, steps=4, args=()):
    """Runs make()'s step eagerly and compiled side by side; checks every result, parameter
    and .grad bit for bit; returns the compiled step."""
    (m1, s1), (m2, s2) = make(), make()
    c2 = ember.compile(s2)
    for _ in range(steps):
        _bits(c2(*args), s1(*args))
        for p, q in zip(m1, m2):
            _bits(q, p)
            _bits(q.grad, p.grad)
    return c2


def _mlp(opt_name, **kw):
    def make():
        ember.manual_seed(0)
        model = ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 3))
        opt = getattr(ember.optim, opt_name)(model.parameters(), lr=0.01, **kw)
        x, y = _x(12, 8), ember.tensor(np.arange(12) % 3)

        def step():
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss
        return list(model.parameters()), step
    return make


@pytest.mark.parametrize("opt_name,kw", [
    ("SGD", {}), ("SGD", {"momentum": 0.9, "nesterov": True}), ("SGD", {"weight_decay": 0.1}),
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("AdamW", {}), ("RMSprop", {"momentum": 0.5}),
    ("Adagrad", {})])
def test_every_optimizer_flat_and_bit_identical(opt_name, kw):
    c = _twins(_mlp(opt_name, **kw), steps=5)
    g = _graph(c)
    assert g.flat and "backward" not in g.op_names() and g.notes() == []


def test_nll_after_log_softmax_and_zero_grad_keeping_buffers():
    def make():
        ember.manual_seed(1)
        lin = ember.nn.Linear(5, 4)
        x, y = _x(7, 5, seed=2), ember.tensor(np.arange(7) % 4)

        def step():
            loss = F.nll_loss(F.log_softmax(lin(x), 1), y)
            loss.backward()
            with ember.no_grad():
                for p in lin.parameters():
                    p -= 0.1 * p.grad
                    p.grad.zero_()  # .grad kept: the next backward adds into it
            return loss
        return list(lin.parameters()), step
    g = _graph(_twins(make))
    assert g.flat, g.notes()


def test_in_place_ops_and_views_in_a_training_step():
    def make():
        w = _x(4, 6, seed=3).requires_grad_()
        b = _x(6, seed=4).requires_grad_()
        x = _x(5, 4, seed=5)

        def step():
            h = x.mm(w)
            h.add_(b)                      # in place on a non-leaf
            v = h.view(5, 2, 3).transpose(0, 1)
            r = v.unsqueeze(0).relu()
            loss = (r * r).sum() + h[:, :2].mean()
            loss.backward()
            _sgd_by_hand(0.01, w, b)
            return loss
        return [w, b], step
    g = _graph(_twins(make))
    # an in-place op on a view rewrites history through tensors the recorder does not see:
    # the backward may be kept whole, and then says why
    assert g.flat or ("backward" in g.op_names() and g.notes())


def test_grad_left_for_the_caller():
    """No optimizer in the function: the caller reads .grad after each replay."""
    def make():
        w = _x(3, 3, seed=6).requires_grad_()
        x = _x(4, 3, seed=7)

        def step():
            (x.mm(w).tanh() ** 2).mean().backward()
        return [w], step
    (m1, s1), (m2, s2) = make(), make()
    c = ember.compile(s2)
    for _ in range(4):  # .grad accumulates across calls, as in eager
        s1()
        c()
        _bits(m2[0].grad, m1[0].grad)
    assert _graph(c).flat


def test_leaf_grad_none_or_not_is_guarded():
    w = _x(3, 2, seed=8).requires_grad_()
    x = _x(4, 3, seed=9)

    def step():
        x.mm(w).sum().backward()
    c = ember.compile(step)
    c()                 # .grad None -> recorded (it changes the guarded state? w is a global)
    c()
    w.grad = None       # the recording that found a .grad must not run now
    c()
    expected = x.t().mm(ember.ones(4, 2))
    _bits(w.grad, expected)
    c()
    _bits(w.grad, expected * 2)


def test_hook_keeps_the_backward_whole():
    def make():
        w = _x(3, 3, seed=10).requires_grad_()
        seen = []
        w.register_hook(lambda g: seen.append(1))
        x = _x(2, 3, seed=11)

        def step():
            loss = x.mm(w).sum()
            loss.backward()
            with ember.no_grad():
                w.sub_(0.1 * w.grad)
                w.grad = None
            return loss
        return [w], step
    c = _twins(make)
    g = _graph(c)
    assert not g.flat and "backward" in g.op_names()
    assert any("hook" in n for n in g.notes())


@pytest.mark.parametrize("case", ["retain_graph", "returns_intermediate", "no_backward"])
def test_a_graph_still_needed_is_built(case):
    """The replay builds the autograd graph when the caller may still use it."""
    w = _x(3, 3, seed=13).requires_grad_()
    x = _x(2, 3, seed=14)

    def step():
        h = x.mm(w)
        loss = h.sum()
        if case == "retain_graph":
            loss.backward(retain_graph=True)
            return loss
        if case == "returns_intermediate":
            loss.backward()
            return h
        return loss
    c = ember.compile(step)
    for _ in range(3):
        w.grad = None
        out = c()
    assert not _graph(c).flat
    assert out.grad_fn is not None
    w.grad = None
    out.sum().backward()
    _bits(w.grad, x.t().mm(ember.ones(2, 3)))


def test_a_failed_expansion_between_expanded_ones_forgets_only_its_own_slots():
    """A backward that cannot be expanded (a hook) after one that was, then another expanded
    one: the recorder forgets only the failed expansion's values (its undo log), so the later
    steps still find the tensors made before it, and the replay gives eager's bits."""
    def make():
        a = _x(3, 3, seed=20).requires_grad_()
        w = _x(3, 3, seed=21).requires_grad_()
        seen = []
        w.register_hook(lambda g: seen.append(1))
        x = _x(2, 3, seed=22)

        def step():
            h = x.mm(a)
            la = h.sum()
            la.backward()
            lw = (x.mm(w) * h.detach()).sum()
            lw.backward()
            lb = (x.mm(a) + h.detach()).pow(2).mean()
            lb.backward()
            _sgd_by_hand(0.1, a, w)
            return la.detach(), lw.detach(), lb.detach()
        return [a, w], step
    c = _twins(make, steps=5)
    g = _graph(c)
    assert "backward" in g.op_names() and any("hook" in n for n in g.notes())
    assert g.op_names().count("set_grad") >= 2  # both other backwards were expanded
