"""The Python side of PyTorch's C++ extension tutorial, for ember (and torch: pass the module).

    ext = ember.utils.cpp_extension.load_inline("lltm_cpp", open("lltm.cpp").read())
    cell = lltm_function(ember, ext)          # C++ forward and backward in an autograd.Function
    new_h, new_cell = cell(input, weights, bias, old_h, old_cell)
    new_h, new_cell = composed(ember)(input, weights, bias, old_h, old_cell)   # the same cell of ops

tests/python/test_cpp_extension.py and bench/workloads_cpp_extension.py use these.
"""


def lltm_function(m, ext):
    """The tutorial's LLTMFunction.apply over the extension `ext` (its forward and backward)."""
    class LLTMFunction(m.autograd.Function):
        @staticmethod
        def forward(ctx, input, weights, bias, old_h, old_cell):
            outputs = ext.forward(input, weights, bias, old_h, old_cell)
            new_h, new_cell = outputs[:2]
            ctx.save_for_backward(*(outputs[1:] + [weights]))
            return new_h, new_cell

        @staticmethod
        def backward(ctx, grad_h, grad_cell):
            d_old_h, d_input, d_weights, d_bias, d_old_cell = ext.backward(
                grad_h.contiguous(), grad_cell.contiguous(), *ctx.saved_tensors)
            return d_input, d_weights, d_bias, d_old_h, d_old_cell

    return LLTMFunction.apply


def composed(m):
    """The same cell composed of library ops (module m: ember or torch); autograd does the backward."""
    F = m.nn.functional

    def cell(input, weights, bias, old_h, old_cell):
        X = m.cat([old_h, input], dim=1)
        gates = F.linear(X, weights, bias).chunk(3, dim=1)
        input_gate, output_gate = m.sigmoid(gates[0]), m.sigmoid(gates[1])
        candidate_cell = F.elu(gates[2])
        new_cell = old_cell + candidate_cell * input_gate
        return m.tanh(new_cell) * output_gate, new_cell

    return cell
