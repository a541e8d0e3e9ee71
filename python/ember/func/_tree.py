"""The argument trees ember.func walks: tuples, lists and dicts of tensors (and other leaves),
flattened to a list of leaves and a spec that rebuilds the same structure."""


def tree_flatten(tree):
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = tree_flatten(item)
            leaves += sub
            specs.append(spec)
        return leaves, (type(tree), None, specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for key in tree:
            sub, spec = tree_flatten(tree[key])
            leaves += sub
            specs.append(spec)
        return leaves, (dict, list(tree), specs)
    return [tree], None


def tree_unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, keys, children = s
        values = [build(c) for c in children]
        if kind is dict:
            return dict(zip(keys, values))
        if kind is tuple or kind is list:
            return kind(values)
        return kind(*values)  # namedtuples
    return build(spec)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, tree, what):
    """The leaves of `prefix` (e.g. in_dims) repeated over the matching subtrees of `tree`, one
    per leaf of `tree`; ValueError if the structures do not match."""
    if not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * len(tree_flatten(tree)[0])
    if isinstance(prefix, dict) != isinstance(tree, dict) or \
            not isinstance(tree, (tuple, list, dict)) or len(prefix) != len(tree) or \
            (isinstance(prefix, dict) and set(prefix) != set(tree)):
        raise ValueError(what)
    keys = list(tree) if isinstance(tree, dict) else range(len(tree))
    out = []
    for k in keys:
        out += broadcast_prefix(prefix[k], tree[k], what)
    return out
