"""ember._inductor.config: torch._inductor.config's settings with torch's defaults, refusals and
patch(), so that programs which tune torch's code generator run (ember reads none of them)."""
import pytest
import torch._inductor.config as tconfig

import ember._inductor.config as econfig
from ember._inductor.config import _DEFAULTS


def _get(config, dotted):
    obj = config
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", sorted(_DEFAULTS))
def test_defaults_are_torchs(name):
    assert _get(econfig, name) == _get(tconfig, name)


def test_set_read_back_refuse_and_patch():
    econfig.coordinate_descent_tuning = True
    econfig.triton.unique_kernel_names = False
    try:
        assert econfig.coordinate_descent_tuning is True
        assert econfig.triton.unique_kernel_names is False
        assert econfig.get_config_copy()["triton.unique_kernel_names"] is False
    finally:
        econfig.coordinate_descent_tuning = False
        econfig.triton.unique_kernel_names = True
    for cfg in (econfig, tconfig):
        with pytest.raises(AttributeError, match="does not exist"):
            cfg.no_such_setting = 1
        with pytest.raises(AttributeError, match="does not exist"):
            cfg.no_such_setting  # noqa: B018
    with pytest.raises(AttributeError):
        econfig.triton.no_such_setting = 1
    with econfig.patch(max_autotune=True):
        assert econfig.max_autotune is True
    assert econfig.max_autotune is False
    with econfig.patch("freezing", True):
        assert econfig.freezing is True
    assert econfig.freezing is False
