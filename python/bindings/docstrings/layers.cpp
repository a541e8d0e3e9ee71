// Layer ops bound in python/bindings/layers.cpp: linear, activations, dropout, normalization,
// embedding and fused attention.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kLayers[] = {
    {"linear",
     R"(input @ weight.T + bias: torch.nn.functional.linear, also at ember.linear (torch has it in
nn.functional only).

>>> x = ember.tensor([[1.0, 2.0]])
>>> ember.linear(x, ember.tensor([[1.0, 1.0], [0.0, 2.0]]), ember.tensor([0.5, 0.0]))
tensor([[3.5000, 4.0000]]))"},
    {"gelu",
     R"(The Gaussian error linear unit x * Phi(x); approximate='tanh' uses the tanh approximation.
torch.nn.functional.gelu, also at ember.gelu.

>>> x = ember.tensor([-1.0, 0.0, 1.0])
>>> ember.gelu(x), ember.gelu(x, approximate='tanh')
(tensor([-0.1587,  0.0000,  0.8413]), tensor([-0.1588,  0.0000,  0.8412])))"},
    {"silu",
     R"(x * sigmoid(x), elementwise, in one pass: torch.nn.functional.silu (without inplace), also at
ember.silu.

>>> ember.silu(ember.tensor([-2.0, 0.0, 1.5]))
tensor([-0.2384,  0.0000,  1.2264]))"},
    {"hardswish",
     R"(x * relu6(x + 3) / 6, elementwise, in one pass: torch.nn.functional.hardswish (without
inplace), also at ember.hardswish.

>>> ember.hardswish(ember.tensor([-3.0, 0.0, 1.5, 3.0]))
tensor([-0.0000, 0.0000, 1.1250, 3.0000]))"},
    {"softplus",
     R"(log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold, elementwise in one
pass: torch.nn.functional.softplus, also at ember.softplus.

>>> ember.softplus(ember.tensor([-100.0, 0.0, 30.0]))
tensor([3.7835e-44, 6.9315e-01, 3.0000e+01]))"},
    {"leaky_relu",
     R"(x where x >= 0, negative_slope * x elsewhere: torch.nn.functional.leaky_relu, also at
ember.leaky_relu.

>>> ember.leaky_relu(ember.tensor([-2.0, 3.0]), 0.1)
tensor([-0.2000,  3.0000]))"},
    {"leaky_relu_",
     R"(In-place leaky_relu: input becomes x where x >= 0, negative_slope * x elsewhere, and is
returned. Under autograd its node saves the result, as torch's; a negative slope then records
the input's copy instead (torch raises in that backward).

>>> x = ember.tensor([-2.0, 3.0])
>>> ember._C.leaky_relu_(x, 0.5) is x, x
(True, tensor([-1.,  3.]))
)"},
    {"dropout",
     R"(With training=True, zeroes each element with probability p and scales the others by 1 / (1 - p);
with training=False returns input. torch.dropout takes (input, p, train) without defaults;
ember's defaults are those of torch.nn.functional.dropout.

>>> x = ember.ones(6)
>>> ember.dropout(x, 0.5, False)
tensor([1., 1., 1., 1., 1., 1.])
>>> ember.dropout(x, 0.0, True)
tensor([1., 1., 1., 1., 1., 1.])
>>> ember.dropout(x, 1.0, True)
tensor([0., 0., 0., 0., 0., 0.]))"},
    {"batch_norm",
     R"(Batch normalization over dimension 1 with torch.nn.functional.batch_norm's argument order
(torch.batch_norm orders them differently): batch statistics when training (running_mean/var
updated with momentum), else the running ones.

>>> x = ember.tensor([[1.0, 10.0], [3.0, 30.0]])
>>> ember.batch_norm(x, None, None, training=True)
tensor([[-1.0000, -1.0000],
        [ 1.0000,  1.0000]])
>>> ember.batch_norm(x, ember.zeros(2), ember.ones(2))
tensor([[ 1.0000, 10.0000],
        [ 3.0000, 29.9998]]))"},
    {"layer_norm",
     R"(Normalizes over the trailing normalized_shape dimensions (mean 0, variance 1, eps added to the
variance), then weight and bias elementwise.

>>> x = ember.tensor([[1.0, 2.0, 3.0]])
>>> ember.layer_norm(x, (3,))
tensor([[-1.2247,  0.0000,  1.2247]])
>>> ember.layer_norm(x, [3], ember.tensor([1.0, 2.0, 1.0]), ember.tensor([0.0, 0.0, 1.0]))
tensor([[-1.2247,  0.0000,  2.2247]]))"},
    {"embedding",
     R"(The rows of weight at the integer indices input, with torch.nn.functional.embedding's argument
order (torch.embedding takes weight first); padding_idx only stops that row's gradient.

>>> w = ember.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
>>> ember.embedding(ember.tensor([2, 0, 1]), w)
tensor([[3., 4.],
        [0., 0.],
        [1., 2.]]))"},
    {"scaled_dot_product_attention_fused",
     R"(softmax(query @ key^T * scale) @ value over the last two dimensions in one pass, with the causal
mask when is_causal: the kernel behind torch.nn.functional.scaled_dot_product_attention (an
ember extra; scale and is_causal are required).

>>> q = ember.tensor([[[1.0, 0.0], [0.0, 1.0]]])
>>> v = ember.tensor([[[1.0, 2.0], [3.0, 4.0]]])
>>> ember.scaled_dot_product_attention_fused(q, q, v, True, 1.0)
tensor([[[1.0000, 2.0000],
         [2.4621, 3.4621]]]))"},
    {"rnn_layer",
     R"(One layer and direction of an LSTM, GRU or Elman RNN over a whole sequence, the op behind
ember.nn.LSTM/GRU/RNN (an ember extra). mode is "LSTM", "GRU", "RNN_TANH" or "RNN_RELU"; xp is
the input projection x @ w_ih.T + b_ih (+ b_hh except for GRU): (T, B, gates * H), or packed rows
with batch_sizes. Returns [output, h_n] and c_n for LSTM.

>>> xp = ember.zeros(3, 1, 4)
>>> out, h_n = ember.rnn_layer("RNN_TANH", xp, ember.ones(1, 4), None, 0.5 * ember.eye(4))
>>> out[:, 0, 0]
tensor([0.4621, 0.2270, 0.1130]))"},
};

}  // namespace

std::span<const Docstring> layers_docstrings() { return kLayers; }

}  // namespace ember::py
