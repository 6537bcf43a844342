"""L.A.M.A. as a batched compiled environment: `num_envs` tables, one learner seat each, stepped in one call.

Built on `envs.core.vector.KernelTablesEnv` and the compiled engine's kernels (`envs.lama.fast`: the `advance` loop
the whole-game tournaments run). Observation and reward are `OpponentEnv`'s (`LamaEncoder` of the learner's view;
the change of `LamaGame.returns`), so a policy trained here plays in `env()` unchanged; `control="all_seats"` as in
docs/training.md ("Fast training").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.vector import ERR_ILLEGAL, KernelTablesEnv
from envs.lama import fast
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import NUM_ACTIONS, Config, LamaGame, State


class LamaVectorEnv(KernelTablesEnv):
    """`num_envs` L.A.M.A. tables against compiled opponents (`KernelTablesEnv`'s arguments; see `envs.core.vector`
    for the contract): `max_turns` defaults to the game's own cap (the seed's reshuffle: a game may never end);
    options are `envs.lama.rules.Config`'s (num_players, rules, reward, ...)."""

    config_type, game_type, encoder_type = Config, LamaGame, LamaEncoder
    random_kernels = fast.RANDOM_KERNELS
    num_params = 4  # float parameters per opponent seat (strategy 3's A, B, C, D)

    def _new_tables(self) -> fast.Tables:
        return fast.new_tables(self.num_envs, self.num_players, self.num_params)

    def _new_settings(self, ups) -> fast.Settings:
        return fast.Settings(
            switches=fast.config_codes(self.config), dense=self.config.reward == "dense", fixed_seat=self.fixed_seat,
            max_turns=self._max_turns, illegal_reward=self.illegal_reward, target=float(self.config.target_points),
            line_codes=ups.codes, line_params=ups.params, line_cum=ups.cum, all_seats=self.control == "all_seats")

    def _error_text(self, status: int, seat: int, act: int, who: str) -> str:
        if status == ERR_ILLEGAL:
            return super()._error_text(status, seat, act, who)
        return f"a game passed {fast.MAX_STEPS} moves"

    def _to_move(self, rows: np.ndarray) -> np.ndarray:
        return self._tables.cur[rows]

    def _inputs_to_move(self, rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros((rows.size, self.single_observation_space.shape[0]), np.float32)
        mask = np.zeros((rows.size, NUM_ACTIONS), np.int8)
        fast.inputs_rows(self._tables, rows, seats, self._settings.switches, float(self.config.target_points), obs,
                         mask)
        return obs, mask.view(np.bool_)

    def _observe_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        fast.observe_rows(self._tables, rows, seats, fast.config_codes(self.config)[0],
                          float(self.config.target_points), out)

    def _privileged_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        fast.privileged_rows(self._tables, rows, seats, out)  # LamaEncoder.privileged: the other hands, the pile

    # --- tools ---------------------------------------------------------------------------------
    def state(self, row: int) -> State:
        """Table `row`'s position as a plain-engine `State` (`starter` and `last_scores` are not kept: 0)."""
        T = self._tables
        n = self.num_players
        return State(int(T.seed[row]), int(T.rnd[row]), int(T.resh[row]),
                     tuple(tuple(int(x) for x in T.hands[row, i]) for i in range(n)),
                     tuple(int(x) for x in T.draw[row, : T.ndraw[row]]),
                     tuple(int(x) for x in T.disc[row, : T.nd[row]]),
                     tuple(int(x) for x in T.stock[row]), tuple(bool(x) for x in T.active[row]), int(T.cur[row]),
                     0, tuple(int(x) for x in T.totals[row]), tuple(int(x) for x in T.won[row]), (0,) * n,
                     bool(T.over[row]))


def vector_env(num_envs: int, **kwargs: Any) -> LamaVectorEnv:
    """`num_envs` L.A.M.A. tables against compiled opponents or batch policies, as a Gymnasium `VectorEnv` (the
    arguments of `LamaVectorEnv`: `envs.core.vector.KernelTablesEnv`'s, the game's options as further keywords)."""
    return LamaVectorEnv(num_envs, **kwargs)
