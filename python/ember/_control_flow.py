"""torch.cond and torch.while_loop run eagerly: the branch or the loop body is called on the
operands (ember has no graph capture for them; torch's eager path does the same)."""
from ._dtype import bool as _bool
from ._tensor import Tensor


def _leaves(x):
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _leaves(item)]
    if isinstance(x, dict):
        return [leaf for item in x.values() for leaf in _leaves(item)]
    return [x]


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands); pred a bool or one-element tensor.

    >>> ember.cond(ember.tensor(True), lambda x: x + 1, lambda x: x - 1, (ember.tensor([1.0]),))
    tensor([2.])
    """
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(not isinstance(t, Tensor) for t in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only "
                           f"consists of tensor leaves, but got {operands}.")
    return true_fn(*operands) if bool(pred) else false_fn(*operands)


def _check_pred(pred):
    if isinstance(pred, bool) or (isinstance(pred, Tensor) and pred.dim() == 0 and pred.dtype == _bool):
        return bool(pred)
    raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but got {pred}")


def while_loop(cond_fn, body_fn, carried_inputs):
    """carried = body_fn(*carried) while cond_fn(*carried); returns the final carried tuple.

    >>> ember.while_loop(lambda i: i < 3, lambda i: (i + 1,), (ember.tensor(0),))
    (tensor(3),)
    """
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("while_loop: cond_fn and body_fn must be callable")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got {type(carried_inputs)}")
    carried = tuple(carried_inputs)
    if not _check_pred(cond_fn(*carried)):
        return tuple(v.clone() if isinstance(v, Tensor) else v for v in carried)
    while True:
        out = body_fn(*carried)
        if not isinstance(out, tuple):
            raise RuntimeError(f"body_fn should return a tuple but got {type(out)}")
        if len(out) != len(carried):
            raise RuntimeError(f"body_fn should return the same number of elements as carried_inputs, "
                               f"got {len(out)} vs {len(carried)}")
        carried = out
        if not _check_pred(cond_fn(*carried)):
            return carried


FUNCTIONS = {"cond": cond, "while_loop": while_loop}
METHODS = {}
