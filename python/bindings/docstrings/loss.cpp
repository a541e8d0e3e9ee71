// Loss functions (python/bindings/loss.cpp), with torch.nn.functional's arguments.
#include "../docstrings.h"

namespace ember::py {

namespace {

constexpr Docstring kLoss[] = {
    {"cross_entropy",
     R"(The cross entropy of logits input (N, C, ...) against class indices or class probabilities
target; reduction 'mean', 'sum' or 'none'. Also ember.nn.functional.cross_entropy.

>>> x = ember.tensor([[2.0, 0.0], [0.0, 2.0]])
>>> ember.cross_entropy(x, ember.tensor([0, 1]))
tensor(0.1269)
>>> ember.cross_entropy(x, ember.tensor([1, 1]), reduction='none')
tensor([2.1269, 0.1269]))"},
    {"nll_loss",
     R"(The negative log likelihood of log-probabilities input (N, C, ...) at class indices target;
weight, ignore_index and reduction as in torch.

>>> x = ember.tensor([[-0.5, -1.0], [-2.0, -0.25]])
>>> ember.nll_loss(x, ember.tensor([0, 1]))
tensor(0.3750)
>>> ember.nll_loss(x, ember.tensor([1, 0]), reduction='sum')
tensor(3.))"},
    {"mse_loss",
     R"(The mean (or sum, or each with reduction='none') squared difference of input and target.

>>> ember.mse_loss(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 4.0]))
tensor(2.5000))"},
    {"l1_loss",
     R"(The mean (or sum, or each with reduction='none') absolute difference of input and target.

>>> ember.l1_loss(ember.tensor([1.0, 2.0]), ember.tensor([0.0, 4.0]), reduction='none')
tensor([1., 2.]))"},
    {"binary_cross_entropy",
     R"(The binary cross entropy of probabilities input against target in [0, 1] (logs clamped at -100,
as torch).

>>> ember.binary_cross_entropy(ember.tensor([0.8, 0.4]), ember.tensor([1.0, 0.0]))
tensor(0.3670))"},
    {"binary_cross_entropy_with_logits",
     R"(binary_cross_entropy of sigmoid(input), computed stably; pos_weight scales the positive term.

>>> ember.binary_cross_entropy_with_logits(ember.tensor([2.0, -1.0]), ember.tensor([1.0, 0.0]))
tensor(0.2201))"},
    {"ctc_loss_per_sample",
     R"(The CTC loss of each sequence (no reduction): log_probs (T, N, C), targets (N, S) or
concatenated; ember.nn.functional.ctc_loss reduces it.

>>> lp = ember.full((2, 1, 2), 0.5).log()
>>> ember.ctc_loss_per_sample(lp, ember.tensor([[1]]), ember.tensor([2]), ember.tensor([1]))
tensor([0.2877]))"},
};

}  // namespace

std::span<const Docstring> loss_docstrings() { return kLoss; }

}  // namespace ember::py
