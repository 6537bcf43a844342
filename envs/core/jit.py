"""How the compiled kernels' small helpers are inlined: `INLINE`, the `inline=` of their `numba.njit`.

By default (`"always"`) a helper is inlined at numba IR level into each kernel that calls it, as if written out
there: the fastest code, and the slowest to compile, since the helper is typed again at every call site. With the
environment variable `TABLETOP_RL_FAST_COMPILE=1` set before the first import, helpers are compiled once each and
called (`"never"`): measured on this 2-core machine, compiling every kernel the test suite uses took 393 CPU-s
against about 890, while L.A.M.A.'s vector env ran 15-20% fewer steps a second. CI sets it (`.ci/run`); leave it
unset for training and benchmarks. Helpers that take a kernel as an argument (`decide`, `child`) stay inlined either way
(numba cannot cache a kernel that passes a first-class function on).

Numba's cache does not know which way a kernel was compiled: after changing the variable in a checkout whose
caches are warm, delete the `__pycache__/*.nb*` files beside the kernels (or set `NUMBA_CACHE_DIR`).
"""

from __future__ import annotations

import os

INLINE = "never" if os.environ.get("TABLETOP_RL_FAST_COMPILE", "") not in ("", "0") else "always"
