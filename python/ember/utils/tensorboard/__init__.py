"""ember.utils.tensorboard: SummaryWriter, as torch.utils.tensorboard, on the `tensorboard`
package from PyPI (an optional dependency: pip install tensorboard)."""
try:
    import tensorboard as _tensorboard
except ImportError as e:
    raise ModuleNotFoundError(
        "ember.utils.tensorboard needs the tensorboard package, which is not installed: "
        "pip install tensorboard", name="tensorboard") from e

if tuple(int(p) for p in _tensorboard.__version__.split(".")[:2] if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")
del _tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
