"""ember._dynamo: the parts of torch._dynamo a user reaches: explain, config, reset.

explain(fn)(*args) records fn on those arguments (as compile's first call would) and
returns an ExplainOutput, torch._dynamo.explain's shape: graphs, graph_count,
graph_break_count, break_reasons, op_count, ops_per_graph, out_guards, compile_times.
"""
from .._compile import _C, _Compiled, _explain_compiled, config, OptimizedModule  # noqa: F401
from ..compiler import allow_in_graph, disable, is_compiling, list_backends  # noqa: F401
from . import eval_frame  # noqa: F401  (torch._dynamo.eval_frame.OptimizedModule)

__all__ = ["explain", "ExplainOutput", "config", "reset", "mark_dynamic", "mark_static",
           "OptimizedModule", "maybe_mark_dynamic", "disable", "allow_in_graph", "is_compiling",
           "list_backends", "assume_constant_result"]


def assume_constant_result(fn):
    """Marks fn's result as a constant of the program (torch's tracer then calls it once and
    bakes the value in). ember's capture records the ops fn runs on each call's first capture
    anyway, so the mark changes nothing; fn is returned, marked as torch marks it.

    >>> f = ember._dynamo.assume_constant_result(lambda: 3)
    >>> f(), f._dynamo_marked_constant
    (3, True)
    """
    fn._dynamo_marked_constant = True
    return fn


def mark_dynamic(t, index, **kwargs):
    """A hint for torch's symbolic shapes; ember records each shape it meets (docs/compile.md)."""


mark_static = maybe_mark_dynamic = mark_dynamic


class BreakReason:
    """Why a recording stopped: `reason` in words (torch's BreakReason has user_stack too)."""

    def __init__(self, reason):
        self.reason = reason
        self.user_stack = []
        self.graph_break = True

    def __repr__(self):
        return f"BreakReason(reason={self.reason!r})"


class ExplainOutput:
    def __init__(self, graphs, reasons, compile_times, log=()):
        self.graphs = list(graphs)
        self.graph_count = len(self.graphs)
        self.break_reasons = [BreakReason(r) for r in reasons]
        self.graph_break_count = len(self.break_reasons)
        self.ops_per_graph = [g.op_names() for g in self.graphs]
        self.op_count = sum(len(ops) for ops in self.ops_per_graph)
        self.out_guards = ["tensor inputs: sizes, strides, storage offsets, dtypes, requires_grad, "
                           "aliasing; grad mode; tensors read from outside: the same metadata",
                           "Python: non-tensor arguments by value; globals and closure cells the "
                           "function names; modules' training flags, parameters and buffers; "
                           "optimizers' hyper-parameters and state"]
        self.compile_times = "\n".join(f"capture {i}: {t * 1e3:.3f} ms"
                                       for i, t in enumerate(compile_times))
        self.log = list(log)

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}"]
        if self.break_reasons:
            lines.append("Break Reasons:")
            lines += [f"  Break Reason {i + 1}:\n    Reason: {b.reason}"
                      for i, b in enumerate(self.break_reasons)]
        for i, ops in enumerate(self.ops_per_graph):
            lines.append(f"Ops per Graph {i + 1}: {', '.join(ops)}")
        lines.append("Compile Times: " + self.compile_times)
        return "\n".join(lines)


def explain(f, *extra_args, **extra_kwargs):
    """torch._dynamo.explain(f)(*args, **kwargs): record f once on the arguments and explain."""
    def inner(*args, **kwargs):
        c = _Compiled(f)
        c(*args, **kwargs)
        return _explain_compiled(c)
    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner


def reset():
    """torch._dynamo.reset(): ember's recordings live on each compiled function; nothing global."""
