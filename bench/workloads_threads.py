"""Python threads (issue 17 item 5): two threads each multiply a 1024² float32 pair at once.
Each library runs with one thread of its own (run.py's --threads), so the speedup can only
come from the two Python threads running their products side by side: ember drops the GIL
in big kernels (include/ember/interpreter_lock.h), as torch and NumPy do. The `ember/own`
column is the two threads' time over the same two products run one after the other in one
thread: 0.5 is a perfect 2x, 0.56 is the issue's 1.8x. Imported by run.py to register it."""
import threading

from common import OWN, workload

N = 1024


def _two_threads(fn):
    def run():
        threads = [threading.Thread(target=fn) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return run


@workload("matmul 1024², 2 Python threads", flops=2 * 2 * N**3,
          note="ember/own: over the same two products in one thread")
def two_thread_matmul(L):
    np = L["numpy"]
    a = np.random.default_rng(0).standard_normal((N, N)).astype("float32")
    mats = {"numpy": a, "torch": L["torch"].tensor(a), "ember": L["ember"].tensor(a)}
    out = {lib: _two_threads(lambda m=mats[lib]: m @ m) for lib in ("numpy", "torch", "ember")}
    e = mats["ember"]
    out[OWN] = lambda: (e @ e, e @ e)
    return out
