"""The nn issue's programs, run with only the import changed: each body is written once
as a function of the module (ember or torch), both runs start from the same parameters
(loaded with load_state_dict), and ember must end at PyTorch's loss within 1%."""
import math

import numpy as np
import torch

import ember


def _start(model, rng):
    """The same random starting values for every entry of model's state_dict, as NumPy."""
    return {k: np.asarray(rng.standard_normal(tuple(v.shape)) * 0.5, dtype=np.float32)
            for k, v in model.state_dict().items()}


def _load(torch, model, start):
    model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in start.items()})


def _cubic_data(torch):
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    return x, y, x.unsqueeze(-1).pow(p)


def _cubic_model(torch, start):
    """The data (features x, x^2, x^3 and sin x) and the model of the two 'nn module' programs:
    Sequential(Linear(3, 1), Flatten(0, 1)), start loaded into it unless start is None."""
    x, y, xx = _cubic_data(torch)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    if start is not None:
        _load(torch, model, start)
    return xx, y, model


def _optimize(model, loss_fn, optimizer, x, y, steps):
    """The training loop of the programs below: `steps` times loss_fn(model(x), y), zero_grad,
    backward, step. Returns the last loss."""
    for t in range(steps):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss


def _flat(params):
    return [v for p in params for v in p.reshape(-1).tolist()]


def fit_nn_manual_sgd(torch, start=None):
    """'Learning PyTorch with examples', nn module: Sequential(Linear(3, 1), Flatten(0, 1)),
    MSELoss(sum), a hand-written SGD step under no_grad."""
    xx, y, model = _cubic_model(torch, start)
    if start is None:
        return model
    loss_fn = torch.nn.MSELoss(reduction="sum")
    learning_rate = 1e-6
    for t in range(2000):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    return loss.item(), linear_layer.bias.tolist() + linear_layer.weight[:, 0].tolist() \
        + linear_layer.weight[:, 1].tolist() + linear_layer.weight[:, 2].tolist()


def fit_nn_rmsprop(torch, start=None):
    """The same model trained by optim.RMSprop(lr=1e-3)."""
    xx, y, model = _cubic_model(torch, start)
    if start is None:
        return model
    loss_fn = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    loss = _optimize(model, loss_fn, optimizer, xx, y, 2000)
    return loss.item(), _flat(model.parameters())


def fit_custom_module(torch, start=None):
    """'Custom nn Modules': four Parameters a + b x + c x^2 + d x^3, optim.SGD(lr=1e-6)."""

    class Polynomial3(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Parameter(torch.randn(()))
            self.b = torch.nn.Parameter(torch.randn(()))
            self.c = torch.nn.Parameter(torch.randn(()))
            self.d = torch.nn.Parameter(torch.randn(()))

        def forward(self, x):
            return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

        def string(self):
            return (f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + "
                    f"{self.d.item()} x^3")

    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    model = Polynomial3()
    if start is None:
        return model
    _load(torch, model, start)
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    loss = _optimize(model, criterion, optimizer, x, y, 2000)
    assert model.string().startswith("y = ")
    return loss.item(), [model.a.item(), model.b.item(), model.c.item(), model.d.item()]


def classify_mlp(torch, start=None):
    """A two-layer classifier on fixed data: Linear-ReLU-Dropout(eval)-Linear,
    CrossEntropyLoss, Adam, 200 steps."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Dropout(0.1),
                                torch.nn.Linear(32, 4))
    if start is None:
        return model
    _load(torch, model, start)
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.standard_normal((64, 8)).astype(np.float32))
    target = torch.from_numpy(rng.integers(0, 4, 64).astype(np.int64))
    model.eval()  # dropout off: ember's random stream differs from PyTorch's
    loss_fn = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss = _optimize(model, loss_fn, optimizer, x, target, 200)
    return loss.item(), _flat(model.parameters())


def train_small_cnn(torch, start=None):
    """Conv2d-BatchNorm2d-ReLU-MaxPool2d-Flatten-Linear trained by SGD with momentum, in
    training mode (batch statistics, running stats updated), then evaluated."""
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 3))
    if start is None:
        return model
    start = dict(start)
    start["1.running_var"] = np.abs(start["1.running_var"]) + 0.5
    start["1.num_batches_tracked"] = np.array(0, dtype=np.int64)
    _load(torch, model, start)
    rng = np.random.default_rng(2)
    x = torch.from_numpy(rng.standard_normal((16, 1, 8, 8)).astype(np.float32))
    target = torch.from_numpy(rng.integers(0, 3, 16).astype(np.int64))
    loss_fn = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    _optimize(model, loss_fn, optimizer, x, target, 30)
    model.eval()
    with torch.no_grad():
        eval_loss = loss_fn(model(x), target)
    state = _flat(t for k, t in model.state_dict().items() if k != "1.num_batches_tracked")
    return eval_loss.item(), state


def _run_both(program, seed=0, rtol=1e-2, atol=1e-3):
    start = _start(program(torch), np.random.default_rng(seed))
    t_loss, t_params = program(torch, start)
    e_loss, e_params = program(ember, start)
    assert abs(e_loss - t_loss) <= 0.01 * abs(t_loss) + 1e-6, (e_loss, t_loss)
    np.testing.assert_allclose(e_params, t_params, rtol=rtol, atol=atol)


def test_nn_sequential_manual_sgd_reaches_torch_loss():
    _run_both(fit_nn_manual_sgd)


def test_nn_sequential_rmsprop_reaches_torch_loss():
    _run_both(fit_nn_rmsprop)


def test_custom_module_sgd_reaches_torch_loss():
    _run_both(fit_custom_module)


def test_mlp_classifier_adam_reaches_torch_loss():
    _run_both(classify_mlp)


def test_small_cnn_batchnorm_sgd_momentum_reaches_torch_loss():
    _run_both(train_small_cnn)
