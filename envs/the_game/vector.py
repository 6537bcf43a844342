"""The Game as a batched compiled environment: `num_envs` tables, one learner seat each, stepped in one call.

Built on `envs.core.vector.KernelTablesEnv` and the compiled engine's kernels (`envs.the_game.fast`: the `advance`
loop the whole-game studies run). Observation and reward are `OpponentEnv`'s (`TheGameEncoder` of the learner's view;
the team's `TheGame.returns`), so a policy trained here plays in `env()` unchanged. Plays official rules without
communication, any other option; the seats and `control` are described in docs/the_game.md ("Batched compiled env").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.vector import KernelTablesEnv
from envs.the_game import fast
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import Config, State, TheGame


class TheGameVectorEnv(KernelTablesEnv):
    """`num_envs` tables of The Game with compiled teammates (`KernelTablesEnv`'s arguments, `opponents` the
    teammates; see the module docstring and `envs.core.vector`); options are `envs.the_game.rules.Config`'s. Under
    `all_seats` `info["rewards"]` (N, num_players) pays every seat the team reward. `max_turns` never cuts the
    teammates' moves before the learner's first decision (the learner always has a decision to make)."""

    config_type, game_type, encoder_type = Config, TheGame, TheGameEncoder
    random_kernels = fast.RANDOM_KERNELS
    num_params = 4  # float parameters per teammate seat (its code, then bestplays' three)
    seat_word = "teammate"
    seat_rewards = False  # one team reward (`Buffers`)

    def _prepare_game(self) -> None:
        c = self.config
        if c.rules != "official" or c.communication != "none":
            raise ValueError("The Game's vector env plays rules='official', communication='none' (the compiled "
                             f"engine's); got rules={c.rules!r}, communication={c.communication!r}")

    def _new_tables(self) -> fast.Tables:
        return fast.new_tables(self.num_envs, self.num_players, self.config.resolved_hand_size, self.num_params)

    def _new_settings(self, ups) -> fast.Settings:
        c = self.config
        # under all_seats every seat is the learner's (`next_episode` seats LEARNER_CODE; `advance` pauses at each)
        return fast.Settings(
            min_cards=c.resolved_min_cards, skip_empty=fast.skip_empty(c), starter=int(c.starter),
            slot=self.game.slot_head, win_bonus=float(c.win_bonus), card_reward=float(c.card_reward),
            fixed_seat=self.fixed_seat, max_turns=self._max_turns, illegal_reward=self.illegal_reward,
            all_seats=self.control == "all_seats", line_codes=ups.codes, line_params=ups.params, line_cum=ups.cum)

    def _to_move(self, rows: np.ndarray) -> np.ndarray:
        return self._tables.player[rows]

    def _inputs_to_move(self, rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros((rows.size, self.single_observation_space.shape[0]), np.float32)
        mask = np.zeros((rows.size, self.num_actions), np.int8)
        fast.inputs_rows(self._tables, rows, seats, self.game.slot_head, self.config.resolved_min_cards, obs, mask)
        return obs, mask.view(np.bool_)

    def _observe_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        fast.observe_rows(self._tables, rows, seats, self.config.resolved_min_cards, out)

    def _privileged_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        fast.privileged_rows(self._tables, rows, seats, out)  # TheGameEncoder.privileged: the others' hands, the deck

    # --- tools ---------------------------------------------------------------------------------
    def state(self, row: int) -> State:
        """Table `row`'s position as a plain-engine `State` (pile histories are not kept: each pile is its start
        card and its top; everything the rules and the observation read is exact)."""
        T = self._tables
        n = self.num_players
        tops = [int(x) for x in T.tops[row]]
        piles = tuple((start,) if top == start else (start, top) for start, top in zip((1, 1, 100, 100), tops))
        hands = tuple(tuple(int(x) for x in T.hands[row, s, : T.sizes[row, s]]) for s in range(n))
        return State(piles, hands, tuple(int(x) for x in T.deck[row, : T.dn[row]]), int(T.player[row]),
                     int(T.played[row]), int(T.total[row]), bool(T.over[row]), False,
                     tuple((0, 0, 0, 0) for _ in range(n)), 0)


def vector_env(num_envs: int, **kwargs: Any) -> TheGameVectorEnv:
    """`num_envs` tables of The Game with compiled teammates or batch policies, as a Gymnasium `VectorEnv` (the
    arguments of `TheGameVectorEnv`: `envs.core.vector.KernelTablesEnv`'s, the game's options as further keywords)."""
    return TheGameVectorEnv(num_envs, **kwargs)
