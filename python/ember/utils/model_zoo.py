"""ember.utils.model_zoo: torch.utils.model_zoo.load_url, which is
ember.hub.load_state_dict_from_url (a cached download, then ember.load)."""
from ..hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
