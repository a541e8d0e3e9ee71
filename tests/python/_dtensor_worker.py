"""One rank of a DTensor test (run by test_dtensor.py): 4 ranks, a (4,) and a (2, 2) mesh.

    python _dtensor_worker.py MODE RANK WORLD RDZV_DIR OUT_FILE [JSON_OPTIONS]
"""
import numpy as np

import ember
import ember.distributed as dist
from ember.distributed.tensor import (DTensor, Partial, Replicate, Shard, distribute_tensor,
                                      init_device_mesh, rand)

from _ddp_worker import start


def main():
    mode, rank, world, out, opts = start()
    m1 = init_device_mesh("cpu", (world,))
    m2 = init_device_mesh("cpu", (2, world // 2), mesh_dim_names=("dp", "tp"))
    x = ember.arange(30, dtype=ember.float32).reshape(5, 6) * (1 if rank == 0 else -1)  # rank 0's counts
    res = {}
    d = distribute_tensor(x, m1, [Shard(0)])
    res["s0_local"] = d.to_local().numpy()
    res["s0_full"] = d.full_tensor().numpy()
    res["s0_shape"] = np.array(d.shape)
    d2 = distribute_tensor(x, m2, [Shard(0), Shard(1)])
    res["s01_local"] = d2.to_local().numpy()
    res["s01_full"] = d2.full_tensor().numpy()
    r = d2.redistribute(placements=[Replicate(), Shard(0)])
    res["rs_local"] = r.to_local().numpy()
    res["rs_full"] = r.full_tensor().numpy()
    s1 = d.redistribute(m1, [Shard(1)])
    res["s1_local"] = s1.to_local().numpy()
    p = DTensor.from_local(ember.full((2, 3), float(rank + 1)), m1, [Partial()])
    res["partial_full"] = p.full_tensor().numpy()
    res["partial_s0"] = p.redistribute(m1, [Shard(0)]).to_local().numpy()
    pm = DTensor.from_local(ember.full((2,), float(rank)), m1, [Partial("max")])
    res["partial_max"] = pm.full_tensor().numpy()
    back = DTensor.from_local(d.to_local(), m1, [Shard(0)], shape=d.shape)
    res["from_local_full"] = back.full_tensor().numpy()
    ember.manual_seed(rank)  # the ranks' own streams differ; rand's pieces come from one
    rd = rand(4, 3, device_mesh=m1, placements=[Shard(0)])
    res["rand_full"] = rd.full_tensor().numpy()
    res["repr"] = np.array(repr(d2.placements))
    np.savez(out, **res)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
