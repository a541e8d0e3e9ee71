"""spawn / start_processes: run fn(i, *args) in nprocs processes and wait for them, as
torch.multiprocessing.spawn does. If one fails, the others are terminated and the parent
raises ProcessRaisedException (with the child's traceback) or ProcessExitedException (exit
code or signal)."""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException",
           "spawn", "start_processes"]


class ProcessException(Exception):
    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed with an exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """A process exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _die_with_parent():
    # Linux: SIGINT when the parent dies, so children of a killed parent do not linger.
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGINT))  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _wrap(fn, i, args, error_file):
    _die_with_parent()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # SIGINT from the parent, which raises the real error
    except Exception:
        import traceback
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_files):
        processes, error_files = list(processes), list(error_files)
        if len(processes) != len(error_files) or not all(hasattr(p, "sentinel") for p in processes):
            raise TypeError("ProcessContext: expected a list of started processes and one error file each")
        self.processes, self.error_files = processes, error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """Waits up to `timeout` for a process to end. Returns True when all have ended
        successfully, False while some still run; raises when one failed (after
        terminating the others)."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        self._stop_all(grace_period)
        self._raise(error_index)

    def _stop_all(self, grace_period):
        if grace_period is not None:
            multiprocessing.connection.wait([p.sentinel for p in self.processes], timeout=grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(30 if grace_period is None else grace_period)
            if p.is_alive():
                p.kill()
                p.join()

    def _raise(self, index):
        proc, path = self.processes[index], self.error_files[index]
        if not os.access(path, os.R_OK):
            code = proc.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {index} terminated with signal {name}",
                                             index, proc.pid, code, name)
            raise ProcessExitedException(f"process {index} terminated with exit code {code}", index,
                                         proc.pid, code)
        with open(path, "rb") as fh:
            trace = pickle.load(fh)
        raise ProcessRaisedException(f"\n\n-- Process {index} terminated with the following error:\n"
                                     + trace, index, proc.pid)

    def __del__(self):
        for path in getattr(self, "error_files", ()):
            try:
                os.unlink(path)
            except OSError:
                pass


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts nprocs processes running fn(i, *args) with the given start method. join=True
    waits for all of them (raising on the first failure); join=False returns the ProcessContext."""
    if not callable(fn):
        raise TypeError(f"start_processes: fn must be callable, got {type(fn).__name__}")
    if not isinstance(args, tuple):
        raise TypeError(f"start_processes: args must be a tuple, got {type(args).__name__}")
    if not isinstance(nprocs, int) or isinstance(nprocs, bool) or nprocs < 1:
        raise ValueError(f"start_processes: nprocs must be a positive int, got {nprocs!r}")
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="ember-errorfile-", suffix=".pickle")
        os.close(fd)
        os.unlink(path)  # exists only if the child writes its traceback
        p = ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(path)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """torch.multiprocessing.spawn: start_processes with the spawn start method."""
    if start_method != "spawn":
        warnings.warn(f"spawn only supports start_method=spawn (got: {start_method}); use "
                      "start_processes(...) for another start method", FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
