"""The graph of module-level imports inside a package and its circles (strongly connected
components), read from the source alone (ast). `python tools/import_graph.py python/ember`
prints each circle with its edges; tests/python/test_import_graph.py fails on any."""
import ast
import os


def module_files(root):
    """{dotted module name: path} for every .py file under the package directory `root`."""
    top = os.path.dirname(os.path.abspath(root))
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                name = os.path.relpath(path, top)[:-3].replace(os.sep, ".")
                out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return out


def _module_level(body):
    """The import statements that run when the module is imported: the module's own, and
    those inside its top-level if/try blocks (not inside functions or classes)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, getattr(node, "orelse", []),
                          *[h.body for h in getattr(node, "handlers", [])],
                          getattr(node, "finalbody", [])):
                yield from _module_level(block)


def import_graph(root, extensions=("_C",)):
    """{module: set of modules it imports at module level}, both ends inside the package.
    `from pkg import name` is an edge to pkg.name when that is a module (or one of the
    compiled `extensions`), else to pkg itself."""
    files = module_files(root)
    known = set(files) | {f"{os.path.basename(os.path.abspath(root))}.{e}" for e in extensions}
    graph = {}
    for mod, path in files.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        package = mod if path.endswith("__init__.py") else mod.rpartition(".")[0]
        deps = set()
        for node in _module_level(tree.body):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
                continue
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module
            for a in node.names:
                deps.add(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base)
        graph[mod] = {d for d in deps if d in files and d != mod}
    return graph


def cycles(graph):
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


if __name__ == "__main__":
    import sys
    g = import_graph(sys.argv[1])
    for c in cycles(g):
        print(len(c), c)
        for m in c:
            print("   ", m, "->", sorted(g[m] & set(c)))
