"""L.A.M.A. as a batched compiled environment: `num_envs` tables, one learner seat each, stepped in one call.

Built on `envs.core.vector.CompiledVectorEnv` (the Gymnasium contract, seeds,
bad input) and the compiled engine's vector kernels (`envs.lama.fast`: the same
`advance` loop the whole-game tournaments run). The observation is exactly
`OpponentEnv`'s (`LamaEncoder` of the learner's view), the reward the change of
the learner's `LamaGame.returns` since its previous decision (`reward="win"` or
`"dense"`), so a policy trained here plays in `OpponentEnv` and `env()` unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.core.options import make_config
from envs.core.vector import CompiledVectorEnv, OpponentKernel, check_max_turns, shared_kernels
from envs.lama import fast
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import NUM_ACTIONS, Config, LamaGame

NUM_PARAMS = 4  # float parameters per opponent seat (strategy 3's A, B, C, D)


class LamaVectorEnv(CompiledVectorEnv):
    """`num_envs` L.A.M.A. tables against compiled opponents (see `envs.core.vector` for the contract).

    Args:
        num_envs: tables (>= 1).
        opponents: `num_players - 1` `OpponentKernel`s; `opponents[k]` sits k + 1
            seats after the learner. Kernels other than `RANDOM` must share one
            `kernels` object (they were compiled around one decide kernel).
        seed: the vector env's seed (None: fresh); table i's episodes follow
            from `table_key(seed, i)` alone.
        control: `"one_seat"` (the only one so far).
        seat: fix the learner's seat (None: drawn per episode from the table's stream).
        strict: raise `IllegalActionError` on a refused action.
        copy: return fresh arrays (True) or the env's own buffers (False).
        illegal_reward: the reward of a refused action (non-strict).
        max_turns: truncate an episode after this many moves (all seats'), as `OpponentEnv`.
        **options: game options (`envs.lama.rules.Config`: num_players, rules, reward, ...).
    """

    def __init__(
        self,
        num_envs: int,
        *,
        opponents: Sequence[OpponentKernel],
        seed: int | None = None,
        control: str = "one_seat",
        seat: int | None = None,
        strict: bool = False,
        copy: bool = True,
        illegal_reward: float = -1.0,
        max_turns: int | None = None,
        **options: Any,
    ):
        if control != "one_seat":
            raise ValueError(f"control must be 'one_seat' for L.A.M.A.'s vector env (so far), got {control!r}")
        self.config: Config = make_config(Config, options)
        self.game = LamaGame(self.config)
        self.encoder = LamaEncoder(self.game)
        n = self.config.num_players
        opponents = list(opponents)
        if len(opponents) != n - 1:
            raise ValueError(f"{n}-player game needs {n - 1} opponents, got {len(opponents)}")
        kernels = shared_kernels(opponents, NUM_PARAMS)
        self.opponents = tuple(opponents)
        self._kernels: fast.VectorKernels = kernels if kernels is not None else fast.RANDOM_KERNELS
        check_max_turns(max_turns)
        self._setup(num_envs, self.encoder.observation_space, NUM_ACTIONS, n, seed=seed, seat=seat, strict=strict,
                    copy=copy, illegal_reward=illegal_reward)
        line_params = np.zeros((n - 1, NUM_PARAMS))
        for k, opp in enumerate(opponents):
            line_params[k, : len(opp.params)] = opp.params
        self._settings = fast.Settings(
            fast.config_codes(self.config), self.config.reward == "dense", self.fixed_seat,
            -1 if max_turns is None else int(max_turns), self.illegal_reward, float(self.config.target_points),
            np.array([o.code for o in opponents], np.int64), line_params,
        )
        self._tables = fast.new_tables(self.num_envs, n, NUM_PARAMS)
        self._tables.key[:] = self._keys  # refreshed from `_keys` at every reset
        self._buffers = fast.Buffers(
            self._obs, self._mask, self._reward, self._term, self._trunc, self._final_obs, self._done,
            self._illegal, self._final_seat, self._final_deal, self._final_ret, self._final_len, self._refused,
            np.full(4, -1, np.int64),
        )

    # --- kernels ------------------------------------------------------------------------------
    def _start_all(self, fresh: bool) -> None:
        self._tables.key[:] = self._keys
        self._buffers.err[0] = -1
        self._kernels.reset(self._tables, self._buffers, self._settings, fresh)
        self._check_err()

    def _step_kernel(self, actions: np.ndarray) -> None:
        self._kernels.step(self._tables, self._buffers, self._settings, actions)
        self._check_err()

    def _check_err(self) -> None:
        row, status, seat, act = (int(x) for x in self._buffers.err)
        if row < 0:
            return
        code = int(self._tables.codes[row, seat]) if seat >= 0 else None
        who = next((o.name for o in self.opponents if o.code == code), f"code {code}")
        if status == fast.STOP_ILLEGAL:
            raise RuntimeError(f"table {row}: opponent {who!r} at seat {seat} chose the illegal action {act}")
        if status == -3:
            raise RuntimeError(f"table {row}: 10,000 deals in a row ended before the learner's first decision")
        raise RuntimeError(f"table {row}: a game passed {fast.MAX_STEPS} moves")

    def _seats(self) -> np.ndarray:
        return self._tables.learner

    def _deal_seeds(self) -> np.ndarray:
        return self._tables.seed

    # --- tools ---------------------------------------------------------------------------------
    def observe(self, rows: Sequence[int] | np.ndarray, seats: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Observations of tables `rows` from `seats` (default: each table's learner), a new (len(rows), D) array."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        seats = self._tables.learner[rows] if seats is None else np.asarray(seats, dtype=np.int64).reshape(-1)
        out = np.zeros((rows.shape[0], self.single_observation_space.shape[0]), np.float32)
        fast.observe_rows(self._tables, rows, seats, fast.config_codes(self.config)[0],
                          float(self.config.target_points), out)
        return out

    def render(self, row: int = 0) -> str:
        """Text picture of table `row` (the plain engine's `render` of its position)."""
        T = self._tables
        n = self.num_players
        disc = tuple(int(x) for x in T.disc[row, : T.nd[row]])
        from envs.lama.rules import State

        state = State(int(T.seed[row]), int(T.rnd[row]), int(T.resh[row]),
                      tuple(tuple(int(x) for x in T.hands[row, i]) for i in range(n)),
                      tuple(int(x) for x in T.draw[row, : T.ndraw[row]]), disc,
                      tuple(int(x) for x in T.stock[row]), tuple(bool(x) for x in T.active[row]), int(T.cur[row]),
                      0, tuple(int(x) for x in T.totals[row]), tuple(int(x) for x in T.won[row]), (0,) * n,
                      bool(T.over[row]))
        return f"table {row} (learner player_{int(T.learner[row])}):\n" + self.game.render(state)


def vector_env(num_envs: int, **kwargs: Any) -> LamaVectorEnv:
    """`num_envs` L.A.M.A. tables against compiled opponents, as a Gymnasium `VectorEnv`: `LamaVectorEnv`'s
    arguments (`opponents` are `OpponentKernel`s: `envs.core.vector.RANDOM`, or what `agents.vector_env`
    resolves agent ids to; the game's options as further keywords)."""
    return LamaVectorEnv(num_envs, **kwargs)
