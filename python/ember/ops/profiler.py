"""torch.ops.profiler: open and close a named profiler range from code, as record_function's
__enter__/__exit__ do (fx graphs call these: pytorch/examples' fx/profiling_tracer.py). The
handle is the open range (torch returns an opaque tensor). fx keeps their call nodes through
dead-code elimination (_fx_side_effect)."""
from .. import _C


def _record_function_enter(name, args=None):
    """Opens the range `name` and returns its handle."""
    scope = _C._UserScope(str(name))
    scope.__enter__()
    return scope


def _record_function_enter_new(name, args=None):
    return _record_function_enter(name, args)


def _record_function_exit(handle):
    """Closes the range opened by _record_function_enter."""
    if not isinstance(handle, _C._UserScope):
        raise RuntimeError(f"profiler::_record_function_exit(): expected the handle "
                           f"_record_function_enter returned for argument 'handle', but found "
                           f"type '{type(handle).__name__}'")
    handle.__exit__(None, None, None)


for _fn in (_record_function_enter, _record_function_enter_new, _record_function_exit):
    _fn._fx_side_effect = True
