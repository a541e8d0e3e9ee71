"""A rank's uncaught exception, written for the launcher (torchrun's error file).

The launcher gives each rank TORCHELASTIC_ERROR_FILE; init_process_group installs a
sys.excepthook that writes the exception there as torch.distributed.elastic does
({"message": {"message": "RuntimeError: ...", "extraInfo": {...}}}) before Python prints
the traceback, so the launcher can say why a rank failed (run.py: read_error).
"""
import json
import os
import sys
import time
import traceback

_installed = False


def install():
    global _installed
    if _installed or not os.environ.get("TORCHELASTIC_ERROR_FILE"):
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        try:
            record = {"message": {"message": f"{kind.__name__}: {value}",
                                  "extraInfo": {"py_callstack": "".join(traceback.format_tb(tb)),
                                                "timestamp": str(int(time.time()))}}}
            path = os.environ["TORCHELASTIC_ERROR_FILE"]
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump(record, f)
            os.replace(tmp, path)
        except Exception:  # reporting is a courtesy: the traceback below still tells
            pass
        previous(kind, value, tb)

    sys.excepthook = hook
    _installed = True
