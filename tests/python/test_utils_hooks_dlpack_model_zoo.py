"""ember.utils.hooks, ember.utils.dlpack and ember.utils.model_zoo against torch 2.13's modules
of those names."""
import numpy as np
import torch

import ember


def test_hooks_removable_handle_is_what_register_returns():
    from ember.utils.hooks import RemovableHandle, unserializable_hook
    lin = ember.nn.Linear(2, 2)
    handle = lin.register_forward_hook(lambda m, a, o: None)
    assert isinstance(handle, RemovableHandle)
    handle.remove()
    assert not lin._forward_hooks
    for m in (ember, torch):
        hook = m.utils.hooks.unserializable_hook(lambda g: g)
        assert hook.__torch_unserializable__ is True
    assert unserializable_hook is ember.utils.hooks.unserializable_hook


def test_dlpack_round_trips_share_memory_with_torch_too():
    from ember.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack
    x = ember.arange(6.0).reshape(2, 3)
    y = from_dlpack(to_dlpack(x))
    y[0, 0] = 42.0
    assert x[0, 0].item() == 42.0  # shared, not copied
    t = torch.utils.dlpack.from_dlpack(to_dlpack(x))
    np.testing.assert_array_equal(t.numpy(), x.numpy())
    back = from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3.0)))
    assert back.tolist() == [0.0, 1.0, 2.0]
    assert [(d.name, d.value) for d in DLDeviceType] == \
        [(d.name, d.value) for d in torch.utils.dlpack.DLDeviceType]


def test_model_zoo_load_url_reads_a_torch_checkpoint(tmp_path):
    state = {"w": torch.arange(4.0).reshape(2, 2), "b": torch.tensor([1.0, -1.0])}
    path = tmp_path / "weights.pth"
    torch.save(state, path)
    got = ember.utils.model_zoo.load_url(path.as_uri(), model_dir=str(tmp_path / "cache"))
    assert sorted(got) == ["b", "w"]
    np.testing.assert_array_equal(got["w"].numpy(), state["w"].numpy())
    np.testing.assert_array_equal(got["b"].numpy(), state["b"].numpy())
