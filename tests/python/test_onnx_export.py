"""ember.onnx.export: real ONNX files (checked by onnx.checker), run in onnxruntime and compared
with ember eager: an MLP, the Fashion-MNIST CNN, an LSTM, a TransformerEncoderLayer; dynamic
axes, names, opsets; unsupported ops and bad arguments raise."""
import io

import numpy as np
import pytest

import ember
from ember.examples.fashion_mnist import build_model

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _run(path_or_bytes, feeds):
    sess = ort.InferenceSession(path_or_bytes, providers=["CPUExecutionProvider"])
    return sess, sess.run(None, feeds)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _check(model, xs, tmp_path, atol=1e-5, **kw):
    """Exports model on xs, runs the file in onnxruntime, compares with ember eager."""
    path = tmp_path / "model.onnx"
    if isinstance(model, ember.nn.Module):
        model.eval()
    ember.manual_seed(0)
    args = tuple(ember.tensor(x) for x in xs)
    ember.onnx.export(model, args, str(path), **kw)
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    names = [i.name for i in proto.graph.input]
    sess, outs = _run(str(path), dict(zip(names, xs)))
    with ember.no_grad():
        want = model(*args)
    flat = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            for e in v:
                walk(e)
        elif v is not None:
            flat.append(v.numpy())
    walk(want)
    assert len(outs) == len(flat)
    for got, exp in zip(outs, flat):
        np.testing.assert_allclose(got, exp, rtol=1e-4, atol=atol)
    return proto, sess


def test_mlp_with_dynamic_batch(tmp_path):
    ember.manual_seed(0)
    model = build_model(ember, "mlp")
    proto, sess = _check(model, [_rand(4, 1, 28, 28)], tmp_path, input_names=["image"],
                         output_names=["logits"],
                         dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    assert [i.name for i in proto.graph.input] == ["image"]
    assert [o.name for o in proto.graph.output] == ["logits"]
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and [d.dim_value for d in dims[1:]] == [1, 28, 28]
    assert proto.opset_import[0].version == 18
    x = _rand(7, 1, 28, 28, seed=3)  # another batch size through the same file
    with ember.no_grad():
        np.testing.assert_allclose(sess.run(None, {"image": x})[0],
                                   model(ember.tensor(x)).numpy(), rtol=1e-4, atol=1e-5)


def test_fashion_mnist_cnn(tmp_path):
    ember.manual_seed(1)
    proto, _ = _check(build_model(ember, "cnn"), [_rand(2, 1, 28, 28)], tmp_path,
                      opset_version=17)
    ops = [n.op_type for n in proto.graph.node]
    assert ops.count("Conv") == 2 and ops.count("MaxPool") == 2
    assert proto.opset_import[0].version == 17


class _LSTMNet(ember.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.lstm = ember.nn.LSTM(5, 8, **kw)
        self.head = ember.nn.Linear(8 * (2 if kw.get("bidirectional") else 1), 3)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1]), h, c


@pytest.mark.parametrize("kw", [dict(num_layers=2, batch_first=True),
                                dict(bidirectional=True, batch_first=True)])
def test_lstm(tmp_path, kw):
    ember.manual_seed(2)
    proto, sess = _check(_LSTMNet(**kw), [_rand(3, 6, 5)], tmp_path, atol=1e-5,
                         input_names=["x"], dynamic_axes={"x": {0: "batch", 1: "time"}})
    assert "LSTM" in [n.op_type for n in proto.graph.node]
    out = sess.run(None, {"x": _rand(2, 9, 5, seed=4)})  # other batch and sequence lengths
    assert out[0].shape == (2, 3)


def test_gru_with_initial_state(tmp_path):
    ember.manual_seed(3)
    gru = ember.nn.GRU(4, 6, num_layers=2)
    _check(gru, [_rand(5, 2, 4), _rand(2, 2, 6, seed=1)], tmp_path)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_layer(tmp_path, batch_first):
    ember.manual_seed(4)
    layer = ember.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=batch_first)
    proto, sess = _check(layer, [_rand(5, 2, 16)], tmp_path, atol=1e-4,
                         dynamic_axes={"src": {0: "a", 1: "b"}})
    ops = {n.op_type for n in proto.graph.node}
    assert {"LayerNormalization", "Softmax", "MatMul"} <= ops
    layer.eval()
    x = _rand(3, 4, 16, seed=5)
    with ember.no_grad():
        np.testing.assert_allclose(sess.run(None, {"src": x})[0],
                                   layer(ember.tensor(x)).numpy(), rtol=1e-4, atol=1e-4)


class _Mixed(ember.nn.Module):
    """Layers and functions beyond the four models: norms, pools, activations, embedding."""

    def __init__(self):
        super().__init__()
        self.conv = ember.nn.Conv1d(3, 6, 3, padding=1, stride=2)
        self.bn = ember.nn.BatchNorm1d(6)
        self.pool = ember.nn.AvgPool1d(2)
        self.conv2 = ember.nn.Conv2d(1, 2, 3, padding="same")
        self.gap = ember.nn.AdaptiveAvgPool2d(1)
        self.emb = ember.nn.Embedding(10, 4)
        self.act = ember.nn.LeakyReLU(0.1)
        self.out = ember.nn.LogSoftmax(dim=1)

    def forward(self, x, img, idx):
        h = self.pool(ember.nn.functional.gelu(self.bn(self.conv(x))))      # (N, 6, 2)
        g = self.gap(self.act(self.conv2(img))).flatten(1)                   # (N, 2)
        e = self.emb(idx).mean(1)                                            # (N, 4)
        z = ember.cat([h.permute(0, 2, 1).reshape(h.shape[0], -1), g, e], 1)
        z = ember.nn.functional.silu(z).unsqueeze(1).squeeze(1)
        w = ember.stack([z, z.transpose(0, 1).t()], dim=0).sum(0)
        return self.out(w), (w > 0).float() * (w != 0), w[..., 1:5, None]


def test_more_layers_and_ops(tmp_path):
    ember.manual_seed(6)
    model = _Mixed()
    model.bn.running_mean.copy_(ember.randn(6))
    model.bn.running_var.copy_(ember.rand(6) + 0.5)
    idx = np.random.default_rng(7).integers(0, 10, (3, 5))
    path = tmp_path / "mixed.onnx"
    model.eval()
    args = (ember.tensor(_rand(3, 3, 8)), ember.tensor(_rand(3, 1, 6, 6, seed=1)),
            ember.tensor(idx))
    ember.onnx.export(model, args, str(path), dynamic_axes={"x": [0], "img": [0], "idx": [0]})
    _, outs = _run(str(path), {"x": args[0].numpy(), "img": args[1].numpy(), "idx": idx})
    with ember.no_grad():
        want = model(*args)
    for got, exp in zip(outs, want):
        np.testing.assert_allclose(got, exp.numpy(), rtol=1e-4, atol=1e-5)


def test_multihead_attention_weights(tmp_path):
    ember.manual_seed(7)
    mha = ember.nn.MultiheadAttention(8, 2, batch_first=True)
    q, kv = _rand(2, 3, 8), _rand(2, 5, 8, seed=1)
    proto, _ = _check(mha, [q, kv, kv], tmp_path, atol=1e-5)
    assert [i.name for i in proto.graph.input] == ["query", "key", "value"]


def test_function_and_shape_ops(tmp_path):
    def f(x, y):
        h = ember.cat([x.relu(), y.sigmoid()], dim=1)
        h = h.view(h.size(0), -1) * 2.0 - 1
        return ember.nn.functional.softmax(h, dim=-1), h.mean(1, keepdim=True), h.t()
    _check(f, [_rand(3, 2), _rand(3, 4)], tmp_path, dynamic_axes={"x": [0], "y": [0]})


def test_file_object_program_and_eval_mode(tmp_path):
    ember.manual_seed(5)
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Dropout(0.5), ember.nn.Tanh())
    model.train()
    buf = io.BytesIO()
    prog = ember.onnx.export(model, (ember.ones(2, 3),), buf)
    assert model.training  # restored after the export, which ran in eval mode
    if isinstance(model, ember.nn.Module):
        model.eval()
    _, (out,) = _run(buf.getvalue(), {"input": np.ones((2, 3), np.float32)})
    with ember.no_grad():
        np.testing.assert_allclose(out, model(ember.ones(2, 3)).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(prog(ember.ones(2, 3))[0].numpy(), out, rtol=1e-6)
    assert ember.onnx.export(model, (ember.ones(2, 3),), buf, dynamo=False) is None
    assert not ember.onnx.is_in_onnx_export()


def test_unsupported_and_bad_arguments(tmp_path):
    path = str(tmp_path / "m.onnx")
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match="cumsum"):
        ember.onnx.export(lambda x: x.cumsum(0), (ember.ones(3),), path)
    with pytest.raises(ValueError, match="opset_version 9 is not supported"):
        ember.onnx.export(ember.nn.ReLU(), (ember.ones(3),), path, opset_version=9)
    with pytest.raises(TypeError, match="model must be a Module or a function"):
        ember.onnx.export(3, (ember.ones(3),), path)
    with pytest.raises(ember.onnx.OnnxExporterError):
        ember.onnx.export(ember.nn.MaxPool2d(2, return_indices=True), (ember.ones(1, 1, 4, 4),),
                          path)
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        ember.onnx.export(ember.nn.ReLU(), (ember.ones(3),), path, foo=1)
    with pytest.warns(UserWarning, match="not a valid input/output name"):
        ember.onnx.export(ember.nn.ReLU(), (ember.ones(3),), path, dynamic_axes={"nope": [0]})


# ---- ONNXProgram and TrainingMode (torch.onnx's names) ---------------------------------------
def _program(tmp_path):
    ember.manual_seed(3)
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))
    prog = ember.onnx.export(model.eval(), (ember.ones(5, 3),), input_names=["x"],
                             output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    return model, prog


def test_onnx_program(tmp_path):
    import torch
    model, prog = _program(tmp_path)
    assert isinstance(prog, ember.onnx.ONNXProgram) and prog.model_proto is prog.model
    assert {"save", "apply_weights", "call_reference", "compute_values", "release",
            "initialize_inference_session", "rename_axes"} <= set(dir(torch.onnx.ONNXProgram))
    x = ember.tensor(_rand(7, 3))  # another batch size: the axis is dynamic
    with ember.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(prog(x)[0].numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(prog.call_reference(x)[0].numpy(), want, rtol=1e-5, atol=1e-6)
    # an intermediate value: the first Linear's output, the ReLU's input
    relu_in = [n.input[0] for n in prog.model_proto.graph.node if n.op_type == "Relu"][0]
    (h,) = prog.compute_values([relu_in], (x,))
    with ember.no_grad():
        np.testing.assert_allclose(h.numpy(), model[0](x).numpy(), rtol=1e-5, atol=1e-6)
    # save, reload: the same program
    path = tmp_path / "p.onnx"
    prog.save(str(path))
    onnx.checker.check_model(onnx.load(str(path)))
    # new weights into the program: the output follows them
    inits = {t.name: tuple(t.dims) for t in prog.model_proto.graph.initializer}
    name = next(n for n, d in inits.items() if d == (2,))  # the last bias
    prog.initialize_inference_session()
    prog.apply_weights({name: ember.full((2,), 5.0)})
    with ember.no_grad():
        shifted = (model[2](model[1](model[0](x))) - model[2].bias + 5.0).numpy()
    np.testing.assert_allclose(prog(x)[0].numpy(), shifted, rtol=1e-5, atol=1e-5)
    with pytest.warns(ember.onnx.errors.OnnxExporterWarning, match="not found"):
        prog.apply_weights({"no_such_weight": ember.ones(2)})
    with pytest.raises(ValueError, match="apply_weights"):
        prog.apply_weights({name: ember.ones(3)})
    prog.rename_axes({"batch": "N"})
    assert prog.model_proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "N"
    prog.release()
    assert prog(x)[0].shape == (7, 2)  # a new session after release
    with pytest.raises(ValueError, match="no value named"):
        prog.compute_values(["nope"], (x,))
    assert "ONNXProgram(" in repr(prog)


def test_training_mode_as_torch(tmp_path):
    import torch
    assert {m.name: int(m) for m in ember.onnx.TrainingMode} == \
        {m.name: int(m.value) for m in torch.onnx.TrainingMode.__members__.values()}
    path = str(tmp_path / "m.onnx")
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Dropout(0.5)).train()
    # EVAL (the default) exports in eval mode and restores the module's mode
    ember.onnx.export(model, (ember.ones(2, 3),), path, training=ember.onnx.TrainingMode.EVAL)
    assert model.training
    # PRESERVE keeps the mode: in eval mode it exports, in train mode dropout cannot be written
    ember.onnx.export(model.eval(), (ember.ones(2, 3),), path,
                      training=ember.onnx.TrainingMode.PRESERVE)
    with pytest.raises(ember.onnx.OnnxExporterError, match="dropout"):
        ember.onnx.export(model.train(), (ember.ones(2, 3),), path,
                          training=ember.onnx.TrainingMode.PRESERVE)
    with pytest.raises(NotImplementedError, match="TRAINING"):
        ember.onnx.export(model, (ember.ones(2, 3),), path,
                          training=ember.onnx.TrainingMode.TRAINING)
