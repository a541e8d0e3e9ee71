"""torch.distributed.checkpoint.hf_storage: DCP's reader and writer of Hugging Face safetensors
checkpoints. ember has no DCP: the classes exist for imports, making one raises."""

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]

_WHY = ("ember has no distributed checkpoint (DCP) storage; save with ember.save(state_dict) or "
        "safetensors.torch.save_file")


class HuggingFaceStorageReader:
    """DCP's reader of a safetensors checkpoint folder: not in ember; raises when made."""
    _ember_not_implemented = True  # tools/compat_table.py counts it as missing

    def __init__(self, path, *args, **kwargs):
        raise NotImplementedError(f"HuggingFaceStorageReader: {_WHY}")


class HuggingFaceStorageWriter:
    """DCP's writer of a safetensors checkpoint folder: not in ember; raises when made."""
    _ember_not_implemented = True  # tools/compat_table.py counts it as missing

    def __init__(self, path, *args, **kwargs):
        raise NotImplementedError(f"HuggingFaceStorageWriter: {_WHY}")
