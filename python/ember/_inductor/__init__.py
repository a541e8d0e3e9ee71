"""ember._inductor: what programs reach of torch._inductor, its `config` (settings of torch's
code generator; ember.compile replays recorded C++ ops and generates no code, so it reads
none of them: docs/compile.md)."""
from . import config  # noqa: F401
