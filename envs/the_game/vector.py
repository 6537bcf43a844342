"""The Game as a batched compiled environment: `num_envs` tables, one learner seat each, stepped in one call.

Built on `envs.core.vector.CompiledVectorEnv` (the Gymnasium contract, seeds,
bad input) and the compiled engine's vector kernels (`envs.the_game.fast`: the
same `advance` loop the whole-game studies and rollouts run). The observation is
exactly `OpponentEnv`'s (`TheGameEncoder` of the learner's view), the reward the
team's (`TheGame.returns`: cards placed, + `win_bonus` on a win) since the
learner's previous decision, so a policy trained here plays in `OpponentEnv` and
`env()` unchanged. Episode `e` of table `i` replays alone in the plain engine from
`TheGame.deal(info["deal_seed"][i])`.

Options: official rules without communication (the compiled engine's), any
`num_players`, `hand_size`, `min_cards_per_turn`, `win_bonus`, `starter`,
`empty_hand`, and `actions="card"` (405 ids) or `"slot"` (`4 * hand_size + 13`).

Control: `"one_seat"` (the learner plays one seat; `opponents[k]`, its
teammates, sit k + 1 seats after it; solo: `num_players=1` and no opponents), or
`"all_seats"`: the policy plays whoever is to move (no opponents),
`info["current_player"]` says who (also `info["seat"]`), and `info["rewards"]`
(N, n) pays every seat the team reward.

Teammates: an `OpponentKernel` (compiled inside the step) or a `BatchPolicy`,
called once per teammate turn over every table where it is to move, with
observations encoded from the teammate's own seat (the compiled step pauses those
tables at that seat and goes on with its moves: no rule runs in Python); a `Pool`
of such line-ups is drawn per table at each episode's start, and `set_opponents`
takes effect at each table's next episode (`envs.core.vector`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.options import make_config
from envs.core.vector import ERR_ILLEGAL, KernelTablesEnv, LineUps, Pool, check_max_turns, compile_line_ups
from envs.the_game import fast
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import Config, State, TheGame

NUM_PARAMS = 4  # float parameters per teammate seat (its code, then bestplays' three)


class TheGameVectorEnv(KernelTablesEnv):
    """`num_envs` tables of The Game with compiled teammates (see the module docstring and `envs.core.vector`).

    Args:
        num_envs: tables (>= 1).
        opponents: a line-up of `num_players - 1` teammates (`OpponentKernel`s and
            `BatchPolicy`s; `opponents[k]` sits k + 1 seats after the learner), or a
            `Pool` of line-ups drawn per table at each episode's start. Kernels other
            than `RANDOM` must share one `kernels` object. Empty under
            `control="all_seats"`. `set_opponents` replaces them.
        seed: the vector env's seed (None: fresh); table i's episodes follow from
            `table_key(seed, i)` alone.
        control: `"one_seat"` or `"all_seats"`.
        seat: fix the learner's seat (one_seat; None: drawn per episode from the table's stream).
        strict: raise `IllegalActionError` on a refused action.
        copy: return fresh arrays (True) or the env's own buffers (False).
        illegal_reward: the reward of a refused action (non-strict).
        max_turns: truncate an episode after this many moves (all seats'), as `OpponentEnv`; the teammates' moves
            before the learner's first decision are never cut (the learner always has a decision to make).
        **options: game options (`envs.the_game.rules.Config`).
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
        if control not in ("one_seat", "all_seats"):
            raise ValueError(f"control must be 'one_seat' or 'all_seats', got {control!r}")
        self.config: Config = make_config(Config, options)
        c = self.config
        if c.rules != "official" or c.communication != "none":
            raise ValueError("The Game's vector env plays rules='official', communication='none' (the compiled "
                             f"engine's); got rules={c.rules!r}, communication={c.communication!r}")
        self.game = TheGame(c)
        self.encoder = TheGameEncoder(self.game)
        self.control = control
        n = c.num_players
        all_seats = control == "all_seats"
        if all_seats:
            if isinstance(opponents, Pool) or len(opponents) or seat is not None:
                raise ValueError("control='all_seats' takes no opponents and no seat (the policy plays every seat)")
            ups = compile_line_ups([], 0, NUM_PARAMS)
        else:
            ups = self._compile_opponents(opponents)
        check_max_turns(max_turns)
        self._setup(num_envs, self.encoder.observation_space, self.game.num_actions, n, seed=seed, seat=seat,
                    strict=strict, copy=copy, illegal_reward=illegal_reward, control=control)
        self._final_player = self._final_seat  # all_seats: the seat a final observation is encoded for
        self._max_turns = -1 if max_turns is None else int(max_turns)
        self._install(ups)
        self._tables = fast.new_tables(self.num_envs, n, c.resolved_hand_size, NUM_PARAMS)
        self._buffers = self._kernel_buffers()

    def _compile_opponents(self, opponents: Any) -> LineUps:
        n = self.config.num_players
        if isinstance(opponents, (list, tuple)) and len(opponents) != n - 1:
            raise ValueError(f"{n}-player game needs {n - 1} opponents (teammates), got {len(opponents)}")
        return compile_line_ups(opponents, n - 1, NUM_PARAMS)

    def _install(self, ups: LineUps) -> None:
        """Seat the compiled line-ups `ups` (`compile_line_ups`) for the tables' next episodes."""
        self._seat_line_ups(ups, fast.RANDOM_KERNELS)
        c = self.config
        # under all_seats every seat is the learner's (`kernels.next_episode` seats LEARNER_CODE; `advance` pauses at each)
        self._settings = fast.Settings(
            c.resolved_min_cards, fast.skip_empty(c), int(c.starter), self.game.slot_head, float(c.win_bonus),
            float(c.card_reward),
            self.fixed_seat, self._max_turns, self.illegal_reward, self.control == "all_seats", ups.codes, ups.params,
            ups.cum,
        )

    # --- kernels ------------------------------------------------------------------------------
    def _error_text(self, status: int, seat: int, act: int, who: str) -> str:
        if status == ERR_ILLEGAL:
            return f"teammate {who!r} at seat {seat} chose the illegal move {act}"
        return f"the step kernel stopped with status {status} at seat {seat}"

    # --- batch policies (the base's `_serve_batch` round loop) --------------------------------------------------
    def _to_move(self, rows: np.ndarray) -> np.ndarray:
        return self._tables.player[rows]

    def _inputs_to_move(self, rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros((rows.size, self.single_observation_space.shape[0]), np.float32)
        mask = np.zeros((rows.size, self.num_actions), np.int8)
        fast.inputs_rows(self._tables, rows, seats, self.game.slot_head, self.config.resolved_min_cards, obs, mask)
        return obs, mask.view(np.bool_)

    def step(self, actions: Any):
        """One decision at every table (see `envs.core.vector.CompiledVectorEnv.step`); under `all_seats` also
        `info["rewards"]` (N, num_players): the team reward, the same for every seat."""
        out = super().step(actions)
        if self.control == "all_seats":
            rew = out[1]
            out[4]["rewards"] = np.repeat(np.asarray(rew, np.float32)[:, None], self.num_players, axis=1)
            out[4]["_rewards"] = np.ones(self.num_envs, np.bool_)
        return out

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

    def render(self, row: int = 0) -> str:
        """Text picture of table `row` (the plain engine's `render` of its position)."""
        return f"table {row} (learner player_{int(self._tables.learner[row])}):\n" + self.game.render(self.state(row))


def vector_env(num_envs: int, **kwargs: Any) -> TheGameVectorEnv:
    """`num_envs` tables of The Game with compiled teammates or batch policies, as a Gymnasium `VectorEnv`:
    `TheGameVectorEnv`'s arguments (`opponents`: a line-up of `OpponentKernel`s (`envs.core.vector.RANDOM`, or what
    `agents.vector_env` resolves agent ids to) and `BatchPolicy`s, or a `Pool` of line-ups; the game's options as
    further keywords)."""
    return TheGameVectorEnv(num_envs, **kwargs)
