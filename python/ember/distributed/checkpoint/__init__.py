"""torch.distributed.checkpoint (DCP). ember has its `state_dict` module (a model's and an
optimizer's state dicts keyed by parameter names, however the model is wrapped), not DCP's
save/load of sharded checkpoints: save those dicts with ember.save (or safetensors). The Hugging
Face reader/writer exist for imports (transformers loads them with its distributed helpers)
and raise NotImplementedError when made."""
from . import hf_storage, state_dict  # noqa: F401
