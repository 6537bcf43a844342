"""What counts as an action id, written once for every env (AEC, Parallel, `OpponentEnv`, the vector env).

An action for one seat is a Python `int`, a NumPy integer scalar or a 0-d integer array: the values Gymnasium's
`Discrete.contains` accepts, except `bool`; anything else is not an action id (`action_id` raises
`IllegalActionError`). A batch (the vector env) is an integer array `(N,)` or `(N, 1)`, or a list of N actions;
`action_ids` gives -1 where a table's action is not an action id, so the vector env can refuse that table alone.
docs/integrations.md ("Actions") lists the cases.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.game import IllegalActionError

#: What an action that is not an action id is told (after the type's name).
NOT_AN_ACTION = "not an integer action id ({}; give an int, a NumPy integer or a 0-d integer array)"


def as_action(action: Any) -> int | None:
    """`action` as a Python int if it is an action id (see the module docstring), else None."""
    if type(action) is int:
        return action
    if isinstance(action, np.integer):
        return int(action)
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action)
    return None


def action_id(action: Any, seat: int, num_actions: int) -> int:
    """`action` as an int in `range(num_actions)`; raises `IllegalActionError` for `seat` when it is not an
    action id or lies outside `Discrete(num_actions)`."""
    a = as_action(action)
    if a is None:
        raise IllegalActionError(action, seat, NOT_AN_ACTION.format(type(action).__name__))
    if not 0 <= a < num_actions:
        raise IllegalActionError(a, seat, f"outside Discrete({num_actions})")
    return a


def action_ids(actions: Any, n: int) -> np.ndarray:
    """A batch of `n` actions as a fresh int64 `(n,)` array, -1 where a table's action is not an action id, is
    negative or is over 2**62 (no int64 wrap-around); a batch of another shape raises `ValueError` naming the
    shape wanted."""
    if isinstance(actions, (list, tuple)):
        if len(actions) != n:
            raise ValueError(f"actions must have shape ({n},) (one per table), got {len(actions)} actions")
        ids = [as_action(a) for a in actions]
        out = np.array([-1 if a is None or not 0 <= a <= 2**62 else a for a in ids], dtype=np.int64)
        return out.reshape(n)
    a = np.asarray(actions)
    if a.shape == (n, 1):
        a = a.reshape(n)
    if a.shape != (n,):
        raise ValueError(f"actions must have shape ({n},) (one per table), got {a.shape}")
    if a.dtype.kind not in "iu":
        return np.full(n, -1, np.int64)  # not action ids: every table's action is refused
    out = a.astype(np.int64)
    if a.dtype == np.uint64:  # a huge uint64 would wrap to a small int64
        out[a > np.uint64(2**62)] = -1
    out[out < 0] = -1  # the kernels read other negative values as their own signals (SKIP)
    return out
