"""L.A.M.A. as a batched compiled environment: `num_envs` tables, one learner seat each, stepped in one call.

Built on `envs.core.vector.CompiledVectorEnv` (the Gymnasium contract, seeds,
bad input) and the compiled engine's vector kernels (`envs.lama.fast`: the same
`advance` loop the whole-game tournaments run). The observation is exactly
`OpponentEnv`'s (`LamaEncoder` of the learner's view), the reward the change of
the learner's `LamaGame.returns` since its previous decision (`reward="win"` or
`"dense"`), so a policy trained here plays in `OpponentEnv` and `env()` unchanged.

`control="all_seats"` (self-play, Pgx's shape): the policy moves for whichever seat is to move;
`info["current_player"]` (also `info["seat"]`) says who, the observation is that seat's, `info["rewards"]`
`(N, num_players)` is each seat's reward of the step (the change of its `LamaGame.returns`) and `reward` the
mover's; `info["tabletop_episode"]["r"]` is player_0's return and `info["final_info"]["current_player"]` the seat
whose view a final observation is. Episode e of a table replays alone from `LamaGame.deal(info["deal_seed"])`,
every seat's move the policy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.game import default_max_turns
from envs.core.options import make_config
from envs.core.vector import CONTROLS, ERR_ILLEGAL, KernelTablesEnv, Pool, check_max_turns, compile_line_ups
from envs.lama import fast
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import NUM_ACTIONS, Config, LamaGame, State

NUM_PARAMS = 4  # float parameters per opponent seat (strategy 3's A, B, C, D)


class LamaVectorEnv(KernelTablesEnv):
    """`num_envs` L.A.M.A. tables against compiled opponents (see `envs.core.vector` for the contract).

    Args:
        num_envs: tables (>= 1).
        opponents: a line-up of `num_players - 1` opponents (`OpponentKernel`s and
            `BatchPolicy`s; `opponents[k]` sits k + 1 seats after the learner), or a
            `Pool` of line-ups drawn per table at each episode's start. Kernels other
            than `RANDOM` must share one `kernels` object (they were compiled around
            one decide kernel). `set_opponents` replaces them. Under `control="all_seats"`
            an empty line-up (none is seated).
        seed: the vector env's seed (None: fresh); table i's episodes follow
            from `table_key(seed, i)` alone.
        control: `"one_seat"` (a learner against the opponents) or `"all_seats"` (the policy moves for every
            seat; see the module docstring).
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
        opponents: Any = (),
        seed: int | None = None,
        control: str = "one_seat",
        seat: int | None = None,
        strict: bool = False,
        copy: bool = True,
        illegal_reward: float = -1.0,
        max_turns: int | None = None,
        **options: Any,
    ):
        if control not in CONTROLS:
            raise ValueError(f"control must be one of {', '.join(map(repr, CONTROLS))}, got {control!r}")
        self.config: Config = make_config(Config, options)
        self.game = LamaGame(self.config)
        self.encoder = LamaEncoder(self.game)
        self.control = control
        n = self.config.num_players
        if control == "all_seats":
            if isinstance(opponents, Pool) or len(opponents):
                raise ValueError("control='all_seats' plays every seat itself: it takes no opponents (give none)")
            if seat is not None:
                raise ValueError("seat must be None under control='all_seats' (the policy moves for every seat)")
            ups = compile_line_ups([], 0, NUM_PARAMS)  # no opponent seat: one empty line-up, never drawn from
        else:
            ups = compile_line_ups(opponents, n - 1, NUM_PARAMS)
        check_max_turns(max_turns)
        self._setup(num_envs, self.encoder.observation_space, NUM_ACTIONS, n, seed=seed, seat=seat, strict=strict,
                    copy=copy, illegal_reward=illegal_reward, control=control)
        max_turns = default_max_turns(self.game, max_turns)  # the seed's reshuffle: a game may never end
        self._max_turns = -1 if max_turns is None else int(max_turns)
        self._install(ups)
        self._tables = fast.new_tables(self.num_envs, n, NUM_PARAMS)
        self._tables.key[:] = self._keys  # refreshed from `_keys` at every reset
        self._buffers = fast.Buffers(*self._kernel_buffers(), self._final_player, self._seat_rewards)

    def _install(self, ups) -> None:
        """Seat the compiled line-ups `ups` (`compile_line_ups`) for the tables' next episodes."""
        self._seat_line_ups(ups, fast.RANDOM_KERNELS)
        self._settings = fast.Settings(
            fast.config_codes(self.config), self.config.reward == "dense", self.fixed_seat, self._max_turns,
            self.illegal_reward, float(self.config.target_points), ups.codes, ups.params, ups.cum,
            self.control == "all_seats",
        )

    def _compile_opponents(self, opponents: Any):
        return compile_line_ups(opponents, self.num_players - 1, NUM_PARAMS)

    def _error_text(self, status: int, seat: int, act: int, who: str) -> str:
        if status == ERR_ILLEGAL:
            return f"opponent {who!r} at seat {seat} chose the illegal action {act}"
        return f"a game passed {fast.MAX_STEPS} moves"

    def _to_move(self, rows: np.ndarray) -> np.ndarray:
        return self._tables.cur[rows]

    def _masks_to_move(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((rows.size, NUM_ACTIONS), np.int8)
        fast.mask_rows(self._tables, np.asarray(rows, np.int64), self._settings.switches, out)
        return out.view(np.bool_)

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
                     tuple(int(x) for x in T.draw[row, : T.ndraw[row]]), tuple(int(x) for x in T.disc[row, : T.nd[row]]),
                     tuple(int(x) for x in T.stock[row]), tuple(bool(x) for x in T.active[row]), int(T.cur[row]),
                     0, tuple(int(x) for x in T.totals[row]), tuple(int(x) for x in T.won[row]), (0,) * n,
                     bool(T.over[row]))

    def render(self, row: int = 0) -> str:
        """Text picture of table `row` (the plain engine's `render` of its position)."""
        who = "to move" if self.control == "all_seats" else "learner"
        return f"table {row} ({who} player_{int(self._tables.learner[row])}):\n" + self.game.render(self.state(row))


def vector_env(num_envs: int, **kwargs: Any) -> LamaVectorEnv:
    """`num_envs` L.A.M.A. tables against compiled opponents, as a Gymnasium `VectorEnv`: `LamaVectorEnv`'s
    arguments (`opponents` are `OpponentKernel`s: `envs.core.vector.RANDOM`, or what `agents.vector_env`
    resolves agent ids to; the game's options as further keywords)."""
    return LamaVectorEnv(num_envs, **kwargs)
