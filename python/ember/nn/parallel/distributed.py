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
from ...distributed.algorithms.join import Join, Joinable, JoinHook, _JoinConfig
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
        self.work = None                           # the all_reduce (no comm hook)
        self.fut = None                            # the comm hook's Future


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


class DistributedDataParallel(Module, Joinable):
    """Wraps `module` so that backward() averages its gradients over the process group.

    Arguments as torch's (device_ids/output_device/dim are accepted for CPU code and unused).
    broadcast_buffers: copy rank 0's buffers (BatchNorm statistics) to every rank before each
    forward. find_unused_parameters=False (the default) expects every parameter that requires
    grad to get a gradient in every step: if one does not, backward() raises a RuntimeError
    naming it (torch would hang in its next step instead). With True, a parameter without a
    gradient counts as zeros, and one that no rank used keeps its .grad untouched.
    gradient_as_bucket_view: after the first step each .grad is a view of its bucket (no copy).
    static_graph=True: the set of parameters without a gradient is found in the first
    synchronized backward (as with find_unused_parameters) and reused afterwards: those
    parameters count as zeros from the start of each backward, and the per-step all_reduce of
    the used-parameter counts is skipped. A backward whose unused set differs raises.
    register_comm_hook(state, hook) replaces the bucket all_reduce; join() handles uneven inputs.
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
        self.static_graph = bool(static_graph)
        self._static_unused = None   # static_graph: parameter indices unused in the first step
        self._static_used = None     # ... and how many ranks used each (None until known)
        self._comm_hook = None       # (state, hook) from register_comm_hook
        self._join_config = _JoinConfig.construct_disabled_join_config()
        self._divide_by_initial_world_size = True
        self._join_count = None      # this step's Work of Join.notify_join_context (ranks training)
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

    def _broadcast(self, tensors, src=0):
        """Rank src's values of `tensors` to every rank, one broadcast per dtype (coalesced)."""
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
                _dist().broadcast(flat, src, group=self.process_group)
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
        self._join_count = Join.notify_join_context(self)  # a Work (under join) or None
        self._sync_buffers(joined=False)
        if self._join_config.enable:  # tells the joined ranks whether to shadow a backward
            self._global_requires_sync(joined=False)
        return self.module(*inputs, **kwargs)

    def _sync_buffers(self, joined):
        """Buffers from one rank to all: rank 0, or under join() the highest rank still
        training (an all_reduce MAX finds it; a joined rank offers -1)."""
        if not (self.broadcast_buffers and self.require_forward_param_sync and self.world_size > 1):
            return
        buffers = list(self.module.buffers())
        if not buffers:
            return
        src = 0
        if self._join_config.enable:
            from ... import tensor
            rank = tensor([-1 if joined else self.rank], dtype=_int64)
            _dist().all_reduce(rank, op=_dist().ReduceOp.MAX, group=self.process_group)
            src = int(rank.item())
        self._broadcast([b.detach() for b in buffers], src)

    def _global_requires_sync(self, joined):
        """All-reduces whether this rank runs a synchronized backward (a joined rank: no);
        True when any rank does."""
        from ... import ones, zeros
        flag = ones(1) if not joined and self.require_backward_grad_sync else zeros(1)
        work = _dist().all_reduce(flag, group=self.process_group, async_op=True)
        if joined:
            work.wait()
            return flag.item() != 0
        return True

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
        if not self._expect_hooks or (self.world_size == 1 and self._comm_hook is None):
            return  # one process: nothing to average, unless a comm hook wants the buckets
        if not self._running:
            self._running = True
            from ...autograd.variable import Variable
            Variable._execution_engine.queue_callback(self._finish)
            self._mark_static_unused()
        if i in self._ready:
            static = self._static_unused is not None and i in self._static_unused
            self._abandon()
            if static:
                raise RuntimeError(
                    f"DistributedDataParallel: static_graph=True, but parameter '{self._param_names[i]}', "
                    "which got no gradient in the first iteration, got one now (the graph must not "
                    "change between iterations with static_graph=True)")
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

    def _mark_static_unused(self):
        """static_graph, after the first step: the parameters unused then count as zeros
        from the start (their buckets can leave before backward reaches them)."""
        for i in self._static_unused or ():
            b = self._bucket_of[i]
            b.views[i].zero_()
            b.pending -= 1
            self._ready.add(i)

    def _launch_ready(self):
        """Starts, in bucket order, every bucket whose gradients are all in."""
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1

    def _launch(self, b):
        """The bucket's all_reduce of the mean, or the registered comm hook's Future."""
        if self._comm_hook is None:
            b.buffer.div_(self._divisor())
            b.work = _dist().all_reduce(b.buffer, group=self.process_group, async_op=True)
            return
        from ...distributed import GradBucket
        from ...futures import Future
        state, hook = self._comm_hook
        bucket = GradBucket(b.index, b.buffer, [b.views[i] for i in b.params],
                            [self._params[i] for i in b.params], b.index == len(self._buckets) - 1)
        fut = hook(state, bucket)
        if not isinstance(fut, Future):
            raise RuntimeError("DistributedDataParallel: the communication hook must return an "
                               f"ember.futures.Future, got {type(fut).__name__}")
        b.fut = fut

    def _divisor(self):
        """The world size, or under join(divide_by_initial_world_size=False) the number of
        ranks still training in this step."""
        if self._join_count is None or self._divide_by_initial_world_size:
            return self.world_size
        return max(int(self._join_count.result()[0].item()), 1)

    def _wait_bucket(self, b):
        """Waits for the bucket's reduction; a hook's result lands in the bucket's buffer."""
        from ..._tensor import Tensor
        if b.work is not None:
            b.work.wait()
            return
        value = b.fut.wait()
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        if not isinstance(value, Tensor):
            raise RuntimeError("DistributedDataParallel: the communication hook's Future must hold a "
                               f"Tensor or a list of one Tensor, got {type(value).__name__}")
        if value.shape != b.buffer.shape:
            raise RuntimeError(f"DistributedDataParallel: the communication hook's result has shape "
                               f"{tuple(value.shape)}, expected the bucket's {tuple(b.buffer.shape)}")
        if not value._is_same(b.buffer):
            with no_grad():
                b.buffer.copy_(value)

    def _finish(self):
        """End of backward: launch what is left, wait for every bucket, copy back into .grad."""
        try:
            missing = [i for i in range(len(self._params)) if i not in self._ready]
            counting = self.find_unused_parameters or (self.static_graph and self._static_unused is None)
            if missing and not counting:
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
            used = self._count_users(missing) if counting else self._static_used
            if self.static_graph and self._static_unused is None:
                self._static_unused, self._static_used = set(missing), used
            for b in self._buckets:
                self._wait_bucket(b)
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
            for pending in (b.work, b.fut):
                if pending is not None:
                    try:
                        pending.wait()
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
            b.fut = None

    # ---- communication hooks -----------------------------------------------------------
    def register_comm_hook(self, state, hook):
        """hook(state, bucket: GradBucket) -> Future replaces each bucket's all_reduce: it
        must return an ember.futures.Future whose value is the bucket's reduced flat tensor
        (or a list of it); DDP copies that into the gradients. Once per model, before training."""
        import inspect

        from ...distributed import GradBucket
        from ...futures import Future
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        try:
            sig = inspect.signature(hook)
        except (TypeError, ValueError):
            sig = None
        if sig is not None:
            bucket = sig.parameters.get("bucket")
            if bucket is not None and bucket.annotation not in (inspect.Parameter.empty, GradBucket):
                raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
            ret = sig.return_annotation
            if ret not in (inspect.Signature.empty, Future) and getattr(ret, "__origin__", None) is not Future:
                raise ValueError("Communication hook: return annotation should be "
                                 "ember.futures.Future[ember.Tensor].")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._comm_hook = (state, hook)

    # ---- uneven inputs (Join) ---------------------------------------------------------
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """Join([self], ...): for inputs of different lengths on the ranks. A rank that runs
        out shadows the others' collectives (zero gradients) until every rank is done; then
        the parameters of the last rank to finish are copied to all. The gradients are
        divided by the initial world size, or with divide_by_initial_world_size=False by the
        number of ranks still training in that step."""
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        divide = kwargs.get("divide_by_initial_world_size", True)
        return _DDPJoinHook(self, divide_by_initial_world_size=divide)

    @property
    def join_device(self):
        from ..._device import device
        return device("cpu")

    @property
    def join_process_group(self):
        return self.process_group if self.process_group is not None else _dist().group.WORLD

    def _shadow_step(self):
        """A joined rank's side of one training step of the others (_DDPJoinHook.main_hook):
        the same collectives, in the same order, with zero gradients."""
        from ... import zeros
        self._sync_buffers(joined=True)
        if not self._global_requires_sync(joined=True):
            self.require_forward_param_sync = False
            return
        self.require_forward_param_sync = True
        try:
            for b in self._buckets:
                b.buffer.zero_()
                self._launch(b)
                self._wait_bucket(b)
            if self.find_unused_parameters or (self.static_graph and self._static_unused is None):
                used = zeros(len(self._params), dtype=_int64)
                _dist().all_reduce(used, group=self.process_group)
                if self.static_graph and self._static_unused is None:
                    self._static_used = used.tolist()
                    self._static_unused = {i for i, n in enumerate(self._static_used) if n == 0}
        finally:
            self._reset()

    def _sync_final_model(self, is_last_joiner):
        """After every rank joined: the parameters and buffers of the last rank to join
        (the highest such rank) are copied to every rank."""
        from ... import tensor
        rank = tensor([self.rank if is_last_joiner else -1], dtype=_int64)
        _dist().all_reduce(rank, op=_dist().ReduceOp.MAX, group=self.process_group)
        self._broadcast([t.detach() for t in self.module.state_dict().values()], int(rank.item()))

    # ---- the rest delegates to the wrapped module ----------------------------------
    def __del__(self):
        for h in getattr(self, "_hook_handles", ()):
            h.remove()

    def extra_repr(self):
        return f"world_size={self.world_size}, buckets={len(self._buckets)}"


class _DDPJoinHook(JoinHook):
    """DDP under Join: main_hook shadows a training step, post_hook syncs the final model."""

    def __init__(self, ddp, divide_by_initial_world_size):
        self.ddp = ddp
        ddp._divide_by_initial_world_size = divide_by_initial_world_size

    def main_hook(self):
        self.ddp._shadow_step()

    def post_hook(self, is_last_joiner):
        self.ddp._sync_final_model(is_last_joiner)


def _make_hook(ddp_ref, i):
    def hook(param):
        ddp = ddp_ref()
        if ddp is not None:
            ddp._grad_ready(i, param)
    return hook
