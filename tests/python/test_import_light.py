"""`import ember` stays light (Note [Lazy imports]): no NumPy, no torch, no ember.distributed
until something needs them; each loads on first use. (Its time is a bench figure, not a test.)"""
import json
import subprocess
import sys

import ember

PROBE = """
import json, sys
import ember
before = {m: m in sys.modules for m in ("numpy", "torch", "ember.distributed", "ember.utils.data")}
ember.nn.parallel.DistributedDataParallel
after_ddp = "ember.distributed" in sys.modules
ember.tensor([1.0, 2.0]).numpy()
print(json.dumps({"before": before, "after_ddp": after_ddp, "numpy_after": "numpy" in sys.modules}))
"""


def test_import_loads_no_numpy_torch_or_distributed():
    import os
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env["PYTHONPATH"] = pkg
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["before"] == {"numpy": False, "torch": False, "ember.distributed": False,
                             "ember.utils.data": False}
    assert got["after_ddp"] and got["numpy_after"]
