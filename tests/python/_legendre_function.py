"""P3, the Legendre polynomial 0.5 (5 x^3 - 3 x) as a custom autograd Function with a
hand-written backward: PyTorch's 'defining new autograd functions' example, built on either
library (lib = ember or torch), for the tests of autograd.Function and of that program."""


def legendre_p3(lib):
    class P3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return 0.5 * (5 * x ** 3 - 3 * x)

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return grad_out * 1.5 * (5 * x ** 2 - 1)
    return P3
