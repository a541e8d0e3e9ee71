"""torch.distributed.checkpoint (DCP): not in ember yet. The module and the names programs
import at load time exist (transformers imports hf_storage's reader and writer with its
distributed helpers), so such programs load; the storage classes raise NotImplementedError when
made. Save a model with ember.save(model.state_dict()) (or safetensors); FSDP1's
state_dict_type gives the full or sharded state dicts (docs/distributed.md)."""
from . import hf_storage  # noqa: F401
