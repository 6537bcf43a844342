"""RoboRally as a batched compiled environment: `num_envs` races, one learner robot each, stepped in one call
(`envs.core.vector.KernelTablesEnv` over the kernels of `envs.roborally.fast`). A learner decision, observation and
reward are `OpponentEnv`'s, so a policy trained here plays in `env()` unchanged; register and program mode
(`program_table`) are described in docs/roborally.md ("Batched compiled env").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.options import make_config
from envs.core.vector import CONTROLS, KernelTablesEnv, Pool, compile_line_ups
from envs.roborally import fast
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.rules import REGISTERS, Config, RoboRallyGame, potential


def kernel_settings(game: RoboRallyGame, engine: Any, encoder: RoboRallyEncoder, ups: Any, *, fixed_seat: int = -1,
                    illegal_reward: float = 0.0, all_seats: bool = False) -> fast.Settings:
    """The kernels' `fast.Settings` for tables of `game` (`engine`: its `fast.FastEngine`) seating the line-ups `ups`
    (`compile_line_ups`)."""
    c, b, lay = game.config, game.board, encoder.layout
    return fast.Settings(
        num_actions=game.num_actions, rounds=REGISTERS + (1 if c.power_down else 0), progress=c.reward == "progress",
        max_turns=-1 if c.max_turns is None else int(c.max_turns), fixed_seat=fixed_seat,
        illegal_reward=illegal_reward, line_codes=ups.codes, line_cum=ups.cum, R0=engine.pack(game.deal(0)).robots,
        phi0=np.array([potential(b, r) for r in game.initial_robots()], np.float64), lives=int(game.lives),
        static=encoder._static.astype(np.float32), off=np.array([lay[f].start for f in fast.OBS_FIELDS], np.int64),
        flags=np.array(b.flags, np.int64).reshape(-1, 2), card_classes=bool(c.card_classes), all_seats=all_seats,
        program=c.action_mode == "program")


class RoboRallyVectorEnv(KernelTablesEnv):
    """`num_envs` RoboRally races against compiled opponents: the arguments of `envs.core.vector.KernelTablesEnv`
    (`opponents[k]` drives the robot k + 1 seats after the learner's; under `control="all_seats"` the policy programs
    every robot, sub-step by sub-step, and robot 0's return is reported), with the game options of
    `envs.roborally.rules.Config` (`max_turns` in game turns; `action_mode` "register", one sub-step a decision, or
    "program", a whole program a turn numbered by rank: see `program_table`). It takes no `max_turns` of its own."""

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
        **options: Any,
    ):
        if control not in CONTROLS:
            raise ValueError(f"control must be one of {', '.join(map(repr, CONTROLS))}, got {control!r}")
        if "max_cycles" in options:
            from envs.roborally.env import game_turn_limit

            options = game_turn_limit(options)
        self.config: Config = make_config(Config, options)
        self.game = RoboRallyGame(self.config)
        self.encoder = RoboRallyEncoder(self.game)
        self.engine = fast.FastEngine(self.game)
        #: `action_mode="program"`: one decision per robot per turn over its hand's reduced programs.
        self.program_mode = self.config.action_mode == "program"
        self._laser_map = fast.solo_laser_map(self.engine.board)
        self._turns = default_turns(self.game.board)
        n = self.game.num_players
        self.control = control
        if control == "all_seats":
            if isinstance(opponents, Pool) or len(opponents):
                raise ValueError("control='all_seats' plays every seat itself: it takes no opponents (give none)")
            if seat is not None:
                raise ValueError("seat must be None under control='all_seats' (the policy moves for every seat)")
            ups = compile_line_ups([], 0, 0)  # no opponent seat: one empty line-up, never drawn from
        else:
            ups = compile_line_ups(opponents, n - 1, 0)
        self._setup(num_envs, self.encoder.observation_space, self.game.num_actions, n, seed=seed, seat=seat,
                    strict=strict, copy=copy, illegal_reward=illegal_reward, control=control)
        self._install(ups)
        self._tables = fast.new_tables(self.num_envs, n, self.game.num_actions)
        self._buffers = fast.Buffers(*self._kernel_buffers(), self._final_player, self._seat_rewards)

    def _install(self, ups) -> None:
        """Seat the compiled line-ups `ups` (`compile_line_ups`) for the tables' next episodes."""
        self._seat_line_ups(ups, fast.RANDOM_KERNELS)
        self._settings = kernel_settings(self.game, self.engine, self.encoder, ups, fixed_seat=self.fixed_seat,
                                         illegal_reward=self.illegal_reward, all_seats=self.control == "all_seats")

    def _compile_opponents(self, opponents: Any):
        return compile_line_ups(opponents, self.num_players - 1, 0)

    def _kernel_head(self) -> tuple:
        return (self.engine.board,)

    def _error_text(self, status: int, seat: int, act: int, who: str) -> str:
        return f"opponent {who!r} at seat {seat} planned a program that is not legal"

    def _to_move(self, rows: np.ndarray) -> np.ndarray:
        return self._tables.step[rows] % self.num_players

    def _masks_to_move(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, np.int64)
        out = np.zeros((rows.size, self.game.num_actions), np.int8)
        fast.mask_rows(self._tables, rows, self._to_move(rows), self._settings, out)
        return out.view(np.bool_)

    def _observe_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        fast.observe_rows(self.engine.board, self._tables, rows, seats, self._settings, out)

    # --- program mode ---------------------------------------------------------------------------
    def program_counts(self, rows: Any = None) -> np.ndarray:
        """int64 (len(rows),): how many reduced programs the learner of each table `rows` (default all) chooses
        among now; program-mode actions 0..count-1 run them (count + NUM_PROGRAMS.. with a power down where the mask
        allows), 0 for a robot without cards (NOOP / POWER_DOWN only)."""
        rows = self._rows(rows)
        out = np.zeros(rows.size, np.int64)
        fast.program_counts_rows(self._tables, rows, self._tables.learner[rows], self._settings, out)
        return out

    def program_table(self, rows: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(cards int32 [R, P, 5], features float32 [R, P, K], counts int64 [R]) of the learner's reduced programs at
        each table `rows` (default all; R tables, P the largest count among them, K = len(PROGRAM_FEATURES)):
        program p of table q is program-mode action p (its rank), its cards those of the free registers (0 after),
        its features `envs.roborally.fast.PROGRAM_FEATURES` of the program run by the robot alone, computed by the
        compiled lone-robot register phase (`fast.program_rows`). Rows past a table's count are zero. Meant for
        program mode (each observation is at a program decision); in register mode it lists the hand's programs
        whatever is placed already."""
        rows = self._rows(rows)
        return program_table(self.engine.board, self._tables, rows, self._tables.learner[rows], self._settings,
                             self._laser_map, self._turns)

    def set_turns_table(self, table: np.ndarray) -> None:
        """Use `table` (expected turns to finish from each next flag, square and facing: [flags, H, W, 4], or
        [flags + 1, H, W, 4] with the finished row, the shape of `agents.roborally.mc.turns_table`) for the `turns`
        feature instead of `default_turns`."""
        b = self.game.board
        t = np.asarray(table, np.float64)
        k, shape = len(b.flags), (b.height, b.width, 4)
        if t.shape == (k, *shape):
            t = np.concatenate([t, np.zeros((1, *shape))])
        if t.shape != (k + 1, *shape):
            raise ValueError(f"table must have shape {(k, *shape)} or {(k + 1, *shape)}, got {t.shape}")
        self._turns = np.ascontiguousarray(t)

    def _rows(self, rows: Any) -> np.ndarray:
        return np.arange(self.num_envs) if rows is None else np.asarray(rows, np.int64).reshape(-1)

    # --- tools ---------------------------------------------------------------------------------
    def robots(self, row: int) -> tuple:
        """The `rules.Robot`s of table `row` now."""
        T = self._tables
        return self.engine.robots_of(fast.FastState(T.R[row], T.regs[row], T.deck[row], T.meta[row]))

    def render(self, row: int = 0) -> str:
        """Text picture of table `row`'s board and robots (`envs.roborally.render.ansi`)."""
        from envs.roborally import render

        T = self._tables
        who = "to move" if self.control == "all_seats" else "learner"
        return (f"table {row} ({who} robot {int(T.learner[row]) + 1}), turn {int(T.meta[row, fast.M_TURN]) + 1}, "
                f"sub-step {int(T.step[row])}:\n" + render.ansi(self.game.board, self.robots(row)))


def program_table(bd, T, rows, seats, S, lmap, turns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`RoboRallyVectorEnv.program_table` of any compiled tables `T` (a vector env's or a tournament runner's): the
    reduced programs of seat `seats[q]` at table `rows[q]`, with the packed board `bd`, settings `S`, the solo laser
    map `lmap` (`fast.solo_laser_map`) and the turns table `turns` (`default_turns`)."""
    counts = np.zeros(rows.size, np.int64)
    fast.program_counts_rows(T, rows, seats, S, counts)
    P = int(counts.max()) if counts.size else 0
    cards = np.zeros((rows.size, P, REGISTERS), np.int32)
    feats = np.zeros((rows.size, P, len(fast.PROGRAM_FEATURES)), np.float32)
    if P:
        fast.program_rows(bd, T, rows, seats, S, lmap, turns, cards, feats)
    return cards, feats, counts


def default_turns(board) -> np.ndarray:
    """The `turns` feature's table without one given: float64 [flags + 1, H, W, 4], BFS steps to the next flag / 3
    (a robot covers about 3 squares a turn) + 3 turns per later flag, the start of
    `agents.roborally.mc.turns_table`'s value iteration; W + H steps where no path; row `flags` (finished) zero."""
    k = len(board.flags)
    out = np.zeros((k + 1, board.height, board.width, 4))
    for f, xy in enumerate(board.flags):
        d = np.asarray(board.distances(xy), np.float64)
        d[d < 0] = board.width + board.height
        out[f] = (d / 3.0 + 3.0 * (k - f - 1))[:, :, None]
    return out


def vector_env(num_envs: int, **kwargs: Any) -> RoboRallyVectorEnv:
    """`num_envs` RoboRally races against compiled opponents and batch policies, as a Gymnasium `VectorEnv`:
    `RoboRallyVectorEnv`'s arguments (`opponents`: a line-up or a `Pool` of `OpponentKernel`s, e.g.
    `envs.core.vector.RANDOM` or what `agents.vector_env` resolves agent ids to, and `BatchPolicy`s; the game's
    options as further keywords)."""
    return RoboRallyVectorEnv(num_envs, **kwargs)
