"""One rank of a DeviceMesh / coalesced-collective test (run by test_device_mesh.py):

    python _mesh_worker.py MODE RANK WORLD RDZV_DIR OUT_FILE [JSON_OPTIONS]

Builds a (2, WORLD // 2) mesh named ("dp", "tp") and records what the test compares."""
import numpy as np

import ember
import ember.distributed as dist
from ember.distributed.device_mesh import DeviceMesh, init_device_mesh

from _ddp_worker import start


def main():
    mode, rank, world, out, opts = start()
    mesh = init_device_mesh("cpu", (2, world // 2), mesh_dim_names=("dp", "tp"))
    res = {"coordinate": np.array(mesh.get_coordinate()),
           "local": np.array([mesh.get_local_rank("dp"), mesh.get_local_rank("tp")]),
           "dp_ranks": np.array(dist.get_process_group_ranks(mesh.get_group("dp"))),
           "tp_ranks": np.array(dist.get_process_group_ranks(mesh["tp"].get_group())),
           "reprs": np.array([repr(mesh), repr(mesh["dp"]), repr(mesh["tp"])]),
           "sub_mesh": mesh["tp"].mesh.numpy()}
    t = ember.tensor([float(rank)])
    dist.all_reduce(t, group=mesh.get_group("tp"))
    res["tp_sum"] = t.numpy()
    flat = init_device_mesh("cpu", (world,))
    res["flat_group"] = np.array(dist.get_process_group_ranks(flat.get_group()))
    res["from_group_equal"] = np.array(DeviceMesh.from_group(flat.get_group(), "cpu") == flat)
    a, b = ember.full((2,), float(rank)), ember.full((1, 3), float(rank * 10))
    dist.all_reduce_coalesced([a, b])
    res["coalesced"] = np.concatenate([a.numpy(), b.numpy().ravel()])
    c = ember.full((2,), float(rank))
    dist.all_reduce_coalesced([c], op=dist.ReduceOp.MAX, async_op=True).wait()
    res["coalesced_async"] = c.numpy()
    outs = [[ember.zeros(2), ember.zeros(1)] for _ in range(world)]
    dist.all_gather_coalesced(outs, [ember.full((2,), float(rank)), ember.tensor([rank * 7.0])])
    res["gathered"] = np.array([[o[0][0].item(), o[1][0].item()] for o in outs])
    np.savez(out, **res)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
