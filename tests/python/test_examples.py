"""The Fashion-MNIST example (what `make train` runs), on a few hundred images."""
import os

import pytest

import ember
from ember.examples import fashion_mnist as fm

DATA = "/usr/share/datasets/fashion-mnist"
needs_data = pytest.mark.skipif(not os.path.isdir(DATA), reason="dataset-fashion-mnist is not installed")


@pytest.fixture
def threads_restored():
    """The example sets the process's thread count (--threads 1); later tests expect theirs."""
    old = ember.get_num_threads()
    yield
    ember.set_num_threads(old)


@needs_data
@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_trains_and_writes_curves(tmp_path, capsys, model, threads_restored):
    png = tmp_path / "curves.png"
    history = fm.main(["--model", model, "--epochs", "2", "--limit", "600", "--batch-size", "32",
                       "--threads", "1", "--no-progress", "--plot", str(png)])
    assert [h["epoch"] for h in history] == [1, 2]
    assert history[-1]["train_loss"] < history[0]["train_loss"]
    assert history[-1]["test_acc"] > 0.5  # 10 classes: chance is 0.1
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    out = capsys.readouterr().out
    assert "summary: ember " + model in out and "test accuracy" in out


@pytest.mark.parametrize("args", [["--epochs", "0"], ["--model", "rnn"], ["--batch-size", "-1"],
                                  ["--limit", "0"], ["--threads", "0"]])
def test_bad_arguments_exit_with_usage(args, capsys):
    with pytest.raises(SystemExit) as e:
        fm.main(args)
    assert e.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_models_match_their_description():
    mlp = fm.build_model(ember, "mlp")
    assert [tuple(p.shape) for p in mlp.parameters()] == [(256, 784), (256,), (128, 256), (128,), (10, 128), (10,)]
    cnn = fm.build_model(ember, "cnn")
    out = cnn(ember.zeros(2, 1, 28, 28))
    assert tuple(out.shape) == (2, 10)
    with pytest.raises(ValueError, match="unknown model"):
        fm.build_model(ember, "rnn")
