"""The drop-in runner (`python -m ember run`, ember.install_as_torch; ember/_drop_in.py): scripts of
our own written for PyTorch run on ember, in this process and in the processes they start. PyTorch
is installed in this venv too, so every check that `torch` is ember is a real one."""
import os
import subprocess
import sys
import textwrap

import pytest

PY = sys.executable
ENV = {k: v for k, v in os.environ.items() if k != "EMBER_AS_TORCH"}


def run(args, cwd, timeout=120, env=None):
    return subprocess.run([PY] + args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env or ENV)


def script(tmp_path, body, name="prog.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def test_script_sees_ember_as_torch(tmp_path):
    script(tmp_path, "helper = 42\n", name="sibling.py")
    path = script(tmp_path, """
        import sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, TensorDataset
        import torch.optim as optim
        from torch.optim.lr_scheduler import StepLR
        import sibling                      # sys.path[0] is the script's folder, as under python
        import ember
        assert torch is ember and nn is ember.nn and F is ember.nn.functional
        assert sys.modules["torch.nn"] is ember.nn and DataLoader is ember.utils.data.DataLoader
        assert __name__ == "__main__" and sibling.helper == 42
        model = nn.Linear(3, 1)
        opt = optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(8, 3)
        loss = F.mse_loss(model(x), x.sum(1, keepdim=True))
        loss.backward(); opt.step()
        print("argv", sys.argv[1:], type(model).__module__)
        """)
    r = run(["-m", "ember", "run", str(path), "--epochs", "1"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "argv ['--epochs', '1'] ember.nn.modules.linear" in r.stdout


def test_module_form(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text("import sys, torch\nprint(torch.__name__, sys.argv[1:], __name__)\n")
    r = run(["-m", "ember", "run", "-m", "pkg.train", "a", "b"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "torch ['a', 'b'] __main__"


def test_module_form_of_a_torch_module(tmp_path):
    """`-m torch.distributed.run` (a torch module run as a program, as `accelerate launch` and
    torchrun users spell it) runs ember's module: runpy gets its code from the finder."""
    r = run(["-m", "ember", "run", "-m", "torch.distributed.run", "--help"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "--nproc-per-node" in r.stdout or "--nproc_per_node" in r.stdout
    path = script(tmp_path, """
        import runpy, sys
        sys.argv = ["x", "--help"]
        try:
            runpy.run_module("torch.distributed.run", run_name="__main__")
        except SystemExit as e:
            print("exit", e.code)
        import torch
        print(torch.__name__, torch.__spec__.name)  # torch's name, ember's module
        """)
    r = run(["-m", "ember", "run", str(path)], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.split()[-3:] == ["0", "torch", "ember"], r.stderr
    r = run(["-m", "ember", "run", "-m", "torch.nn"], cwd=tmp_path)  # a package without __main__
    assert r.returncode != 0 and "torch.nn" in r.stderr


def test_exit_status_and_traceback(tmp_path):
    path = script(tmp_path, "import sys\nsys.exit(3)\n")
    assert run(["-m", "ember", "run", str(path)], cwd=tmp_path).returncode == 3
    path = script(tmp_path, "raise KeyError('boom')\n", name="bad.py")
    r = run(["-m", "ember", "run", str(path)], cwd=tmp_path)
    assert r.returncode == 1 and "KeyError: 'boom'" in r.stderr


def test_missing_names_say_so(tmp_path):
    path = script(tmp_path, """
        import torch
        try:
            import torch.no_such_namespace
        except ModuleNotFoundError as e:
            print("module:", e, e.name)
        try:
            torch.no_such_function
        except AttributeError as e:
            print("attr:", e)
        try:
            from torch.nn import NoSuchLayer
        except ImportError as e:
            print("from:", "NoSuchLayer" in str(e))
        print("hasattr:", hasattr(torch, "no_such_function"), hasattr(torch.nn, "Linear"))
        """)
    r = run(["-m", "ember", "run", str(path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert ("module: ember does not implement torch.no_such_namespace yet "
            "torch.no_such_namespace") in out
    assert ("attr: module 'torch' has no attribute 'no_such_function': ember does not implement "
            "torch.no_such_function yet") in out
    assert "from: True" in out and "hasattr: False True" in out


def test_bad_command_lines(tmp_path):
    r = run(["-m", "ember", "run", str(tmp_path / "missing.py")], cwd=tmp_path)
    assert r.returncode == 2 and "can't open file" in r.stderr
    r = run(["-m", "ember", "frobnicate"], cwd=tmp_path)
    assert r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr
    r = run(["-m", "ember", "run"], cwd=tmp_path)
    assert r.returncode == 2 and "needs a script" in r.stderr
    assert run(["-m", "ember", "--help"], cwd=tmp_path).returncode == 0


def test_spawned_children_and_workers_see_ember(tmp_path):
    path = script(tmp_path, """
        import torch
        import torch.multiprocessing as mp
        from torch.utils.data import DataLoader, Dataset

        def child(q):
            import torch
            q.put(torch.__spec__.name)

        class Squares(Dataset):
            def __len__(self):
                return 4
            def __getitem__(self, i):
                import torch
                return torch.tensor([float(i * i)]), torch.__spec__.name == "ember"

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            q = ctx.Queue()
            p = ctx.Process(target=child, args=(q,))
            p.start(); print("spawned:", q.get(timeout=60)); p.join()
            loader = DataLoader(Squares(), batch_size=2, num_workers=2,
                                multiprocessing_context="spawn")
            batches = list(loader)
            print("workers:", [b[0].flatten().tolist() for b in batches],
                  all(bool(b[1].all()) for b in batches))
        """)
    r = run(["-m", "ember", "run", str(path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "spawned: ember" in r.stdout
    assert "workers: [[0.0, 1.0], [4.0, 9.0]] True" in r.stdout


def test_launcher_ranks_see_ember(tmp_path):
    path = script(tmp_path, """
        import os, torch, torch.distributed as dist
        dist.init_process_group("gloo")
        t = torch.ones(2) * (dist.get_rank() + 1)
        dist.all_reduce(t)
        print(f"rank {dist.get_rank()} {torch.__spec__.name} {t.tolist()}")
        dist.destroy_process_group()
        """)
    r = run(["-m", "ember.distributed.run", "--nproc-per-node", "2", str(path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "rank 0 ember [3.0, 3.0]" in r.stdout and "rank 1 ember [3.0, 3.0]" in r.stdout


def test_install_as_torch_in_process(tmp_path):
    code = textwrap.dedent("""
        import os, ember
        ember.install_as_torch()
        import torch, torch.nn
        assert torch is ember and torch.nn is ember.nn
        assert torch.ones(1).type() == "torch.FloatTensor"  # old code compares these strings
        assert str(torch.ones(1).to_sparse().layout) == "torch.sparse_coo"  # PyG compares these
        assert repr(torch.strided) == "torch.strided" and torch.sparse_coo is ember.sparse_coo
        assert os.environ["EMBER_AS_TORCH"] == "1"
        assert ember.nn.__spec__.name == "ember.nn"   # ember's modules keep their own specs
        # ... and answer to the torch name they were imported by, as PyTorch's modules do
        assert torch.__name__ == "torch" and torch.nn.__name__ == "torch.nn"
        assert torch.nn.Linear.__module__ == "ember.nn.modules.linear"
        import torch.distributions.transforms
        parts = "torch.distributions.transforms.Transform".split(".")   # pyro's patch_dependency
        assert parts[0] == torch.__name__
        ember.install_as_torch()                      # again: ember under the name is not PyTorch
        import torchvision
        assert torchvision.__name__ == "torchvision" and torchvision is ember.vision
        print("ok")
        """)
    r = run(["-c", code], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_install_after_real_torch_refuses(tmp_path):
    code = "import torch, ember\nember.install_as_torch()\n"
    r = run(["-c", code], cwd=tmp_path)
    assert r.returncode == 1
    assert "torch (PyTorch's own) is imported already" in r.stderr


def test_environment_variable_installs_at_start(tmp_path):
    env = dict(ENV, EMBER_AS_TORCH="1")
    r = run(["-c", "import torch; print(torch.__spec__.name)"], cwd=tmp_path, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ember", r.stderr
    r = run(["-c", "import sys; print('ember' in sys.modules)"], cwd=tmp_path, env=ENV)
    assert r.stdout.strip() == "False"  # without the variable nothing is imported at start


def test_ember_name_mapping():
    from ember._drop_in import ember_name
    assert ember_name("torch") == "ember"
    assert ember_name("torch.nn.functional") == "ember.nn.functional"
    assert ember_name("torchvision.transforms") == "ember.vision.transforms"
    assert ember_name("torchvision") == "ember.vision"
    assert ember_name("torchaudio") is None and ember_name("torchx") is None
    assert ember_name("numpy") is None
