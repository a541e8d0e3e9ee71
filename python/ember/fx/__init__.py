"""ember.fx: torch.fx's toolkit for capturing and rewriting programs as graphs.

    gm = ember.fx.symbolic_trace(model)     # a GraphModule: .graph, .code, callable
    for node in gm.graph.nodes: ...         # node.op, node.target, node.args, node.users
    gm.recompile()                          # after editing the graph

Files as torch.fx's: node.py, graph.py, graph_module.py, proxy.py, interpreter.py,
subgraph_rewriter.py, passes/shape_prop.py; _symbolic_trace.py holds Tracer and symbolic_trace,
_routing.py how ember's C++ functions reach a trace (docs/fx.md).
"""
from . import experimental, node, passes, proxy, subgraph_rewriter  # noqa: F401
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "Graph", "GraphModule", "Node", "Proxy", "Interpreter",
           "Transformer", "wrap", "replace_pattern", "map_arg", "has_side_effect", "PH"]
