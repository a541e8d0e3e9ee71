"""The Summary protocol buffers SummaryWriter writes: scalars, histograms, images, text and
hparams, in the layout TensorBoard's plugins read (the same as torch.utils.tensorboard)."""
import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.hparams import api_pb2, metadata as hparams_metadata
from tensorboard.plugins.hparams.plugin_data_pb2 import (HParamsPluginData, SessionEndInfo,
                                                         SessionStartInfo)
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

__all__ = ["to_numpy", "scalar", "histogram", "image", "text", "hparams", "default_bins",
           "figure_to_image"]


def to_numpy(x):
    """An ember tensor, a NumPy array, a number or a list as a NumPy array."""
    from ..._C import Tensor
    if isinstance(x, Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def _scalar_value(name, value):
    v = to_numpy(value).squeeze()
    if v.ndim != 0:
        raise ValueError(f"{name}: the value must be a scalar (one element), got shape "
                         f"{tuple(to_numpy(value).shape)}")
    return v.item()


def scalar(tag, value, new_style=False, double_precision=False):
    """A scalar: simple_value, or with new_style a 0-d float tensor for the scalars plugin."""
    v = float(_scalar_value("add_scalar", value))
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=v)])
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    t = (TensorProto(double_val=[v], dtype="DT_DOUBLE") if double_precision
         else TensorProto(float_val=[v], dtype="DT_FLOAT"))
    return Summary(value=[Summary.Value(tag=tag, tensor=t, metadata=meta)])


def default_bins():
    """TensorFlow's histogram bucket limits: +-1e-12 growing by 10% up to 1e20, and 0."""
    n = int(np.ceil(np.log(1e32) / np.log(1.1))) + 1
    pos = np.cumprod(np.concatenate([[1e-12], np.full(n, 1.1)]))  # v *= 1.1, step by step
    pos = pos[pos < 1e20]
    return np.concatenate([-pos[::-1], [0.0], pos])


def histogram(tag, values, bins, max_bins=None):
    """A HistogramProto of values: counts per bucket (`bins` as np.histogram's, or
    'tensorflow' for default_bins) from the first to the last non-empty one, after one empty
    bucket whose right limit is the left edge (TensorBoard stores right limits only)."""
    v = to_numpy(values).astype(np.float64).reshape(-1)
    if v.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    if isinstance(bins, str) and bins == "tensorflow":
        bins = default_bins()
    counts, limits = np.histogram(v, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge groups of len // max_bins neighbouring buckets
        factor = len(counts) // max_bins
        counts = np.pad(counts, (0, (-len(counts)) % factor)).reshape(-1, factor).sum(1)
        limits = np.concatenate([limits[:-1][::factor], limits[-1:]])
    nonzero = np.nonzero(counts)[0]
    if nonzero.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = nonzero[0], nonzero[-1]
    counts = np.concatenate([[0], counts[first:last + 1]])
    limits = limits[first:last + 2]
    proto = HistogramProto(min=v.min(), max=v.max(), num=v.size, sum=v.sum(),
                           sum_squares=float(v.dot(v)), bucket_limit=limits.tolist(),
                           bucket=counts.astype(np.float64).tolist())
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def to_hwc(array, dataformats):
    """An image array in `dataformats` (a permutation of CHW or HWC, or HW, NCHW...) as HWC
    with 3 or 4 channels; a single channel is repeated, NCHW becomes a grid."""
    dataformats = dataformats.upper()
    if len(set(dataformats)) != len(dataformats) or array.ndim != len(dataformats):
        raise ValueError(f"add_image: the image has {array.ndim} dims but dataformats is "
                         f"{dataformats!r}")
    if "N" in dataformats:
        nchw = array.transpose([dataformats.index(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if dataformats == "HW":
        return np.stack([array] * 3, 2)
    hwc = array.transpose([dataformats.index(c) for c in "HWC"])
    if hwc.shape[2] == 1:
        hwc = np.concatenate([hwc] * 3, 2)
    return hwc


def make_grid(nchw, ncols=8):
    """(N, C, H, W) images tiled into one (3, rows * H, cols * W) canvas, row by row."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, 1)
    n, c, h, w = nchw.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols) if n else 0
    padded = np.zeros((nrows * ncols, c, h, w), dtype=nchw.dtype)
    padded[:n] = nchw
    return padded.reshape(nrows, ncols, c, h, w).transpose(2, 0, 3, 1, 4).reshape(
        c, nrows * h, ncols * w)


def image(tag, values, dataformats="CHW"):
    """A PNG image summary: float images are scaled from [0, 1] to [0, 255], uint8 kept."""
    from PIL import Image
    arr = to_numpy(values)
    scale = 1 if arr.dtype == np.uint8 else 255
    hwc = to_hwc(arr, dataformats)
    hwc = np.clip(hwc.astype(np.float32) * scale, 0, 255).round().astype(np.uint8)
    h, w, c = hwc.shape
    buf = io.BytesIO()
    Image.fromarray(hwc).save(buf, format="PNG")
    img = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue())
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def figure_to_image(figures, close=True):
    """A matplotlib figure rendered to a (3, H, W) uint8 array (a list: (N, 3, H, W))."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        w, h = figure.canvas.get_width_height()
        rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8).reshape(h, w, 4)
        if close:
            plt.close(figure)
        return rgba[:, :, :3].transpose(2, 0, 1)

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)


def text(tag, text_string):
    """A string for the text plugin, under tag + '/text_summary' as torch writes it."""
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    t = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                    tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=t)])


def _hparam_value(name, v):
    if isinstance(v, (bool, int, float, str)):
        return v
    from ..._C import Tensor
    if isinstance(v, (Tensor, np.ndarray, np.generic)):
        return _scalar_value("add_hparams", v)
    if v is None:
        return "None"
    raise ValueError(f"add_hparams: value of hparam {name!r} should be one of int, float, str, "
                     f"bool, or a one-element tensor; got {type(v).__name__}")


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of the hparams plugin."""
    hparam_domain_discrete = hparam_domain_discrete or {}
    values = {k: _hparam_value(k, v) for k, v in hparam_dict.items()}
    for k, domain in hparam_domain_discrete.items():
        if k not in values or not isinstance(domain, list) or not all(
                isinstance(d, type(values[k])) for d in domain):
            raise TypeError("parameter: hparam_domain_discrete[" + k + "] should be a list of "
                            "the same type as hparam_dict[" + k + "].")
    infos = []
    for k, v in values.items():
        info = api_pb2.HParamInfo(name=k)
        if isinstance(v, (int, float)):  # bools too, as torch writes them
            info.type = api_pb2.DATA_TYPE_FLOAT64
        else:
            info.type = api_pb2.DATA_TYPE_STRING
        if k in hparam_domain_discrete:
            info.domain_discrete.extend(hparam_domain_discrete[k])
        infos.append(info)
    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    start = SessionStartInfo()
    for k, v in values.items():
        if isinstance(v, (int, float)):
            start.hparams[k].number_value = v
        else:
            start.hparams[k].string_value = v
    return (_hparams_summary(hparams_metadata.EXPERIMENT_TAG, HParamsPluginData(
                experiment=api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics))),
            _hparams_summary(hparams_metadata.SESSION_START_INFO_TAG,
                             HParamsPluginData(session_start_info=start)),
            _hparams_summary(hparams_metadata.SESSION_END_INFO_TAG, HParamsPluginData(
                session_end_info=SessionEndInfo(status=api_pb2.STATUS_SUCCESS))))


def _hparams_summary(tag, data):
    data.version = hparams_metadata.PLUGIN_DATA_VERSION
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name=hparams_metadata.PLUGIN_NAME, content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])
