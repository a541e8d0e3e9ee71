"""Module.zero_grad and Optimizer.zero_grad: one rule for resetting parameters' grads."""


def zero_grads(params, set_to_none=True):
    """Sets each parameter's grad to None, or (set_to_none=False) zeroes it in place,
    detached from any graph that produced it, as torch does."""
    for p in params:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()
