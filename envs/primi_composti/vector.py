"""Primi Composti as a batched compiled environment: `num_envs` tables stepped in one call.

Built on `envs.core.vector.KernelTablesEnv` and the compiled engine's kernels (`envs.primi_composti.fast`: `do_move`,
the rule's one compiled home). Observation, reward and actions are `OpponentEnv`'s (`PrimiCompostiEncoder` of the
learner's view; the change of `PrimiCompostiGame.returns`), so a policy trained here plays in `env()` unchanged, and
every option of the plain engine is played (2 to 6 players). Opponents and `control` are described in
docs/primi_composti.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.vector import KernelTablesEnv
from envs.primi_composti import fast
from envs.primi_composti.encoding import PrimiCompostiEncoder
from envs.primi_composti.rules import VALID, VALUE, Config, PrimiCompostiGame, State


class PrimiVectorEnv(KernelTablesEnv):
    """`num_envs` Primi Composti tables against compiled opponents (`KernelTablesEnv`'s arguments; see the module
    docstring and `envs.core.vector`); options are `envs.primi_composti.rules.Config`'s."""

    config_type, game_type, encoder_type = Config, PrimiCompostiGame, PrimiCompostiEncoder
    random_kernels = fast.RANDOM_KERNELS

    def __init__(self, num_envs: int, **kwargs: Any):
        super().__init__(num_envs, **kwargs)
        self._rewards = self._seat_rewards  # the name a saved run's `vector_state` holds them under

    def _prepare_game(self) -> None:
        if not fast.supports(self.game):  # pragma: no cover - every Config today
            raise ValueError(f"Primi Composti's vector env plays the compiled engine's options: {fast.SUPPORTED}")

    def _new_tables(self) -> fast.Tables:
        return fast.new_tables(self.num_envs, self.num_players, int(self.config.cards_per_player),
                               self.game.num_choices)

    def _install(self, ups) -> None:
        super()._install(ups)
        self._kernels = self._kernels.of(self.game)  # the seed's rules' kernels, or the official options'

    def _new_settings(self, ups) -> fast.Settings:
        cfg = self.config
        return fast.Settings(
            version=int(cfg.version), k=int(cfg.cards_per_player), seat0_holds_two=bool(cfg.seat0_holds_two),
            score_scores=cfg.reward != "result", score_result=cfg.reward != "score", hints=bool(cfg.observation_hints),
            max_score=float(self.encoder.max_score), fixed_seat=self.fixed_seat, max_turns=self._max_turns,
            illegal_reward=self.illegal_reward, all_seats=self.control == "all_seats", line_codes=ups.codes,
            line_cum=ups.cum, value=VALUE, valid=VALID, revealed=bool(cfg.allow_revealed_operand),
            choices=int(self.game.num_choices))

    def _error_text(self, status: int, seat: int, act: int, who: str) -> str:
        return f"opponent {who!r} at seat {seat} chose the empty hand position {act} (status {status})"

    def _to_move(self, rows: np.ndarray) -> np.ndarray:
        T = self._tables
        return (T.first[rows] + T.turn[rows]) % self.num_players

    def _masks_to_move(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((rows.size, self.num_actions), np.int8)
        fast.mask_rows(self._tables, np.asarray(rows, np.int64), self._settings, out)
        return out.view(np.bool_)

    def _observe_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        fast.observe_rows(self._tables, rows, seats, self._settings, out)

    # --- tools ---------------------------------------------------------------------------------
    def state(self, row: int) -> State:
        """Table `row`'s position as a plain-engine `State` (hands in dealt order; `last` is not kept)."""
        T = self._tables
        k, n = self.config.cards_per_player, self.num_players
        hands = tuple(tuple(int(T.hands[row, s, i]) for i in range(k) if (int(T.alive[row, s]) >> i) & 1)
                      for s in range(n))
        stacks = tuple(tuple(int(x) for x in T.stacks[row, s, : T.heights[row, s]]) for s in range(2 * n))
        return State(hands, stacks, tuple(int(x) for x in T.scores[row]), int(T.turn[row]), int(T.first[row]))


def vector_env(num_envs: int, **kwargs: Any) -> PrimiVectorEnv:
    """`num_envs` Primi Composti tables against compiled opponents or batch policies, as a Gymnasium `VectorEnv` (the
    arguments of `PrimiVectorEnv`: `envs.core.vector.KernelTablesEnv`'s, the game's options as further keywords)."""
    return PrimiVectorEnv(num_envs, **kwargs)
