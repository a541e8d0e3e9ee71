"""replace_pattern: find every copy of one small program in a GraphModule and put another in its
place (torch.fx.subgraph_rewriter).

`pattern` and `replacement` are functions (or Modules, or GraphModules) taking the same inputs;
both are traced. A match maps each pattern node to a graph node with the same opcode, the same
target and matching arguments (pattern inputs match any node; literals must be equal), walking
back from the pattern's returned values; nodes inside a match other than those returned may not
be read from outside it. Matches do not overlap. The replacement goes before the first reader
of the matched result; the matched nodes are erased.
"""
from dataclasses import dataclass, field
from typing import Dict, List, NamedTuple

from .graph import Graph
from .graph_module import GraphModule, _copy_attr
from .node import Node, map_aggregate

__all__ = ["Match", "ReplacedPatterns", "replace_pattern", "replace_pattern_with_filters"]


class Match(NamedTuple):
    anchor: Node
    nodes_map: Dict[Node, Node]


@dataclass
class ReplacedPatterns:
    """What replace_pattern_with_filters returns per match: the anchor (the graph node matched
    to the pattern's first returned value), the pattern -> graph node map, and the nodes the
    replacement added."""
    anchor: Node
    nodes_map: Dict[Node, Node]
    replacements: List[Node] = field(default_factory=list)


@dataclass
class _InternalMatch:
    """The match handed to match_filters and replacement_callback (torch's InternalMatch)."""
    anchors: List[Node]
    nodes_map: Dict[Node, Node]
    placeholder_nodes: List[Node]
    returning_nodes: List[Node]


def _graph_of(fn):
    if isinstance(fn, Graph):
        return fn
    if isinstance(fn, GraphModule):
        return fn.graph
    from ._symbolic_trace import symbolic_trace
    return symbolic_trace(fn).graph


def _flat_nodes(a):
    out = []
    map_aggregate(a, lambda x: out.append(x) if isinstance(x, Node) else None)
    return out


class _Matcher:
    def __init__(self, pattern, ignore_literals=False, node_name_match=""):
        self.pattern = pattern
        self.ignore_literals, self.node_name_match = ignore_literals, node_name_match
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        out = [n for n in pattern.nodes if n.op == "output"]
        if len(out) != 1:
            raise ValueError("replace_pattern: the pattern must have exactly one output")
        self.returns = _flat_nodes(out[0].args[0])
        if not self.returns:
            raise ValueError("replace_pattern: the pattern returns no graph values")

    def _match_arg(self, pa, ga, m):
        if isinstance(pa, Node):
            if pa.op == "placeholder" and not isinstance(ga, Node):  # an input may be a literal
                if pa in m:
                    return not isinstance(m[pa], Node) and type(m[pa]) is type(ga) and m[pa] == ga
                m[pa] = ga
                return True
            return isinstance(ga, Node) and self._match_node(pa, ga, m)
        if isinstance(pa, (list, tuple)):
            return isinstance(ga, (list, tuple)) and len(pa) == len(ga) and \
                all(self._match_arg(x, y, m) for x, y in zip(pa, ga))
        if isinstance(pa, dict):
            return isinstance(ga, dict) and pa.keys() == ga.keys() and \
                all(self._match_arg(pa[k], ga[k], m) for k in pa)
        if self.ignore_literals:  # a literal of the pattern matches anything, as torch's
            return True
        return not isinstance(ga, Node) and type(pa) is type(ga) and pa == ga

    def _match_node(self, pn, gn, m):
        if pn in m:
            return m[pn] is gn
        if any(v is gn for v in m.values()):
            return False
        if pn.op == "placeholder":
            m[pn] = gn
            return True
        named = self.node_name_match and self.node_name_match in gn.name  # torch: any op
        if not named and (pn.op != gn.op or pn.target != gn.target):
            return False
        if len(pn.args) != len(gn.args) or pn.kwargs.keys() != gn.kwargs.keys():
            return False
        snapshot = dict(m)
        m[pn] = gn
        ok = all(self._match_arg(a, b, m) for a, b in zip(pn.args, gn.args)) and \
            all(self._match_arg(pn.kwargs[k], gn.kwargs[k], m) for k in pn.kwargs)
        if not ok:
            m.clear()
            m.update(snapshot)
        return ok

    def _self_contained(self, m):
        inside = {id(v) for v in m.values()}  # (placeholders may hold unhashable literals)
        returned = {id(m[r]) for r in self.returns}
        for pn, gn in m.items():
            if pn.op == "placeholder" or id(gn) in returned:
                continue
            if any(id(u) not in inside for u in gn.users):
                return False
        return True

    def _extend(self, i, m, candidates):
        if i == len(self.returns):
            return dict(m) if self._self_contained(m) else None
        for gn in candidates:
            trial = dict(m)
            if self._match_node(self.returns[i], gn, trial):
                found = self._extend(i + 1, trial, candidates)
                if found is not None:
                    return found
        return None

    def matches(self, graph):
        nodes = [n for n in graph.nodes if n.op not in ("placeholder", "output")]
        taken, found = set(), []
        for gn in nodes:
            m = {}
            if not self._match_node(self.returns[0], gn, m):
                continue
            full = self._extend(1, m, nodes)
            if full is None:
                continue
            body = {g for p, g in full.items() if p.op != "placeholder"}
            if body & taken:
                continue
            taken |= body
            found.append(Match(anchor=full[self.returns[0]], nodes_map=full))
        return found


def replace_pattern(gm, pattern, replacement):
    """Replaces each non-overlapping match of `pattern` in gm's graph by `replacement`, then
    recompiles gm; returns the list of Matches.

    >>> def f(x):
    ...     return ember.relu(x) + 1
    >>> def pattern(x):
    ...     return ember.relu(x)
    >>> def replacement(x):
    ...     return ember.sigmoid(x)
    >>> gm = ember.fx.symbolic_trace(f)
    >>> len(ember.fx.replace_pattern(gm, pattern, replacement))
    1
    >>> gm(ember.tensor([0.0]))
    tensor([1.5000])
    """
    return [Match(anchor=r.anchor, nodes_map=r.nodes_map)
            for r in _replace(gm, pattern, replacement)]


def replace_pattern_with_filters(gm, pattern, replacement=None, match_filters=None,
                                 ignore_literals=False, replacement_callback=None,
                                 node_name_match=""):
    """replace_pattern, keeping only the matches every filter(match, gm.graph, pattern_graph)
    accepts; `ignore_literals` lets a pattern's literals match any literal;
    `replacement_callback(match, gm.graph, pattern_graph)` gives each match its own replacement
    graph; a graph node whose name contains `node_name_match` matches any pattern node's op.
    Returns a ReplacedPatterns per match."""
    return _replace(gm, pattern, replacement, match_filters or [], ignore_literals,
                    replacement_callback, node_name_match)


def _replace(gm, pattern, replacement, match_filters=(), ignore_literals=False,
             replacement_callback=None, node_name_match=""):
    pattern_graph = _graph_of(pattern)
    if replacement is None and replacement_callback is None:
        raise AssertionError("Must provide either a replacement GraphModule or a replacement "
                             "callback")
    common = _graph_of(replacement) if replacement is not None else None
    matcher = _Matcher(pattern_graph, ignore_literals, node_name_match)
    graph = gm.graph
    found = []
    for m in matcher.matches(graph):
        internal = _InternalMatch([m.anchor], m.nodes_map,
                                  [m.nodes_map[p] for p in matcher.placeholders],
                                  [m.nodes_map[r] for r in matcher.returns])
        if all(f(internal, graph, pattern_graph) for f in match_filters):
            found.append((m, internal))
    done = []
    order = {n: i for i, n in enumerate(graph.nodes)}
    for match, internal in found:
        replacement_graph = (replacement_callback(internal, graph, pattern_graph)
                             if replacement_callback is not None else common)
        rep_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
        if len(rep_placeholders) != len(matcher.placeholders):
            raise ValueError(f"replace_pattern: the pattern takes {len(matcher.placeholders)} "
                             f"inputs but the replacement takes {len(rep_placeholders)}")
        results = internal.returning_nodes
        matched = {id(v) for v in match.nodes_map.values()}
        users = [u for r in results for u in r.users if id(u) not in matched]
        val_map = {rp: match.nodes_map[pp] for rp, pp in zip(rep_placeholders,
                                                              matcher.placeholders)}
        if users:
            first = min(users, key=lambda u: order.get(u, len(order)))
            point = graph.inserting_before(first)
        else:
            point = graph.inserting_before(match.anchor.next)
        before = set(graph.nodes)
        with point:
            new_out = graph.graph_copy(replacement_graph, val_map)
        for n in replacement_graph.nodes:
            if n.op == "get_attr" and isinstance(replacement, GraphModule) or \
                    n.op in ("get_attr", "call_module") and hasattr(replacement, "named_modules"):
                _copy_attr(replacement, gm, n.target)
        new_nodes = _flat_nodes(new_out)
        if len(new_nodes) != len(results):
            raise ValueError(f"replace_pattern: the pattern returns {len(results)} values but the "
                             f"replacement returns {len(new_nodes)}")
        for old, new in zip(results, new_nodes):
            old.replace_all_uses_with(new)
        for pn in reversed(list(pattern_graph.nodes)):
            gn = match.nodes_map.get(pn)
            if gn is not None and pn.op != "placeholder" and not gn.users:
                graph.erase_node(gn)
        added = [n for n in graph.nodes if n not in before]
        done.append(ReplacedPatterns(match.anchor, match.nodes_map, added))
    gm.recompile()
    return done
