"""torch.distributed.checkpoint.state_dict: get_state_dict / get_model_state_dict /
get_optimizer_state_dict (nested and flattened) / set_state_dict on a plain model and on a DDP
wrapper, two param groups, frozen parameters, non-strict loading: the same keys, groups and
loaded values as torch 2.13. Each library runs this file as its own program (python
test_checkpoint_state_dict.py LIB): a process group of one, in a process of its own."""
import subprocess
import sys
import tempfile

import pytest


def program(lib):
    torch = __import__(lib)
    dist = torch.distributed
    S = __import__(f"{lib}.distributed.checkpoint.state_dict", fromlist=["x"])
    dist.init_process_group("gloo", init_method=f"file://{tempfile.mkdtemp()}/s", rank=0,
                            world_size=1)

    def model():
        m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
        m.load_state_dict({k: torch.arange(float(v.numel())).reshape(v.shape) / 10
                           for k, v in m.state_dict().items()})
        return m

    def adam(params, lr0, lr1):
        return torch.optim.Adam([{"params": params[:2], "lr": lr0}, {"params": params[2:], "lr": lr1}])

    res = []
    for wrap in ["plain", "ddp"]:
        m = model()
        d = torch.nn.parallel.DistributedDataParallel(m) if wrap == "ddp" else m
        opt = adam(list(d.parameters()), 0.1, 0.01)
        d(torch.ones(4, 2)).sum().backward()
        opt.step()
        msd, osd = S.get_state_dict(d, opt)
        res.append((wrap, list(msd), sorted(osd["state"]), [g["params"] for g in osd["param_groups"]],
                    [g["lr"] for g in osd["param_groups"]]))
        flat = S.get_optimizer_state_dict(
            d, opt, options=S.StateDictOptions(flatten_optimizer_state_dict=True))
        res.append(sorted(flat))
        m[0].weight.requires_grad_(False)
        res.append(list(S.get_model_state_dict(d, options=S.StateDictOptions(ignore_frozen_params=True))))
        m[0].weight.requires_grad_(True)
        # into a fresh model and optimizer (other learning rates), from the flat form
        m2 = model()
        d2 = torch.nn.parallel.DistributedDataParallel(m2) if wrap == "ddp" else m2
        opt2 = adam(list(d2.parameters()), 0.5, 0.5)
        S.set_state_dict(d2, opt2, model_state_dict=msd, optim_state_dict=flat)
        res.append([a.tolist() for a in m2.parameters()] == [a.tolist() for a in m.parameters()])
        s1, s2 = opt.state_dict()["state"], opt2.state_dict()["state"]
        res.append(sorted(s1) == sorted(s2) and all(
            float(s1[i][k].sum()) == float(s2[i][k].sum()) for i in s1 for k in s1[i]))
        res.append([g["lr"] for g in opt2.param_groups])
        res.append(str(S.set_model_state_dict(m2, {"0.weight": torch.zeros(3, 2)},
                                              options=S.StateDictOptions(strict=False))))
    dist.destroy_process_group()
    for r in res:
        print(r)


def test_state_dicts_as_torch():
    outs = {}
    for lib in ("torch", "ember"):
        r = subprocess.run([sys.executable, __file__, lib], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        outs[lib] = r.stdout
    assert outs["ember"] == outs["torch"]
    assert outs["ember"].count("True") == 4  # both wraps: parameters and optimizer state loaded


if __name__ == "__main__":
    program(sys.argv[1])
