"""torch.ThroughputBenchmark, BenchmarkConfig and BenchmarkExecutionStats (torch._C's): run a
module (or any callable) on the inputs given with add_input from several Python threads at
once and report the average latency. As torch's on an nn.Module, the threads share the GIL;
ember's ops release it only inside C++."""
import random
import threading
import time


class BenchmarkConfig:
    """How to run: num_calling_threads threads, each num_warmup_iters warm-up calls, then
    num_iters calls in total across the threads.

    >>> config = ember.BenchmarkConfig()
    >>> config.num_calling_threads, config.num_iters > 0
    (1, True)
    """

    def __init__(self):
        self.num_calling_threads = 1
        self.num_worker_threads = 1
        self.num_warmup_iters = 1
        self.num_iters = 100
        self.profiler_output_path = ""


class BenchmarkExecutionStats:
    """latency_avg_ms: the wall time of the measured part times the number of calling threads,
    divided by num_iters (torch's definition); num_iters: the calls measured.

    >>> bench = ember.ThroughputBenchmark(lambda x: x + 1)
    >>> bench.add_input(ember.ones(2))
    >>> config = ember.BenchmarkConfig()
    >>> config.num_warmup_iters, config.num_iters = 1, 4
    >>> stats = bench.benchmark(config)
    >>> stats.num_iters, isinstance(stats, ember.BenchmarkExecutionStats)
    (4, True)
    """

    def __new__(cls, *args, **kwargs):
        if args or kwargs or cls is BenchmarkExecutionStats:
            raise TypeError("ember.BenchmarkExecutionStats: No constructor defined!")
        return super().__new__(cls)

    @classmethod
    def _make(cls, latency_avg_ms, num_iters):
        self = object.__new__(cls)
        self.latency_avg_ms, self.num_iters = latency_avg_ms, num_iters
        return self

    def __repr__(self):
        return (f"BenchmarkExecutionStats(latency_avg_ms={self.latency_avg_ms:.4f}, "
                f"num_iters={self.num_iters})")


class ThroughputBenchmark:
    """Wraps `module`; add_input() stores call arguments, benchmark() replays them.

    >>> bench = ember.ThroughputBenchmark(lambda x: x * 2)
    >>> bench.add_input(ember.ones(2))
    >>> bench.run_once(ember.ones(2))
    tensor([2., 2.])
    """

    def __init__(self, module):
        if not callable(module):
            raise TypeError(f"ThroughputBenchmark(): expected a module or a callable, got "
                            f"{type(module).__name__}")
        self._module = module
        self._inputs = []

    def add_input(self, *args, **kwargs):
        self._inputs.append((args, kwargs))

    def run_once(self, *args, **kwargs):
        return self._module(*args, **kwargs)

    def benchmark(self, config):
        if not isinstance(config, BenchmarkConfig):
            raise TypeError(f"benchmark(): expected a BenchmarkConfig, got {type(config).__name__}")
        if not self._inputs:
            raise RuntimeError("Please provide benchmark inputs.Did you forget to call add_input()? ")
        n_threads = config.num_calling_threads
        if n_threads < 1 or config.num_iters < 0 or config.num_warmup_iters < 0:
            raise ValueError(f"benchmark(): num_calling_threads ({n_threads}) must be >= 1 and the "
                             f"iteration counts ({config.num_warmup_iters}, {config.num_iters}) >= 0")
        lock, started = threading.Lock(), threading.Barrier(n_threads + 1)
        finished = threading.Barrier(n_threads + 1)
        done = [0]
        errors = []

        def worker(seed):
            pick = random.Random(seed)
            try:
                for _ in range(config.num_warmup_iters):
                    args, kwargs = pick.choice(self._inputs)
                    self._module(*args, **kwargs)
            except BaseException as e:  # noqa: BLE001  (reported by the calling thread)
                errors.append(e)
            started.wait()
            while not errors:
                with lock:
                    if done[0] >= config.num_iters:
                        break
                    done[0] += 1
                args, kwargs = pick.choice(self._inputs)
                try:
                    self._module(*args, **kwargs)
                except BaseException as e:  # noqa: BLE001
                    errors.append(e)
            finished.wait()

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(n_threads)]
        for t in threads:
            t.start()
        started.wait()
        begin = time.perf_counter()
        finished.wait()
        elapsed_ms = (time.perf_counter() - begin) * 1000.0
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        iters = config.num_iters
        return BenchmarkExecutionStats._make(elapsed_ms * n_threads / iters if iters else 0.0, iters)


FUNCTIONS = {"ThroughputBenchmark": ThroughputBenchmark, "BenchmarkConfig": BenchmarkConfig,
             "BenchmarkExecutionStats": BenchmarkExecutionStats}
METHODS = {}
