"""DistributedDataParallel: data-parallel training over ember.distributed (Gloo), as
torch.nn.parallel.DistributedDataParallel.

    dist.init_process_group("gloo")                    # the launcher sets RANK, WORLD_SIZE, ...
    model = DistributedDataParallel(model)             # every rank starts from rank 0's weights
    loss_fn(model(xb), yb).backward()                  # grads averaged over the ranks here
    opt.step()

How the gradients are averaged (torch's Reducer, in Python: a handful of calls per bucket):
- the parameters are split into buckets of about `bucket_cap_mb` (one dtype each), in
  REVERSE parameter order, because backward produces the last layer's gradients first;
- each parameter has a post-accumulate-grad hook: when backward has written its .grad, the
  hook copies it into its bucket's flat buffer; when a bucket is full it is divided by the
  world size and its all_reduce is launched with async_op=True. The process group's
  communication thread sums it while backward computes the earlier layers' gradients;
- buckets are launched strictly in order (a full bucket waits for the ones before it), so
  every rank issues the same collectives in the same order;
- a final callback (Variable._execution_engine.queue_callback) runs when backward is done:
  it waits for every bucket and copies the averaged values back into each .grad.
The extra cost per step is the copies in and out of the buckets and one all_reduce per
bucket; the Fashion-MNIST MLP (0.9 MB of float32 gradients) is one bucket, as in torch.
"""
import weakref
from contextlib import contextmanager

from ..._dtype import int64 as _int64
from ..._grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024  # torch's dist._DEFAULT_FIRST_BUCKET_BYTES
_DEFAULT_BUCKET_MB = 25


def _dist():
    from ... import distributed
    return distributed


class _Bucket:
    """Parameters (by index) whose gradients travel in one flat buffer."""

    def __init__(self, index, params, dtype):
        from ... import zeros
        self.index = index
        self.params = [i for i, _ in params]       # parameter indices, in bucket order
        numel = sum(p.numel() for _, p in params)
        self.buffer = zeros(numel, dtype=dtype)
        self.views = {}                            # param index -> view of the buffer, param-shaped
        offset = 0
        for i, p in params:
            n = p.numel()
            self.views[i] = self.buffer[offset:offset + n].view(p.shape)
            offset += n
        self.pending = len(params)                 # gradients not yet copied in this step
        self.work = None


def _assign_buckets(params, limits):
    """[(dtype, [(param index, param), ...]), ...]: reverse parameter order, one dtype per
    bucket, a bucket closes once it holds >= its limit of bytes (limits[k] for bucket k, the
    last limit for the rest), as torch's compute_bucket_assignment_by_size."""
    open_ = {}  # dtype -> (params, bytes)
    done = []
    for i in reversed(range(len(params))):
        p = params[i]
        members, size = open_.get(p.dtype, ([], 0))
        members.append((i, p))
        size += p.numel() * p.element_size()
        limit = limits[min(len(done), len(limits) - 1)]
        if size >= limit:
            done.append((p.dtype, members))
            open_.pop(p.dtype, None)
        else:
            open_[p.dtype] = (members, size)
    done.extend((dtype, members) for dtype, (members, _) in open_.items())
    return done


class DistributedDataParallel(Module):
    """Wraps `module` so that backward() averages its gradients over the process group.

    Arguments as torch's (device_ids/output_device/dim are accepted for CPU code and unused).
    broadcast_buffers: copy rank 0's buffers (BatchNorm statistics) to every rank before each
    forward. find_unused_parameters=False (the default) expects every parameter that requires
    grad to get a gradient in every step: if one does not, backward() raises a RuntimeError
    naming it (torch would hang in its next step instead). With True, a parameter without a
    gradient counts as zeros, and one that no rank used keeps its .grad untouched.
    gradient_as_bucket_view: after the first step each .grad is a view of its bucket (no copy).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 init_sync=True):
        super().__init__()
        dist = _dist()
        if not dist.is_initialized():
            raise RuntimeError("DistributedDataParallel: the default process group is not initialized "
                               "(call ember.distributed.init_process_group first)")
        if not isinstance(module, Module):
            raise TypeError("DistributedDataParallel: expected an ember.nn.Module, got "
                            f"{type(module).__name__}")
        self.module = module
        self.process_group = process_group
        self.world_size = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        default_cap = bucket_cap_mb is None
        cap_mb = _DEFAULT_BUCKET_MB if default_cap else bucket_cap_mb
        if not cap_mb > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any "
                               "parameter that requires a gradient.")
        self._param_names = [n for n, _ in named]
        self._params = [p for _, p in named]
        if init_sync:
            self._check_same_shapes()
            self._broadcast([t.detach() for t in module.state_dict().values()])
        limits = [_FIRST_BUCKET_BYTES, self.bucket_bytes_cap] if default_cap else [self.bucket_bytes_cap]
        self._buckets = [_Bucket(k, members, dtype)
                         for k, (dtype, members) in enumerate(_assign_buckets(self._params, limits))]
        self._bucket_of = {i: b for b in self._buckets for i in b.params}
        self._expect_hooks = False   # set by forward: the next backward averages gradients
        self._running = False        # a synchronized backward is in progress
        self._ready = set()
        self._next_bucket = 0
        me = weakref.ref(self)       # the hooks live in the parameters: no cycle through them
        self._hook_handles = [p.register_post_accumulate_grad_hook(_make_hook(me, i))
                              for i, p in enumerate(self._params)]

    # ---- construction --------------------------------------------------------------
    def _check_same_shapes(self):
        """Every rank must wrap the same architecture: compare a signature of the parameter
        shapes with rank 0's (one fixed-size broadcast, so a mismatch cannot desynchronize)."""
        from ... import tensor
        sig = [len(self._params), 0, 0, 0]
        for k, p in enumerate(self._params, 1):
            sig[1] += p.numel()
            sig[2] = (sig[2] * 31 + p.dim() * 1000003 + k * p.numel()) % (1 << 61)
            for d in p.shape:
                sig[3] = (sig[3] * 1000003 + d) % (1 << 61)
        theirs = tensor(sig, dtype=_int64)
        _dist().broadcast(theirs, 0, group=self.process_group)
        if theirs.tolist() != sig:
            raise RuntimeError(f"DistributedDataParallel: rank {self.rank}'s module has different parameters "
                               "than rank 0's (count or shapes; every rank must wrap the same model)")

    def _broadcast(self, tensors):
        """Rank 0's values of `tensors` to every rank, one broadcast per dtype (coalesced)."""
        from ... import cat
        if self.world_size == 1:
            return
        by_dtype = {}
        for t in tensors:
            if t.numel():
                by_dtype.setdefault(t.dtype, []).append(t)
        with no_grad():
            for group in by_dtype.values():
                flat = cat([t.reshape(-1) for t in group])
                _dist().broadcast(flat, 0, group=self.process_group)
                offset = 0
                for t in group:
                    n = t.numel()
                    t.copy_(flat[offset:offset + n].view(t.shape))
                    offset += n

    # ---- forward ---------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        if self._running:  # the previous backward failed before its final callback
            self._abandon()
        self._expect_hooks = is_grad_enabled() and self.require_backward_grad_sync
        if self.broadcast_buffers and self.require_forward_param_sync and self.world_size > 1:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast([b.detach() for b in buffers])
        return self.module(*inputs, **kwargs)

    @contextmanager
    def no_sync(self):
        """Inside, forward + backward accumulate gradients locally; the first synchronized step
        after it averages the sum (put the forward inside the context too, as in torch)."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ---- backward: called by the hooks ---------------------------------------------
    def _grad_ready(self, i, param):
        if not self._expect_hooks or self.world_size == 1:
            return
        if not self._running:
            self._running = True
            from ...autograd.variable import Variable
            Variable._execution_engine.queue_callback(self._finish)
        if i in self._ready:
            self._abandon()
            raise RuntimeError(f"DistributedDataParallel: parameter '{self._param_names[i]}' got a gradient "
                               "twice in one synchronized backward (call backward once per forward, or "
                               "use no_sync() for the extra passes)")
        self._ready.add(i)
        bucket = self._bucket_of[i]
        view = bucket.views[i]
        g = param.grad
        if g is not None and not (self.gradient_as_bucket_view and g._is_same(view)):
            with no_grad():
                view.copy_(g)
        bucket.pending -= 1
        self._launch_ready()

    def _launch_ready(self):
        """Starts, in bucket order, every bucket whose gradients are all in."""
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            b = self._buckets[self._next_bucket]
            b.buffer.div_(self.world_size)
            b.work = _dist().all_reduce(b.buffer, group=self.process_group, async_op=True)
            self._next_bucket += 1

    def _finish(self):
        """End of backward: launch what is left, wait for every bucket, copy back into .grad."""
        try:
            missing = [i for i in range(len(self._params)) if i not in self._ready]
            if missing and not self.find_unused_parameters:
                names = ", ".join(self._param_names[i] for i in missing)
                raise RuntimeError(
                    f"DistributedDataParallel: rank {self.rank}: parameters that require grad got no "
                    f"gradient in this backward: {names}. Every such parameter must take part in the "
                    "loss, or pass find_unused_parameters=True (torch would hang in the next step).")
            for i in missing:  # find_unused_parameters: they count as zeros
                b = self._bucket_of[i]
                b.views[i].zero_()
                b.pending -= 1
            self._launch_ready()
            # Every rank issues the same collectives in the same order: the buckets, then this.
            used = self._count_users(missing) if self.find_unused_parameters else None
            for b in self._buckets:
                b.work.wait()
            self._copy_back(used)
        finally:
            self._abandon()  # after an error, buckets may still be in flight

    def _count_users(self, missing):
        """How many ranks gave each parameter a gradient (find_unused_parameters=True)."""
        from ... import ones
        used = ones(len(self._params), dtype=_int64)
        for i in missing:
            used[i] = 0
        _dist().all_reduce(used, group=self.process_group)
        return used.tolist()

    def _copy_back(self, used):
        with no_grad():
            for b in self._buckets:
                for i in b.params:
                    p, view = self._params[i], b.views[i]
                    if used is not None and used[i] == 0:
                        continue  # no rank used it: leave .grad as it was
                    g = p.grad
                    if self.gradient_as_bucket_view:
                        if g is None or not g._is_same(view):
                            p.grad = view
                    elif g is None:
                        p.grad = view.clone()
                    else:
                        g.copy_(view)

    def _abandon(self):
        """Lets the all_reduces of a failed backward finish (they write into the buckets),
        ignoring their errors, and starts afresh."""
        for b in self._buckets:
            if b.work is not None:
                try:
                    b.work.wait()
                except RuntimeError:
                    pass
        self._reset()

    def _reset(self):
        self._running = False
        self._expect_hooks = False
        self._ready = set()
        self._next_bucket = 0
        for b in self._buckets:
            b.pending = len(b.params)
            b.work = None

    # ---- the rest delegates to the wrapped module ----------------------------------
    def __del__(self):
        for h in getattr(self, "_hook_handles", ()):
            h.remove()

    def extra_repr(self):
        return f"world_size={self.world_size}, buckets={len(self._buckets)}"


def _make_hook(ddp_ref, i):
    def hook(param):
        ddp = ddp_ref()
        if ddp is not None:
            ddp._grad_ready(i, param)
    return hook
