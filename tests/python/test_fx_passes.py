"""ember.fx's graph tools against torch.fx 2.13: Graph editing, Interpreter, Transformer,
replace_pattern, ShapeProp, Proxy-based inlining."""
import gc
import operator

import numpy as np
import pytest
import torch
import torch.fx
import torch.fx.passes.shape_prop

import ember
import ember.fx
import ember.fx.passes.shape_prop


def _net(m):
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(4, 3)

        def forward(self, x):
            y = m.relu(self.fc(x))
            return m.sigmoid(y) + y.neg().exp()
    return Net()


def _pair():
    tm, em = _net(torch), _net(ember)
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    return tm, em, x


def _close(a, b):
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_interpreter_runs_and_can_be_overridden():
    tm, em, x = _pair()

    def interpreter(m):
        class SwapReluForTanh(m.fx.Interpreter):
            def call_function(self, target, args, kwargs):
                if target is m.relu:
                    target = m.tanh
                return super().call_function(target, args, kwargs)
        return SwapReluForTanh
    tg, eg = torch.fx.symbolic_trace(tm), ember.fx.symbolic_trace(em)
    _close(tg(torch.tensor(x)), ember.fx.Interpreter(eg).run(ember.tensor(x)))
    _close(interpreter(torch)(tg).run(torch.tensor(x)),
           interpreter(ember)(eg).run(ember.tensor(x)))


def test_transformer_rewrites_the_graph():
    tm, em, x = _pair()

    def transformer(m):
        class ReluToTanh(m.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target is m.relu:
                    return m.tanh(*args)
                if target is operator.add:
                    return args[0] * args[1]
                return super().call_function(target, args, kwargs)
        return ReluToTanh
    tg = transformer(torch)(torch.fx.symbolic_trace(tm)).transform()
    eg = transformer(ember)(ember.fx.symbolic_trace(em)).transform()
    assert eg.code == tg.code.replace("torch.", "ember.")
    _close(tg(torch.tensor(x)), eg(ember.tensor(x)))


def test_replace_pattern_as_torch():
    def model(m):
        class M(m.nn.Module):
            def forward(self, x, w1, w2):
                m1 = m.cat([m.neg(w1), w2]).sum()
                m2 = m.cat([m.neg(w1), w2]).sum()
                return x + m.max(m1) + m.max(m2)
        return M()

    def pattern(m):
        return lambda a1, a2: m.cat([m.neg(a1), a2]).sum()

    def replacement(m):
        return lambda w1, w2: m.stack([w1, w2])
    tg, eg = torch.fx.symbolic_trace(model(torch)), ember.fx.symbolic_trace(model(ember))
    tm = torch.fx.replace_pattern(tg, pattern(torch), replacement(torch))
    em = ember.fx.replace_pattern(eg, pattern(ember), replacement(ember))
    assert eg.code == tg.code.replace("torch.", "ember.")
    assert len(em) == len(tm) == 2
    assert [n.name for n in em[0].nodes_map.values()] == [n.name for n in tm[0].nodes_map.values()]
    xs = [np.random.default_rng(i).standard_normal(3).astype(np.float32) for i in range(3)]
    _close(tg(*map(torch.tensor, xs)), eg(*map(ember.tensor, xs)))


def test_replace_pattern_skips_matches_used_elsewhere():
    def f(x):
        a = ember.relu(x)
        return ember.neg(a), a          # `a` escapes: relu->neg is not replaceable
    gm = ember.fx.symbolic_trace(f)
    assert ember.fx.replace_pattern(gm, lambda x: ember.neg(ember.relu(x)),
                                    lambda x: ember.exp(x)) == []
    gm2 = ember.fx.symbolic_trace(lambda x: ember.neg(ember.relu(x)) * 2)
    assert len(ember.fx.replace_pattern(gm2, lambda x: ember.neg(ember.relu(x)),
                                        lambda x: ember.exp(x))) == 1
    assert gm2(ember.zeros(2)).tolist() == [2.0, 2.0]


def test_shape_prop_matches_torch():
    tm, em, x = _pair()
    tg, eg = torch.fx.symbolic_trace(tm), ember.fx.symbolic_trace(em)
    torch.fx.passes.shape_prop.ShapeProp(tg).propagate(torch.tensor(x))
    ember.fx.passes.shape_prop.ShapeProp(eg).propagate(ember.tensor(x))
    for tn, en in zip(tg.graph.nodes, eg.graph.nodes):
        tmeta, emeta = tn.meta.get("tensor_meta"), en.meta.get("tensor_meta")
        assert (tmeta is None) == (emeta is None)
        if tmeta is not None:
            assert tuple(emeta.shape) == tuple(tmeta.shape)
            assert str(emeta.dtype).split(".")[-1] == str(tmeta.dtype).split(".")[-1]
            assert emeta.stride == tmeta.stride and emeta.requires_grad == tmeta.requires_grad


def _edit(m):
    """replace_op's recipe: each add becomes bitwise_and, inserted after it."""
    class M(m.nn.Module):
        def forward(self, x, y):
            return x + y, m.add(x, y), x.add(y)
    gm = m.fx.symbolic_trace(M())
    for n in gm.graph.nodes:
        if n.target in (operator.add, m.add, "add"):
            with gm.graph.inserting_after(n):
                new = gm.graph.call_function(m.bitwise_and, n.args, n.kwargs)
                n.replace_all_uses_with(new)
            gm.graph.erase_node(n)
    gm.recompile()
    return gm


def test_graph_editing_while_iterating():
    eg, tg = _edit(ember), _edit(torch)
    assert eg.code == tg.code.replace("torch.", "ember.")
    a, b = [3, 5, 12], [6, 4, 10]
    out = eg(ember.tensor(a), ember.tensor(b))
    assert [t.tolist() for t in out] == [t.tolist() for t in tg(torch.tensor(a), torch.tensor(b))]


def _inline(m):
    """wrap_output_dynamically's recipe: call a traced module on a Proxy of another graph."""
    gm = m.fx.symbolic_trace(lambda x, y: m.cat([x, y]))
    out = [n for n in gm.graph.nodes if n.op == "output"][0]
    last = out.all_input_nodes[0]
    act = m.fx.symbolic_trace(m.nn.LeakyReLU(0.2))
    with gm.graph.inserting_after(last):
        out.args = (act(m.fx.Proxy(last)).node,)
    gm.recompile()
    return gm


def test_inlining_a_traced_module_through_a_proxy():
    eg, tg = _inline(ember), _inline(torch)
    assert [n.op for n in eg.graph.nodes] == [n.op for n in tg.graph.nodes]
    x, y = np.float32([-1.0, 2.0]), np.float32([3.0, -4.0])
    _close(tg(torch.tensor(x), torch.tensor(y)), eg(ember.tensor(x), ember.tensor(y)))
    eg.graph.lint()


def test_graph_built_by_hand_and_lint():
    g = ember.fx.Graph()
    x = g.placeholder("x")
    with g.inserting_after(x):
        s = g.call_method("sin", (x,))
    g.output(g.call_function(ember.mul, (s, 2.0)))
    gm = ember.fx.GraphModule(ember.nn.Module(), g)
    assert gm(ember.zeros(1)).tolist() == [0.0]
    assert [n.name for n in g.nodes] == ["x", "sin", "mul", "output"]
    assert x.next is s and s.prev is x and list(s.users) == [s.next]
    g2 = ember.fx.Graph()
    y = g2.placeholder("y")
    bad = g2.call_method("cos", (y,))
    g2.output(bad)
    bad.prev.prepend(bad)  # move cos before y: y is now used before it is defined
    with pytest.raises(RuntimeError, match="used before it has been defined"):
        g2.lint()
    with pytest.raises(RuntimeError, match="Tried to erase Node"):
        g.erase_node(s)
    dead = g.call_function(ember.exp, (x,))
    g.eliminate_dead_code()
    assert dead not in list(g.nodes)


def _profiled_graph(m):
    """profiling_tracer's recipe: record_function's __enter__/__exit__ become graph calls."""
    class Foo(m.nn.Module):
        def forward(self, x):
            with m.profiler.record_function("foo"):
                return m.relu(x)

    class ProfilerTracer(m.fx.Tracer):
        def trace(self, root, concrete_args=None):
            rf = m.autograd.profiler.record_function
            orig_enter, orig_exit = rf.__enter__, rf.__exit__

            def enter(_self):
                _self._fx_ctx = self.create_proxy("call_function",
                                                  m.ops.profiler._record_function_enter,
                                                  (_self.name,), {})
                return _self._fx_ctx

            def exit_(_self, *exc):
                m.ops.profiler._record_function_exit(_self._fx_ctx)
            rf.__enter__, rf.__exit__ = enter, exit_
            try:
                return super().trace(root, concrete_args)
            finally:
                rf.__enter__, rf.__exit__ = orig_enter, orig_exit
    tracer = ProfilerTracer()
    graph = tracer.trace(Foo())
    return m.fx.GraphModule(tracer.root, graph)


def test_profiler_ranges_in_a_graph():
    eg, tg = _profiled_graph(ember), _profiled_graph(torch)
    assert eg.code == tg.code.replace("torch.", "ember.")
    eg.graph.eliminate_dead_code()  # the range's calls have side effects: they stay
    assert [n.op for n in eg.graph.nodes] == [n.op for n in tg.graph.nodes]
    with ember.profiler.profile() as prof:
        assert eg(ember.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
    assert "foo" in str(prof) and "relu" in str(prof)
    assert ember.autograd.profiler.record_function is ember.profiler.record_function
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="_record_function_exit"):
            lib.ops.profiler._record_function_exit(3)


def _by_hand(m):
    """proxy_based_graph_creation's recipe: Proxies of a hand-made graph, then torch functions."""
    graph = m.fx.Graph()
    tracer = m.fx.proxy.GraphAppendingTracer(graph)
    x = m.fx.Proxy(graph.placeholder("x"), tracer=tracer)
    y = m.fx.Proxy(graph.placeholder("y"), tracer=tracer)
    a = m.cat([x, m.nn.functional.relu(y)]) * 2
    graph.output(m.sum(a, dim=0).node)
    return m.fx.GraphModule(m.nn.Module(), graph)


def _inline_module_call(m):
    """inline_function's recipe: a leaf module called on Proxies outside any trace."""
    class M(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.relu = m.nn.ReLU()

        def forward(self, x):
            return self.relu(x) + 1.0
    gm = m.fx.symbolic_trace(M())
    for node in list(gm.graph.nodes):
        if node.op == "call_module":
            mod = gm.get_submodule(node.target)
            with gm.graph.inserting_before(node):
                proxies = m.fx.node.map_arg(node.args, lambda n: m.fx.Proxy(n))
                out = mod(*proxies)
            node.replace_all_uses_with(out.node)
            gm.graph.erase_node(node)
    gm.recompile()
    return gm


def test_proxies_work_outside_a_trace():
    for build in (_by_hand, _inline_module_call):
        eg, tg = build(ember), build(torch)
        assert [(n.op, n.name) for n in eg.graph.nodes] == [(n.op, n.name) for n in tg.graph.nodes]
        xs = [np.float32([-1.0, 2.0]), np.float32([3.0, -4.0])][:len(
            [n for n in tg.graph.nodes if n.op == "placeholder"])]
        _close(tg(*map(torch.tensor, xs)), eg(*map(ember.tensor, xs)))
    import gc
    gc.collect()
    # no Proxy is left: ember's functions are the C++ entry points again, not routers (unless a
    # Tensor subclass defined earlier in this process turned routing on for good, as torch's
    # __torch_function__ protocol asks: then they stay routers, and depth counts that one hold)
    if ember.fx._routing._kept:
        assert ember.fx._routing._depth == 1
    else:
        assert type(ember.relu).__name__ == "nb_func" and ember.fx._routing._depth == 0
    g = ember.fx.Graph()
    p = ember.fx.Proxy(g.placeholder("x"))
    assert ember.relu == ember._C.relu and hash(ember.relu) == hash(ember._C.relu)
    assert ember.relu(ember.tensor([-1.0])).tolist() == [0.0]  # tensors still run eagerly
    del p
    assert type(ember.relu).__name__ == ("_Router" if ember.fx._routing._kept else "nb_func")


# ---- torch.fx.subgraph_rewriter: replace_pattern_with_filters, ReplacedPatterns -------------
def _two_adds(m):
    class M(m.nn.Module):
        def forward(self, x, y):
            a = m.relu(x + y)
            b = m.relu(x + 2.0)
            return a * b
    return M()


@pytest.mark.parametrize("variant", ["filter", "literals", "callback", "name"])
def test_replace_pattern_with_filters_as_torch(variant):
    results, codes, outs = [], [], []
    x = np.random.default_rng(0).standard_normal(4).astype(np.float32)
    y = np.random.default_rng(1).standard_normal(4).astype(np.float32)
    for m in (torch, ember):
        gm = m.fx.symbolic_trace(_two_adds(m))
        sr = m.fx.subgraph_rewriter

        def pattern(a, b):
            return m.relu(a + b)

        def replacement(a, b):
            return m.sigmoid(a - b)
        kw = {}
        if variant == "filter":  # keep the match whose second operand is a graph input
            kw["match_filters"] = [lambda match, g, pg: all(
                isinstance(n, m.fx.Node) for n in match.placeholder_nodes)]
        if variant == "literals":  # pattern with a literal: matches x + 2.0 only if ignored
            pattern = lambda a: m.relu(a + 5.0)  # noqa: E731
            replacement = lambda a: m.tanh(a)  # noqa: E731
            kw["ignore_literals"] = True
        if variant == "callback":
            kw["replacement_callback"] = lambda match, g, pg: m.fx.symbolic_trace(
                lambda a, b: m.sigmoid(a * b)).graph
        if variant == "name":
            pattern = lambda a, b: m.sigmoid(a + b)  # noqa: E731  (relu, matched by name)
            kw["node_name_match"] = "relu"
        rep = sr.replace_pattern_with_filters(
            gm, pattern, None if variant == "callback" else replacement, **kw)
        assert all(isinstance(r, sr.ReplacedPatterns) for r in rep)
        results.append(sorted((sorted(str(getattr(n, "op", n)) for n in r.nodes_map.values()),
                               [n.op for n in r.replacements]) for r in rep))
        codes.append(gm.code.replace("torch.", "ember."))
        outs.append(np.array(gm(m.tensor(x), m.tensor(y)).detach().numpy()))
    assert results[1] == results[0]
    assert codes[1] == codes[0]
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)


def test_replace_pattern_with_filters_errors():
    for m in (torch, ember):
        gm = m.fx.symbolic_trace(_two_adds(m))
        sr = m.fx.subgraph_rewriter
        with pytest.raises(AssertionError, match="replacement"):
            sr.replace_pattern_with_filters(gm, lambda a, b: m.relu(a + b), None)
        assert sr.replace_pattern_with_filters(  # a filter that refuses everything
            gm, lambda a, b: m.relu(a + b), lambda a, b: a, [lambda *_: False]) == []
    with pytest.raises(ValueError, match="inputs"):
        ember.fx.subgraph_rewriter.replace_pattern_with_filters(
            ember.fx.symbolic_trace(_two_adds(ember)), lambda a, b: ember.relu(a + b),
            lambda a: a)


# ---- torch.fx.has_side_effect, torch.fx.graph_module ---------------------------------------
def _side_effect_graph(m):
    def note(x):
        return None
    assert m.fx.has_side_effect(note) is note
    g = m.fx.Graph()
    x = g.placeholder("x")
    g.call_function(note, (x,))
    g.call_function(operator.add, (x, 1))  # unused and pure: dead code
    g.output(x)
    return g


def test_has_side_effect_keeps_calls_from_dead_code_elimination():
    graphs = [_side_effect_graph(m) for m in (torch, ember)]
    assert [n.is_impure() for n in graphs[1].nodes] == [n.is_impure() for n in graphs[0].nodes]
    assert graphs[1].eliminate_dead_code() == graphs[0].eliminate_dead_code() is True
    assert [n.name for n in graphs[1].nodes] == [n.name for n in graphs[0].nodes] == \
        ["x", "note", "output"]
    for m in (torch, ember):  # a function never registered is dropped when unused
        g = m.fx.Graph()
        x = g.placeholder("x")
        g.call_function(abs, (x,))
        g.output(x)
        g.eliminate_dead_code()
        assert [n.name for n in g.nodes] == ["x", "output"]


def test_graph_module_module():
    import copy
    import pickle
    outs = []
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    em = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.ReLU())
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    for m, mod in ((torch, tm), (ember, em)):
        assert m.fx.graph_module.GraphModule is m.fx.GraphModule
        gm = m.fx.symbolic_trace(mod)
        renamed = m.fx.graph_module.GraphModule(gm, gm.graph, class_name="Renamed")
        assert type(renamed).__name__ == "Renamed"
        assert copy.deepcopy(renamed).code == renamed.code
        back = pickle.loads(pickle.dumps(renamed))
        outs.append([np.array(g(m.tensor(x)).detach().numpy()) for g in (gm, renamed, back)])
        with pytest.raises(RuntimeError, match="Unsupported type 3 passed for root"):
            m.fx.graph_module.GraphModule(3, gm.graph)
        with pytest.raises(RuntimeError, match="referenced target .* not provided in ``root``"):
            m.fx.graph_module.GraphModule({}, gm.graph)
        with pytest.raises(AttributeError):
            m.fx.graph_module.GraphModule(gm, "not a graph")
    for e_out, t_out in zip(*outs[::-1]):
        np.testing.assert_allclose(e_out, t_out, rtol=1e-6)


def _churn(m):
    """Erase a node and create one in its place, many times: each new node gets a fresh name
    (CPython hands a freed node's memory, and so its id, to the next node)."""
    gm = m.fx.symbolic_trace(lambda x: m.neg(x))
    for _ in range(40):
        old = [n for n in gm.graph.nodes if n.op == "call_function"][0]
        with gm.graph.inserting_after(old):
            new = gm.graph.call_function(m.neg, old.args)
        old.replace_all_uses_with(new)
        gm.graph.erase_node(old)
        del old, new
        gc.collect(1)  # the loop's young objects (a full collection took 37 s late in the suite)
    return [n.name for n in gm.graph.nodes]


def test_names_stay_unique_when_nodes_are_erased_and_created():
    assert _churn(ember) == _churn(torch)
