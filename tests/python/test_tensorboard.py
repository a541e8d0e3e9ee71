"""ember.utils.tensorboard.SummaryWriter against torch.utils.tensorboard's: both write event
files, read back with tensorboard's EventAccumulator and compared (scalars, add_scalars
runs, histograms, images, text, hparams), plus the add_graph warning and bad inputs."""
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("tensorboard")
import torch  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from torch.utils.tensorboard import SummaryWriter as TorchWriter  # noqa: E402

import ember  # noqa: E402
from ember.utils.tensorboard import SummaryWriter  # noqa: E402


def _load(path):
    ea = EventAccumulator(str(path), size_guidance={"tensors": 0, "images": 0, "scalars": 0,
                                                    "histograms": 0})
    ea.Reload()
    return ea


def _write_both(tmp_path, fn):
    """fn(writer, lib) in both libraries; returns the two log dirs."""
    dirs = []
    for writer_cls, lib, name in ((SummaryWriter, ember, "ember"), (TorchWriter, torch, "torch")):
        d = tmp_path / name
        with writer_cls(str(d)) as w:
            fn(w, lib)
        dirs.append(d)
    return dirs


def test_scalars_match_torch(tmp_path):
    def fn(w, lib):
        for step in range(4):
            w.add_scalar("loss/train", lib.tensor(1.0 / (step + 1)), step)
            w.add_scalar("acc", 0.25 * step, step, walltime=100.0 + step)
        w.add_scalar("new", 2.5, 0, new_style=True)
        w.add_scalar("dbl", 1 / 3, 0, new_style=True, double_precision=True)

    de, dt = _write_both(tmp_path, fn)
    ee, et = _load(de), _load(dt)
    assert sorted(ee.Tags()["scalars"]) == sorted(et.Tags()["scalars"])
    for tag in et.Tags()["scalars"]:
        assert [(s.step, s.value) for s in ee.Scalars(tag)] == \
            [(s.step, s.value) for s in et.Scalars(tag)]
    assert [s.wall_time for s in ee.Scalars("acc")] == [100.0, 101.0, 102.0, 103.0]
    for tag in ("new", "dbl"):
        assert ee.Tensors(tag)[0].tensor_proto == et.Tensors(tag)[0].tensor_proto
        assert ee.SummaryMetadata(tag) == et.SummaryMetadata(tag)


def test_add_scalars_writes_one_run_per_key(tmp_path):
    def fn(w, lib):
        for step in range(3):
            w.add_scalars("run/loss", {"train": step * 1.0, "val": step * 2.0}, step)

    de, dt = _write_both(tmp_path, fn)
    assert sorted(p for p in os.listdir(de) if not p.startswith("events")) == \
        sorted(p for p in os.listdir(dt) if not p.startswith("events")) == \
        ["run_loss_train", "run_loss_val"]
    for sub in ("run_loss_train", "run_loss_val"):
        ee, et = _load(de / sub), _load(dt / sub)
        assert [(s.step, s.value) for s in ee.Scalars("run/loss")] == \
            [(s.step, s.value) for s in et.Scalars("run/loss")]


@pytest.mark.parametrize("bins", ["tensorflow", "auto", 10])
def test_histogram_matches_torch(tmp_path, bins):
    x = np.random.default_rng(0).standard_normal(500).astype(np.float32)

    def fn(w, lib):
        w.add_histogram("w", lib.tensor(x), 3, bins=bins)

    de, dt = _write_both(tmp_path, fn)
    he = _load(de).Histograms("w")[0]
    ht = _load(dt).Histograms("w")[0]
    assert he.step == ht.step == 3
    a, b = he.histogram_value, ht.histogram_value
    assert (a.num, a.min, a.max) == (b.num, b.min, b.max)
    np.testing.assert_allclose([a.sum, a.sum_squares], [b.sum, b.sum_squares], rtol=1e-5)
    np.testing.assert_allclose(a.bucket_limit, b.bucket_limit, rtol=1e-6)
    assert list(a.bucket) == list(b.bucket)


@pytest.mark.parametrize("shape,fmt,method", [
    ((3, 6, 5), "CHW", "add_image"), ((6, 5, 3), "HWC", "add_image"), ((6, 5), "HW", "add_image"),
    ((1, 6, 5), "CHW", "add_image"), ((5, 3, 4, 6), "NCHW", "add_images"),
    ((10, 4, 6, 1), "NHWC", "add_images")])
def test_images_match_torch(tmp_path, shape, fmt, method):
    img = np.random.default_rng(1).random(shape).astype(np.float32)

    def fn(w, lib):
        getattr(w, method)("img", lib.tensor(img), 0, dataformats=fmt)
        getattr(w, method)("u8", lib.tensor((img * 255).astype(np.uint8)), 1, dataformats=fmt)

    de, dt = _write_both(tmp_path, fn)
    for tag in ("img", "u8"):
        ie, it = _load(de).Images(tag)[0], _load(dt).Images(tag)[0]
        assert (ie.width, ie.height, ie.step) == (it.width, it.height, it.step)
        from PIL import Image
        import io
        pe = np.asarray(Image.open(io.BytesIO(ie.encoded_image_string)))
        pt = np.asarray(Image.open(io.BytesIO(it.encoded_image_string)))
        assert pe.shape == pt.shape
        assert np.abs(pe.astype(int) - pt.astype(int)).max() <= 1  # rounding vs truncation


def test_text_matches_torch(tmp_path):
    de, dt = _write_both(tmp_path, lambda w, lib: w.add_text("notes", "héllo **md**", 2))
    te, tt = _load(de), _load(dt)
    assert te.Tags()["tensors"] == tt.Tags()["tensors"] == ["notes/text_summary"]
    assert te.Tensors("notes/text_summary")[0].tensor_proto == \
        tt.Tensors("notes/text_summary")[0].tensor_proto
    assert te.SummaryMetadata("notes/text_summary") == tt.SummaryMetadata("notes/text_summary")


def test_hparams_match_torch(tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2

    def fn(w, lib):
        w.add_hparams({"lr": 0.1, "bsize": 32, "opt": "adam", "nesterov": True},
                      {"hparam/accuracy": 0.9, "hparam/loss": 0.2},
                      hparam_domain_discrete={"opt": ["adam", "sgd"]}, run_name="trial")

    de, dt = _write_both(tmp_path, fn)
    ee, et = _load(de / "trial"), _load(dt / "trial")
    assert sorted(ee.Tags()["scalars"]) == sorted(et.Tags()["scalars"])
    for tag in ("_hparams_/experiment", "_hparams_/session_start_info",
                "_hparams_/session_end_info"):
        pe, pt = plugin_data_pb2.HParamsPluginData(), plugin_data_pb2.HParamsPluginData()
        pe.ParseFromString(ee.SummaryMetadata(tag).plugin_data.content)
        pt.ParseFromString(et.SummaryMetadata(tag).plugin_data.content)
        if tag.endswith("start_info"):
            pt.session_start_info.start_time_secs = pe.session_start_info.start_time_secs = 0
        if tag.endswith("end_info"):
            pt.session_end_info.end_time_secs = pe.session_end_info.end_time_secs = 0
        assert pe == pt, tag
    with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
        SummaryWriter(str(tmp_path / "x")).add_hparams([("lr", 1)], {})


def test_add_graph_warns_and_writer_lifecycle(tmp_path):
    w = SummaryWriter(str(tmp_path / "g"))
    with pytest.warns(UserWarning, match="add_graph: ember cannot trace"):
        w.add_graph(ember.nn.Linear(2, 2), ember.ones(1, 2))
    w.add_scalar("a", 1.0, 0)
    w.flush()
    assert _load(tmp_path / "g").Scalars("a")[0].value == 1.0
    w.close()
    w.close()  # twice is fine
    w.add_scalar("a", 2.0, 1)  # reopens a new event file, as torch
    w.close()
    assert [s.value for s in _load(tmp_path / "g").Scalars("a")] == [1.0, 2.0]
    assert w.get_logdir() == str(tmp_path / "g")


def test_default_log_dir_and_purge_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp")
    assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_exp")
    w.close()
    w = SummaryWriter(str(tmp_path / "p"), purge_step=5)
    w.add_scalar("a", 1.0, 5)
    w.close()
    assert _load(tmp_path / "p").Scalars("a")[0].step == 5


def test_bad_inputs(tmp_path):
    w = SummaryWriter(str(tmp_path / "b"))
    with pytest.raises(ValueError, match="add_scalar: the value must be a scalar"):
        w.add_scalar("x", ember.ones(3), 0)
    with pytest.raises(ValueError, match="The histogram is empty"):
        w.add_histogram("h", ember.ones(0), 0)
    with pytest.raises(ValueError, match="add_image: the image has 2 dims but dataformats"):
        w.add_image("i", ember.ones(4, 4), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.close()


def test_missing_tensorboard_gives_a_clear_import_error(monkeypatch):
    import sys
    for name in [m for m in sys.modules if m == "tensorboard" or m.startswith("tensorboard.")
                 or m.startswith("ember.utils.tensorboard")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    with pytest.raises(ImportError, match="needs the tensorboard package.*pip install "
                                          "tensorboard"):
        import ember.utils.tensorboard  # noqa: F401


@pytest.mark.parametrize("many", [False, True])
def test_add_figure_matches_torch(tmp_path, many):
    plt = pytest.importorskip("matplotlib.pyplot")

    def fig():
        f = plt.figure(figsize=(2, 1.5), dpi=50)
        plt.plot([0, 1, 2], [1, 0, 2])
        return f

    def fn(w, lib):
        w.add_figure("fig", [fig(), fig(), fig()] if many else fig(), 4)

    de, dt = _write_both(tmp_path, fn)
    ie, it = _load(de).Images("fig")[0], _load(dt).Images("fig")[0]
    assert (ie.width, ie.height, ie.step) == (it.width, it.height, it.step) == \
        ((300 if many else 100), 75, 4)
    assert ie.encoded_image_string == it.encoded_image_string
    assert plt.get_fignums() == []  # close=True closed them
