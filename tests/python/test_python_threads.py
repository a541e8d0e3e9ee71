"""Python threads and ember: big kernels (matmul, convolution) run without the GIL
(include/ember/interpreter_lock.h), so training loops in several threads run at once. Each
thread's results must equal what the same loop gives alone."""
import sys
import threading
import time

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F


def _model(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8 * 16 * 16, 256), nn.Tanh(), nn.Linear(256, 10))


_INIT = threading.Lock()


def _train(seed, steps=6):
    """A training loop that draws only from its own Generator (once its model exists: the
    initial weights come from the global generator, as torch's, so seeding and building hold a
    lock; without it another thread's manual_seed can land between the two)."""
    with _INIT:
        model = _model(seed)
    opt = ember.optim.Adam(model.parameters(), lr=1e-3)
    g = ember.Generator().manual_seed(seed)
    for _ in range(steps):
        x = ember.randn(32, 3, 16, 16, generator=g)
        y = ember.randint(0, 10, (32,), generator=g)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()], loss.item()


def test_training_loops_in_four_threads_equal_one_at_a_time():
    alone = [_train(seed) for seed in range(4)]
    threaded, errors = [None] * 4, []

    def run(i):
        try:
            ember.init_num_threads()  # this thread gets the count set_num_threads set (as torch)
            threaded[i] = _train(i)
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for (ps, loss), (qs, qloss) in zip(alone, threaded):
        assert loss == qloss
        assert all(ember.equal(p, q) for p, q in zip(ps, qs))


def test_a_big_matmul_lets_other_python_threads_run():
    """With a switch interval of 1000 s, CPython never takes the GIL from a running thread: the
    main thread's loop runs while the worker multiplies only if the product drops the GIL."""
    a = ember.randn(1024, 1024)
    started, done, steps = threading.Event(), threading.Event(), [0]

    def work():
        started.set()
        for _ in range(20):
            a @ a
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        started.wait()
        while not done.is_set():
            steps[0] += 1
            time.sleep(0)  # gives the GIL back, so the worker resumes after each product
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert steps[0] > 20  # held through each product, the loop would not step until the end


def test_grad_mode_is_per_thread():
    seen = {}

    def other():
        seen["other"] = ember.is_grad_enabled()

    with ember.no_grad():
        t = threading.Thread(target=other)
        t.start()
        t.join()
        seen["main"] = ember.is_grad_enabled()
    assert seen == {"other": True, "main": False}


@pytest.mark.parametrize("shape", [(64, 64), (512, 512)])
def test_products_from_threads_equal_the_serial_ones(shape):
    ember.manual_seed(0)
    mats = [ember.randn(*shape) for _ in range(4)]
    serial = [m @ m.T for m in mats]
    out = [None] * 4

    def run(i):
        ember.init_num_threads()
        out[i] = mats[i] @ mats[i].T

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(ember.equal(s, o) for s, o in zip(serial, out))
