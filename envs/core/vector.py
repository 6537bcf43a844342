"""The shared base of a batched compiled environment: many tables stepped as one Gymnasium `VectorEnv`.

A game's compiled twin (`envs/<game>/fast.py`) holds its tables as arrays, one row a table; this module gives every
such game the same Gymnasium face, which docs/training.md ('Fast training: batched compiled environments') describes:
same-step autoreset (`info["final_obs"]`), `info["tabletop_episode"]`, the masks, `control="all_seats"`, refused
actions (`illegal_reward`, `strict=True`) and the seeds. Table `i` of seed `s` has the key `table_key(s, i)`, and its
episode `e` a key mixed from it and `e` (`episode_seeds`, SplitMix64): no table depends on `num_envs` or another.

A game subclasses `CompiledVectorEnv` (numpy steps) or `KernelTablesEnv` (numba tables and kernels). Kernels run on
the CPU and fill preallocated buffers (`copy=False` hands them out).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import gymnasium
import numba
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from envs.core.actions import action_ids
from envs.core.game import IllegalActionError, check_move_limit, default_max_turns
from envs.core.jit import INLINE
from envs.core.options import make_config
from envs.core.shuffle import np_mix64

_M64 = (1 << 64) - 1
_TABLE_DOMAIN = 0x5851F42D4C957F2D  # separates the table keys from the episode keys
_DEAL_SALT = 0x2545F4914F6CDD1D
_SEAT_SALT = 0x27BB2EE687B0B0FD
_RNG_SALT = 0x94D049BB133111EB

_U = np.uint64
_U_GOLDEN = _U(0x9E3779B97F4A7C15)
_U_TABLE = _U(_TABLE_DOMAIN)
_U_DEAL = _U(_DEAL_SALT)
_U_SEAT = _U(_SEAT_SALT)
_U_RNG = _U(_RNG_SALT)


# --- SplitMix64 streams, in numpy (`np_mix64`, for the Python side: tools, tests, numpy envs) and in numba ---------
def _one(x: int) -> np.ndarray:
    """`x` modulo 2**64 as a uint64 array of one element (numpy warns on a uint64 scalar's wrap, not an array's)."""
    return np.array([int(x) & _M64], np.uint64)


def table_key(seed: int, table: int) -> int:
    """The key of table `table` of a vector env seeded `seed` (the same whatever `num_envs`)."""
    return int(np_table_keys(seed, np.array([table]))[0])


def np_table_keys(seed: int, tables: np.ndarray) -> np.ndarray:
    """`table_key(seed, t)` of every table `t` of the array `tables` (uint64)."""
    return np_mix64(np_mix64(_one(seed) ^ _U_TABLE) + _U_GOLDEN * (tables.astype(np.uint64) + _U(1)))


def episode_seeds(seed: int, table: int, episode: int, num_players: int) -> tuple[int, int, int]:
    """(deal seed < 2**63, drawn learner seat, random-opponent stream state) of episode `episode` of table
    `table`. A deal dealt again (it ended before the learner's first decision) takes the next episode index's deal seed
    and stream and keeps the seat."""
    deal, seat, stream = np_episode_seeds(_one(table_key(seed, table)), np.array([episode]), num_players)
    return int(deal[0]), int(seat[0]), int(stream[0])


def next_random(state: int) -> tuple[int, int]:
    """(new state, 64-bit draw) of the SplitMix64 stream `state` (as `nb_next`)."""
    rng = _one(state)
    draw = np_next(rng)
    return int(rng[0]), int(draw[0])


def _np_episode_keys(keys: np.ndarray, episodes: np.ndarray) -> np.ndarray:
    """The keys of episodes `episodes` of the tables of keys `keys` (arrays)."""
    return np_mix64(keys + _U_GOLDEN * (episodes.astype(np.uint64) + _U(1)))


def np_episode_seeds(keys: np.ndarray, episodes: np.ndarray, num_players: int):
    """`episode_seeds` of tables of keys `keys` at episodes `episodes` (arrays): (deal seeds, seats, streams)."""
    k = _np_episode_keys(keys, episodes)
    return np_mix64(k ^ _U_DEAL) >> _U(1), (np_mix64(k ^ _U_SEAT) % _U(num_players)).astype(np.int64), \
        np_mix64(k ^ _U_RNG)


def np_next(rng: np.ndarray, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
    """Advance the streams `rng[rows]` (uint64, in place) and return their next draws (as `next_random`)."""
    s = rng[rows] + _U_GOLDEN
    rng[rows] = s
    return np_mix64(s)


@numba.njit(inline=INLINE)
def nb_mix64(z):
    """`np_mix64` compiled (uint64 in, uint64 out)."""
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@numba.njit(inline=INLINE)
def nb_episode_seeds(key, episode, num_players):
    """`episode_seeds` compiled, from the table's key: (deal seed, seat, stream state)."""
    k = nb_mix64(key + _U_GOLDEN * _U(episode + 1))
    deal = nb_mix64(k ^ _U_DEAL) >> _U(1)
    seat = np.int64(nb_mix64(k ^ _U_SEAT) % _U(num_players))
    return deal, seat, nb_mix64(k ^ _U_RNG)


@numba.njit(inline=INLINE)
def nb_next(rng, row):
    """Advance the stream `rng[row]` and return its next 64-bit draw (as `next_random`)."""
    s = rng[row] + _U_GOLDEN
    rng[row] = s
    return nb_mix64(s)


# --- the buffers a compiled step fills ------------------------------------------------------------
class Buffers(NamedTuple):
    """What a game's compiled vector step fills in place: `obs` (N, D) float32 and `mask` (N, A) int8 of the
    learner's next decision, `reward`, `term`, `trunc`; for ended tables (`done`) `final_obs`, `final_seat`,
    `final_deal`, `final_ret`, `final_len`; `refused` / `illegal` the learner's refused action; `err` (row, status,
    seat, action) of the first kernel failure (row -1: none). One class for every game: numba types look-alike named
    tuples of two classes in one process by the slow Python path (measured 15 us -> 650 us a call)."""

    obs: np.ndarray
    mask: np.ndarray
    reward: np.ndarray
    term: np.ndarray
    trunc: np.ndarray
    final_obs: np.ndarray
    done: np.ndarray
    illegal: np.ndarray
    final_seat: np.ndarray
    final_deal: np.ndarray
    final_ret: np.ndarray
    final_len: np.ndarray
    refused: np.ndarray
    err: np.ndarray


SeatBuffers = NamedTuple("SeatBuffers", [(name, np.ndarray) for name in (*Buffers._fields, "final_player", "rewards")])
SeatBuffers.__doc__ = """`Buffers` and two more, for the games whose vector env offers `control="all_seats"` with
compiled kernels (L.A.M.A., Primi Composti): `final_player` (the seat a final observation is encoded for) and, under
`all_seats`, `rewards` (N, seats), every seat's reward of the step. One class for those games, as `Buffers`."""


# --- opponents ------------------------------------------------------------------------------
@dataclass(frozen=True)
class OpponentKernel:
    """A compiled opponent for a vector env (what `agents.vector_env` resolves an agent id to):
    `name` (the agent id), `code` (-1: a uniformly random legal move; else passed to the decide kernel `kernels` was
    compiled around), `params` (its float parameters) and `kernels` (the game's batch kernels; None for code -1)."""

    name: str
    code: int
    params: tuple[float, ...] = ()
    kernels: Any = None


RANDOM = OpponentKernel("random", -1)

#: The policy code of a seat played by the env's `j`-th batch policy: `BATCH_CODE - j` (the kernels stop there).
BATCH_CODE = -3
#: An action that leaves a table untouched in a kernel call (the env's own resumes after a batch policy's turn).
SKIP = -2


@dataclass(frozen=True, eq=False)
class BatchPolicy:
    """An opponent played by one function over many tables at once (a network's forward).

    `fn(obs, mask, rows, rng) -> actions` is called once per opponent turn over the tables where it is to move: `obs`
    (k, D) float32 from that seat, `mask` (k, A) bool, `rows` (k,), `rng` the env's generator (seeded from its seed);
    an illegal answer stops the step with an error naming the policy, table and seat.
    `BatchPolicy.from_model(model)` makes one from a saved or live policy (`agents.vector.batch_policy`).
    """

    fn: Any
    name: str = "batch"


@dataclass(frozen=True, eq=False)
class Pool:
    """Opponent line-ups drawn per table at each episode's start: `line_ups[i]` with probability `weights[i]`
    (uniform by default). A line-up is a sequence of opponents (`OpponentKernel`s and `BatchPolicy`s), one per
    opponent seat. The draw comes from the table's episode key (`pick_line_up`): it does not depend on
    `num_envs` or on the other tables."""

    line_ups: tuple
    weights: tuple = ()

    def __post_init__(self):
        ups = tuple(tuple(u) for u in self.line_ups)
        if not ups:
            raise ValueError("a Pool needs at least one line-up")
        w = tuple(float(x) for x in self.weights) if len(self.weights) else (1.0,) * len(ups)
        if len(w) != len(ups):
            raise ValueError(f"a Pool of {len(ups)} line-ups needs {len(ups)} weights, got {len(w)}")
        if not all(np.isfinite(w)) or min(w) < 0 or sum(w) <= 0:
            raise ValueError(f"Pool weights must be finite, non-negative and not all zero, got {w}")
        object.__setattr__(self, "line_ups", ups)
        object.__setattr__(self, "weights", w)


class VectorKernels(NamedTuple):
    """The compiled `reset(..., T, B, S, fresh)` and `step(..., T, B, S, actions)` of a game's vector env, built around
    one decide kernel (the game's `vec_reset` / `vec_step` inlined with it as a global)."""

    reset: Any
    step: Any


class LineUps(NamedTuple):
    """A vector env's opponents compiled for its kernels: `codes` (L, k) and `params` (L, k, P) of the k opponent
    seats of each of L line-ups (a batch policy's seat has code `BATCH_CODE - j`), `cum` (L,) the cumulative
    weights (the last exactly 1), `batch` the distinct batch policies (j-th: code `BATCH_CODE - j`), `kernels`
    the compiled kernels every non-random kernel opponent shares (None: none), `line_ups` the opponents."""

    codes: np.ndarray
    params: np.ndarray
    cum: np.ndarray
    batch: tuple
    kernels: Any
    line_ups: tuple


def compile_line_ups(opponents: Any, seats: int, num_params: int, *, batch: bool = True,
                     compiled: bool = True) -> LineUps:
    """Check a vector env's `opponents` (a line-up of `seats` opponents, or a `Pool` of such) and lay them out
    for its kernels (`LineUps`). `batch=False`: the game's kernels cannot pause for a batch policy;
    `compiled=False`: the env plays its kernel opponents itself (their `kernels` are not asked for).

    Raises:
        ValueError: one line naming the opponent or the line-up at fault and what is allowed.
    """
    if isinstance(opponents, Pool):
        pool = opponents
    else:
        if isinstance(opponents, (str, OpponentKernel, BatchPolicy)):
            raise ValueError(f"opponents must be a line-up (a list of {seats} opponents) or a Pool, got {opponents!r}")
        pool = Pool((tuple(opponents),))
    L = len(pool.line_ups)
    codes = np.zeros((L, max(seats, 1)), np.int64)
    params = np.zeros((L, max(seats, 1), num_params))
    policies: list[BatchPolicy] = []
    kernels = []
    for i, up in enumerate(pool.line_ups):
        if len(up) != seats:
            raise ValueError(f"line-up {i}: the game needs {seats} opponents, got {len(up)}")
        for k, opp in enumerate(up):
            if isinstance(opp, BatchPolicy):
                if not batch:
                    raise ValueError(f"opponent {opp.name!r}: this game's vector env takes compiled opponents only "
                                     "(OpponentKernel), not batch policies (yet)")
                if not callable(opp.fn):
                    raise ValueError(f"batch policy {opp.name!r}: fn must be callable, got {opp.fn!r}")
                j = next((j for j, p in enumerate(policies) if p is opp), None)
                if j is None:
                    j = len(policies)
                    policies.append(opp)
                codes[i, k] = BATCH_CODE - j
                continue
            kernels.append(opp)
            codes[i, k] = getattr(opp, "code", 0)
            if isinstance(opp, OpponentKernel):
                params[i, k, : len(opp.params)] = opp.params[:num_params]
    if compiled:
        shared = shared_kernels(kernels, num_params)
    else:
        shared = None
        for opp in kernels:
            if not isinstance(opp, OpponentKernel):
                raise ValueError(f"opponents must be OpponentKernel or BatchPolicy objects (agents.vector_env "
                                 f"resolves agent ids), got {opp!r}")
    w = np.asarray(pool.weights, np.float64)
    cum = np.cumsum(w / w.sum())
    cum[-1] = 1.0
    return LineUps(codes, params, cum, tuple(policies), shared, pool.line_ups)


_U_POOL = _U(0xD6E8FEB86659FD93)


def pick_line_up(cum: np.ndarray, key: int, episode: int) -> int:
    """The line-up a table of key `key` draws at episode `episode` (as `nb_pick_line_up`): the first i with
    u < cum[i], u uniform in [0, 1) from the episode key."""
    return int(np_pick_line_up(cum, _one(key), np.array([episode]))[0])


def np_pick_line_up(cum: np.ndarray, keys: np.ndarray, episodes: np.ndarray) -> np.ndarray:
    """`pick_line_up` of tables of keys `keys` (uint64) at episodes `episodes` (arrays): their line-up indices."""
    if len(cum) == 1:
        return np.zeros(len(keys), np.int64)
    u = (np_mix64(_np_episode_keys(keys, episodes) ^ _U_POOL) >> _U(11)).astype(np.float64) * 2.0**-53
    return np.searchsorted(cum, u, side="right").clip(0, len(cum) - 1).astype(np.int64)


@numba.njit(inline=INLINE)
def nb_pick_line_up(cum, key, episode):
    """`pick_line_up` compiled."""
    if cum.shape[0] == 1:
        return 0
    k = nb_mix64(key + _U_GOLDEN * _U(episode + 1))
    u = np.float64(nb_mix64(k ^ _U_POOL) >> _U(11)) * 2.0**-53
    for i in range(cum.shape[0] - 1):
        if u < cum[i]:
            return i
    return cum.shape[0] - 1


def shared_kernels(opponents: Any, max_params: int | None = None) -> Any:
    """The compiled kernels that every non-random opponent of a line-up comes with (None: all random), after
    checking the line-up: `OpponentKernel` objects only, one shared `kernels` object (a vector env compiles
    around one decide kernel), at most `max_params` parameters each.

    Raises:
        ValueError: one line naming the opponent at fault.
    """
    kernels = None
    for opp in opponents:
        if not isinstance(opp, OpponentKernel):
            raise ValueError(f"opponents must be OpponentKernel objects (agents.vector_env resolves agent ids), "
                             f"got {opp!r}")
        if opp.code == RANDOM.code:
            continue
        if opp.kernels is None or (kernels is not None and opp.kernels is not kernels):
            raise ValueError(f"opponent {opp.name!r}: every non-random opponent must come with the same "
                             "compiled kernels (one decide kernel per env)")
        if max_params is not None and len(opp.params) > max_params:
            raise ValueError(f"opponent {opp.name!r}: at most {max_params} parameters, got {len(opp.params)}")
        kernels = opp.kernels
    return kernels


#: Who the policy acts for: "one_seat" (the learner's seat, opponents' kernels for the others) or "all_seats"
#: (whoever is to move: `info["current_player"]`, each seat's reward in `info["rewards"]`; Pgx's shape, the form of
#: self-play in the zero-sum games and of one team policy in the cooperative one).
CONTROLS = ("one_seat", "all_seats")


def check_control(control: Any) -> None:
    """Raise `ValueError` unless `control` is one of `CONTROLS`."""
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {', '.join(map(repr, CONTROLS))}, got {control!r}")


# --- recordings -----------------------------------------------------------------------------------
@dataclass
class Recording:
    """One table's episode as a vector env played it (`CompiledVectorEnv.record`): its deal and learner seat (what
    `OpponentEnv.reset(options={"deal_seed": ..., "seat": ...})` replays), the table drawn by `render(row)` at each
    learner decision, the action taken there and the reward that followed; `finished` once the episode ended, with
    its `episode_return` and `length` (learner decisions) as `info["tabletop_episode"]` reported them."""

    row: int
    deal_seed: int = -1
    seat: int = -1
    frames: list[str] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    started: bool = False
    finished: bool = False
    episode_return: float | None = None
    length: int | None = None

    def __str__(self) -> str:
        """The episode as text: each frame, then the action taken and its reward."""
        if not self.started:
            return f"table {self.row}: waiting for its next episode to start"
        out = [f"table {self.row}, deal {self.deal_seed}, learner seat {self.seat}"]
        for k, frame in enumerate(self.frames):
            out.append(frame)
            if k < len(self.actions):
                out.append(f"-> action {self.actions[k]}, reward {self.rewards[k]:g}")
        if self.finished:
            out.append(f"episode over: return {self.episode_return:g} in {self.length} decisions")
        return "\n".join(out)


# --- the Gymnasium base -------------------------------------------------------------------------
class CompiledVectorEnv(VectorEnv):
    """The Gymnasium face shared by every game's batched compiled environment (module docstring).

    A game calls `_setup` from its constructor and implements `_start_all(fresh)` (deal every table, from episode 0 of
    its key in `self._keys` when `fresh`, else its next episode, and observe it), `_step_kernel(actions)` (one learner
    decision per table, int64 `actions` -1 where refused, same-step resets), `_seats()` and `_deal_seeds()` (the
    learner's seat and the episode's deal seed per table: the env's own arrays), `_seated_codes()` (the policy codes
    the tables are seated with now: a batch policy keeps its index while they play) and `_install(ups)` (seat the
    line-ups `ups` for the tables' next episodes). A game whose kernels pause at a batch policy's turn also implements
    `_paused_rows()`, `_to_move(rows)` (the seat to move at the tables `rows`), `_seat_codes(rows, seats)` (their
    policy codes) and `_masks_to_move(rows)` ((len(rows), A) bool: the legal actions of the seat to move; or
    `_inputs_to_move`); its `_step_kernel` then goes on at the paused tables with the batch policies' actions.

    Args (of `_setup`):
        num_envs: tables (>= 1).
        single_observation_space: one table's observation space (a float32 `Box`).
        num_actions: A, the size of the `Discrete` action space.
        num_players: seats at a table.
        seed, seat, strict, copy, illegal_reward: as `KernelTablesEnv`'s.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def _setup(
        self,
        num_envs: int,
        single_observation_space: gymnasium.spaces.Box,
        num_actions: int,
        num_players: int,
        *,
        seed: int | None,
        seat: int | None,
        strict: bool,
        copy: bool,
        illegal_reward: float,
        control: str = "one_seat",
    ) -> None:
        check_control(control)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < num_players):
            raise ValueError(f"seat must be None or an integer in 0..{num_players - 1}, got {seat!r}")
        n = int(num_envs)
        d = single_observation_space.shape[0]
        # Observations (twice: the final ones too), masks and a game's rows (~2 KiB for the card games): refuse a
        # batch that cannot fit in this machine's memory before allocating anything.
        per_table = 2 * 4 * d + 2 * num_actions + 2048
        try:
            limit = int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))  # bytes of physical memory
        except (AttributeError, ValueError, OSError):  # the OS does not say
            limit = 2**40
        if n * per_table > limit:
            raise ValueError(f"num_envs={n} needs about {n * per_table / 2**30:.1f} GiB of buffers, more than this "
                             f"machine's {limit / 2**30:.1f} GiB; allowed: at most {limit // per_table} tables")
        self.num_envs = n
        self.num_players = int(num_players)
        self.single_observation_space = single_observation_space
        self.single_action_space = gymnasium.spaces.Discrete(num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self.num_actions = int(num_actions)
        self.fixed_seat = -1 if seat is None else int(seat)
        self.strict = bool(strict)
        self.copy = bool(copy)
        self.illegal_reward = float(illegal_reward)
        self.control = control
        self.render_mode = None
        # control="all_seats": the seat to move per table, each seat's reward of the last step, and the seat that
        # was to move at a finished episode's last observation (a subclass writes them)
        self._player = np.zeros(n, np.int64)
        self._seat_rewards = np.zeros((n, num_players), np.float32)
        self._final_player = np.zeros(n, np.int64)
        # the buffers the kernels fill
        self._obs = np.zeros((n, d), np.float32)
        self._mask = np.zeros((n, num_actions), np.int8)
        self._reward = np.zeros(n, np.float32)
        self._term = np.zeros(n, np.bool_)
        self._trunc = np.zeros(n, np.bool_)
        self._final_obs = np.zeros((n, d), np.float32)
        self._final_views = np.empty(n, dtype=object)
        self._final_views[:] = np.fromiter(self._final_obs, dtype=object, count=n)
        self._done = np.zeros(n, np.bool_)
        self._illegal = np.full(n, -1, np.int64)
        self._refused = np.zeros(n, np.bool_)
        self._final_seat = np.zeros(n, np.int64)
        self._final_deal = np.zeros(n, np.uint64)
        self._final_ret = np.zeros(n, np.float64)
        self._final_len = np.zeros(n, np.int64)
        self._keys = np.zeros(n, np.uint64)
        self._seed = self._fresh_seed() if seed is None else _check_seed(seed)
        self._started = False
        self._batch: tuple = ()  # the batch policies of the opponents (`compile_line_ups`), j-th of code BATCH_CODE - j
        self._batch_rng = np.random.default_rng(np.random.SeedSequence([self._seed, 0xBA7C]))
        self._recordings: dict[int, Recording] = {}  # by table: `record`
        self._at_start = np.ones(n, np.bool_)  # the table's episode has not had a learner decision yet

    def legal_actions(self, row: int) -> list[int]:
        """The legal actions of table `row`'s learner now."""
        return np.flatnonzero(self._mask[row]).tolist()

    # --- batch policies: what a game whose kernels pause at a batch policy's seat implements ---------------------
    def _paused_rows(self) -> np.ndarray:
        """The tables paused at a batch policy's turn (none in a game whose kernels never pause)."""
        return np.zeros(0, np.int64)

    def _inputs_to_move(self, rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(observations from `seats`, bool masks of the seat to move) at the tables `rows`: what the batch policies
        are given (a game may fuse the two into one kernel call: a call per round of every step)."""
        return self.observe(rows, seats), self._masks_to_move(rows)

    def _serve_batch(self) -> None:
        """Play the batch policies' turns until every table is at a learner decision: one call of each policy over
        every table where it is to move, then one kernel call that goes on at all of them. A policy's error leaves
        tables paused: `step` then refuses until `reset` (which deals every table anew)."""
        self._paused_by_error = True
        self._serve_rounds()
        self._paused_by_error = False

    def _serve_rounds(self) -> None:
        for _ in range(1_000_000):
            rows = self._paused_rows()
            if rows.size == 0:
                return
            seats = self._to_move(rows)
            codes = self._seat_codes(rows, seats)
            obs, masks = self._inputs_to_move(rows, seats)
            acts = np.full(self.num_envs, SKIP, np.int64)
            for j, policy in enumerate(self._batch):
                sel = codes == BATCH_CODE - j
                if policy is None or not sel.any():
                    continue
                acts[rows[sel]] = self._ask(policy, obs[sel], masks[sel], rows[sel], seats[sel])
            if (acts[rows] == SKIP).any():
                raise RuntimeError(f"tables {rows[acts[rows] == SKIP][:5].tolist()} wait on a seat of no batch policy")
            self._step_kernel(acts)  # the kernels go on at the paused tables (`SKIP` at every other)
        raise RuntimeError("batch policies played 1,000,000 turns in one step")  # pragma: no cover

    def _ask(self, policy: BatchPolicy, obs: np.ndarray, mask: np.ndarray, rows: np.ndarray,
             seats: np.ndarray) -> np.ndarray:
        """`policy`'s int64 actions at the tables `rows` (its seats `seats`, bool `mask`); `ValueError` unless it
        returns an integer a table, `IllegalActionError` naming the first illegal one."""
        a = np.asarray(policy.fn(obs, mask, rows, self._batch_rng))
        if a.shape != rows.shape or a.dtype.kind not in "iu":
            raise ValueError(f"batch policy {policy.name!r} must return {rows.size} integer actions (one per "
                             f"table given), got shape {a.shape} dtype {a.dtype}")
        a = a.astype(np.int64)
        bad = (a < 0) | (a >= mask.shape[1])
        bad[~bad] = ~mask[~bad, a[~bad]]
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(int(a[k]), int(seats[k]), f"by batch policy {policy.name!r} at table "
                                     f"{int(rows[k])}", legal=np.flatnonzero(mask[k]).tolist())
        return a

    def _compile_opponents(self, opponents: Any) -> LineUps:
        """The game's check and layout of `opponents` (`compile_line_ups` with its seats and parameters)."""
        raise ValueError(f"{type(self).__name__} does not take new opponents (yet)")

    @staticmethod
    def _no_opponents(opponents: Any, seat: int | None) -> None:
        """Refuse `opponents` and a fixed `seat` under `control="all_seats"` (the policy moves for every seat)."""
        if isinstance(opponents, Pool) or len(opponents):
            raise ValueError("control='all_seats' plays every seat itself: it takes no opponents (give no opponents "
                             "and no seat)")
        if seat is not None:
            raise ValueError("seat must be None under control='all_seats' (the policy moves for every seat)")

    def _seat_line_ups(self, ups: LineUps, random_kernels: Any = None) -> None:
        """Take the compiled line-ups `ups` for the tables' next episodes (`KernelTablesEnv`: with the kernels built
        around their decide kernel, or `random_kernels` where every opponent is `RANDOM` or a batch policy)."""
        self.opponents = ups.line_ups[0] if len(ups.line_ups) == 1 else ups.line_ups
        self._line_ups = ups
        self._batch = ups.batch

    def set_opponents(self, opponents: Any) -> None:
        """New opponents (a line-up or a `Pool`): each table seats them at its next episode, never mid-episode.
        New kernel opponents must share the compiled kernels of the present ones (or be random)."""
        if self.control == "all_seats":
            raise ValueError("control='all_seats' plays every seat itself: it takes no opponents")
        ups = self._compile_opponents(opponents)
        present = self._line_ups.kernels
        if ups.kernels is not None and present is not None and ups.kernels is not present:
            raise ValueError("set_opponents: the new kernel opponents were compiled around other kernels than the "
                             "present ones; build a new vector env for them")
        if ups.kernels is None:
            # tables still seated with the present kernel opponents play them out with the present kernels
            ups = ups._replace(kernels=present)
        self._install(self._register_batch(ups, self._seated_codes()))

    def _register_batch(self, ups: LineUps, codes_in_play: np.ndarray) -> LineUps:
        """`ups` with its batch policies' codes renumbered into the env's registry (`self._batch`, updated): a
        policy keeps its index while tables seated with it play on (`codes_in_play`, the tables' seat codes), a
        dropped one frees its slot once no table uses it, a new one takes a free slot or the next index."""
        in_use = {BATCH_CODE - int(c) for c in np.unique(codes_in_play[codes_in_play <= BATCH_CODE])}
        reg = [p if (p is not None and (j in in_use or any(p is q for q in ups.batch))) else None
               for j, p in enumerate(self._batch)]
        codes = ups.codes.copy()
        for j, policy in enumerate(ups.batch):
            idx = next((i for i, p in enumerate(reg) if p is policy), None)
            if idx is None:
                idx = next((i for i, p in enumerate(reg) if p is None and i not in in_use), len(reg))
                if idx == len(reg):
                    reg.append(policy)
                else:
                    reg[idx] = policy
            codes[ups.codes == BATCH_CODE - j] = BATCH_CODE - idx
        self._batch = tuple(reg)
        return ups._replace(codes=codes, batch=tuple(reg))

    # --- Gymnasium API ------------------------------------------------------------------------
    @staticmethod
    def _fresh_seed() -> int:
        return int(np.random.SeedSequence().generate_state(2, np.uint64)[0]) >> 1

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every table its first episode (a given `seed` replaces the env's seed).

        Without a seed, a second `reset` continues every table's sequence of
        episodes; with one, table `i` starts over at episode 0 of `table_key(seed, i)`.
        """
        if options:
            raise ValueError(f"reset options are not supported (got {sorted(options)}); allowed: none")
        if seed is not None:
            self._seed = _check_seed(seed)
            self._started = False
        if not self._started:
            self._keys[:] = np_table_keys(self._seed, np.arange(self.num_envs))
        self._start_all(fresh=not self._started)
        self._serve_batch()
        self._started = True
        self._at_start[:] = True
        for rec in self._recordings.values():  # a reset deals anew: a recording starts over with the new episode
            if not rec.finished:
                self._begin_recording(rec)
        info = self._base_info()
        return (self._obs.copy() if self.copy else self._obs), info

    def step(self, actions: Any):
        """One decision of the learner at every table, the opponents' moves up to its next one.

        Returns `(obs, rewards, terminations, truncations, infos)`, leading
        dimension `num_envs`; docs/training.md lists the info keys.
        """
        if not self._started:
            raise RuntimeError("the vector env was never reset: call reset() first")
        if getattr(self, "_paused_by_error", False):
            raise RuntimeError("a batch policy failed during the last reset or step and tables are paused at its "
                               "turn: call reset()")
        acts = self._check_actions(actions)
        self._step_kernel(acts)
        self._serve_batch()
        info = self._base_info()
        done = self._done
        self._at_start[:] = done
        if self._recordings:
            self._record_step(acts)
        if done.any():
            dmask = done.copy()
            if self.copy:
                final = np.empty(self.num_envs, dtype=object)
                rows = np.flatnonzero(done)
                store = self._final_obs[rows]  # one copy; the entries are views into it
                final[rows] = np.fromiter(store, dtype=object, count=rows.size)
            else:
                # views into the env's own buffer (made once): valid until the next step
                final = self._final_views.copy()
                final[~dmask] = None
            info["final_obs"] = final
            info["_final_obs"] = dmask
            info["final_info"] = {"seat": self._final_seat.copy(), "deal_seed": self._final_deal.copy(),
                                  "_seat": dmask, "_deal_seed": dmask}
            if self.control == "all_seats":
                info["final_info"].update(current_player=self._final_player.copy(), _current_player=dmask)
            info["_final_info"] = dmask
            info["tabletop_episode"] = {"r": np.where(done, self._final_ret, 0.0),
                                        "l": np.where(done, self._final_len, 0), "_r": dmask, "_l": dmask}
            info["_tabletop_episode"] = dmask
            if self._refused.any():
                info["illegal_action"] = self._illegal.copy()
                info["_illegal_action"] = self._refused.copy()
        if self.copy:
            return self._obs.copy(), self._reward.copy(), self._term.copy(), self._trunc.copy(), info
        return self._obs, self._reward, self._term, self._trunc, info

    # --- recordings -----------------------------------------------------------------------------
    def record(self, row: int) -> Recording:
        """Record table `row`'s episode, from its start: at once if no learner decision of its current episode was
        taken yet (after `reset`, or when its last episode ended in the last step), else from its next episode.
        Returns the `Recording`, filled in place as the env steps (also `recording(row)`); a second call for the
        same table starts a new one. Tables not recorded cost nothing."""
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 0 <= row < self.num_envs:
            raise ValueError(f"row must be an integer in 0..{self.num_envs - 1}, got {row!r}")
        rec = Recording(int(row))
        self._recordings[int(row)] = rec
        if self._started and self._at_start[row]:
            self._begin_recording(rec)
        return rec

    def recording(self, row: int) -> Recording:
        """The recording of table `row` (`record`); `KeyError` naming the recorded tables when there is none."""
        if row not in self._recordings:
            raise KeyError(f"table {row} is not recorded (recorded: {sorted(self._recordings) or 'none'}); "
                           f"call record({row}) first")
        return self._recordings[row]

    def _frame(self, row: int) -> str:
        render = getattr(self, "render", None)
        return render(row) if callable(render) else f"observation {self._obs[row].tolist()}"

    def _begin_recording(self, rec: Recording) -> None:
        r = rec.row
        rec.deal_seed, rec.seat = int(self._deal_seeds()[r]), int(self._seats()[r])
        rec.frames[:], rec.actions[:], rec.rewards[:] = [self._frame(r)], [], []
        rec.started, rec.finished, rec.episode_return, rec.length = True, False, None, None

    def _record_step(self, acts: np.ndarray) -> None:
        """After a step: the recorded tables' actions, rewards and next frames; an ended episode closes its
        recording, and a waiting recording starts with the episode just dealt."""
        for r, rec in self._recordings.items():
            if rec.finished:
                continue
            if not rec.started:
                if self._done[r]:
                    self._begin_recording(rec)
                continue
            rec.actions.append(int(self._illegal[r]) if self._refused[r] else int(acts[r]))  # a refused one too
            rec.rewards.append(float(self._reward[r]))
            if self._done[r]:
                rec.finished, rec.episode_return, rec.length = True, float(self._final_ret[r]), int(self._final_len[r])
            else:
                rec.frames.append(self._frame(r))

    def _base_info(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, np.bool_)
        info = {
            "seat": self._seats().copy(), "_seat": every,
            "deal_seed": self._deal_seeds().copy(), "_deal_seed": every,
            "action_mask": self._mask.copy(), "_action_mask": every,
        }
        if self.control == "all_seats":
            # under all_seats the seat an observation is for is whoever moves there
            info.update(current_player=info["seat"].copy(), _current_player=every,
                        rewards=self._seat_rewards.copy(), _rewards=every)
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions at every table, bool `(num_envs, A)` (never an all-False row)."""
        if not self._started:
            raise RuntimeError("the vector env was never reset: call reset() first")
        view = self._mask.view(np.bool_)  # int8 0/1 is bool's byte layout
        return view.copy() if self.copy else view

    def _check_actions(self, actions: Any) -> np.ndarray:
        """The actions as a fresh int64 (N,) array (`envs.core.actions.action_ids`): -1 where a table's action is
        not an action id."""
        out = action_ids(actions, self.num_envs)
        if self.strict:
            ok = (out >= 0) & (out < self.num_actions)
            rows = np.flatnonzero(ok)
            ok[rows] = self._mask[rows, out[rows]] != 0
            if not ok.all():
                r = int(np.flatnonzero(~ok)[0])
                given = actions[r] if isinstance(actions, (list, tuple)) else np.asarray(actions).reshape(-1)[r]
                raise IllegalActionError(given.item() if isinstance(given, np.generic) else given,
                                         int(self._seats()[r]), f"at table {r}", legal=self.legal_actions(r))
        return out

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the tables are arrays."""


#: Error statuses a compiled step writes into `Buffers.err[1]` (row, status, seat, action): a seat's kernel chose an
#: illegal action; a table dealt 10,000 times in a row without reaching the learner's first decision.
ERR_ILLEGAL, ERR_REDEALS = -2, -3


class KernelTablesEnv(CompiledVectorEnv):
    """A `CompiledVectorEnv` whose tables are numba arrays stepped by one pair of compiled kernels: the
    constructor, the tables' bookkeeping, the batch-policy pauses and the error reports written once.

    Args:
        num_envs: tables (>= 1).
        opponents: a line-up of `num_players - 1` opponents (`OpponentKernel`s and `BatchPolicy`s; `opponents[k]`
            sits k + 1 seats after the learner), or a `Pool` of line-ups drawn per table at each episode's start.
            Kernels other than `RANDOM` must share one `kernels` object. None under `control="all_seats"`.
        seed: the vector env's seed (None: a fresh one from the OS); table i's episodes follow from
            `table_key(seed, i)` alone.
        control: `"one_seat"` (a learner against the opponents) or `"all_seats"` (the policy moves for every seat).
        seat: fix the learner's seat (None: drawn per episode from the table's stream; one seat only).
        strict: raise `IllegalActionError` on a refused action instead of ending the episode.
        copy: return fresh arrays (True) or the env's own buffers, overwritten by the next call (False).
        illegal_reward: the learner's reward for a refused action (non-strict).
        max_turns: truncate an episode after this many moves, all seats' (None: the game's `max_game_length`).
        **options: the game's options (its `Config`).

    A game declares `config_type`, `game_type`, `encoder_type`, `random_kernels`, `num_params`, `seat_word` and
    `seat_rewards` (True: its kernels fill `SeatBuffers`), and implements `_new_tables()` (its zeroed `Tables` for
    `num_envs` tables: its `fast.new_tables`), `_new_settings(ups)` (its kernel `Settings` for the line-ups `ups` and
    the env's `fixed_seat`, `_max_turns`, `illegal_reward` and `control`), `_to_move`, `_masks_to_move` (or
    `_inputs_to_move`), `_observe_rows(rows, seats, out)` (`out[k]`: the observation of table `rows[k]` from seat
    `seats[k]`: its compiled `observe_rows`), and where needed `_prepare_game`, `_kernel_head`, `_error_text` and
    `_privileged_rows` (the hooks below say what each returns).
    """

    config_type: Any = None
    game_type: Any = None
    encoder_type: Any = None
    random_kernels: Any = None
    num_params: int = 0
    seat_word: str = "opponent"
    seat_rewards: bool = True

    _tables: Any
    _buffers: Buffers
    _settings: Any
    _kernels: Any
    _line_ups: LineUps

    def __init__(self, num_envs: int, *, opponents: Any = (), seed: int | None = None, control: str = "one_seat",
                 seat: int | None = None, strict: bool = False, copy: bool = True, illegal_reward: float = -1.0,
                 max_turns: int | None = None, **options: Any):
        check_control(control)
        self.config = make_config(self.config_type, options)
        self.game = self.game_type(self.config)
        self.encoder = self.encoder_type(self.game)
        self._prepare_game()
        self.control = control
        if control == "all_seats":
            self._no_opponents(opponents, seat)
            ups = compile_line_ups([], 0, self.num_params)  # no opponent seat: one empty line-up, never drawn from
        else:
            ups = self._compile_opponents(opponents)
        check_move_limit(max_turns)
        self._setup(num_envs, self.encoder.observation_space, self.game.num_actions, self.game.num_players, seed=seed,
                    seat=seat, strict=strict, copy=copy, illegal_reward=illegal_reward, control=control)
        if not self.seat_rewards:
            self._final_player = self._final_seat  # the seat a final observation is encoded for: the one that moved
        max_turns = default_max_turns(self.game, max_turns)
        self._max_turns = -1 if max_turns is None else int(max_turns)
        self._install(ups)
        self._tables = self._new_tables()
        buffers = self._kernel_buffers()
        self._buffers = SeatBuffers(*buffers, self._final_player, self._seat_rewards) if self.seat_rewards else buffers

    # --- what a game supplies -----------------------------------------------------------------------------------
    def _prepare_game(self) -> None:
        """After `config`, `game` and `encoder`: raise `ValueError` naming the options the game's kernels do not play,
        and build what they need from the game (nothing here)."""

    def _error_text(self, status: int, seat: int, act: int, who: str) -> str:
        """What went wrong at a table, after "table ROW: " (`status` other than `ERR_REDEALS`)."""
        if status == ERR_ILLEGAL:
            return f"{self.seat_word} {who!r} at seat {seat} chose the illegal action {act}"
        return f"the step kernel stopped with status {status} at seat {seat}"

    # --- the bookkeeping, written once ---------------------------------------------------------------------------
    def _compile_opponents(self, opponents: Any) -> LineUps:
        n = self.game.num_players
        if isinstance(opponents, (list, tuple)) and len(opponents) != n - 1:
            raise ValueError(f"a {n}-player game needs {n - 1} opponents ({self.seat_word}s, num_players - 1), got "
                             f"{len(opponents)}")
        return compile_line_ups(opponents, n - 1, self.num_params)

    def _install(self, ups: LineUps) -> None:
        """Seat the compiled line-ups `ups` (`compile_line_ups`) for the tables' next episodes."""
        self._seat_line_ups(ups, self.random_kernels)
        self._settings = self._new_settings(ups)

    def _seat_line_ups(self, ups: LineUps, random_kernels: Any = None) -> None:
        super()._seat_line_ups(ups)
        self._kernels = ups.kernels if ups.kernels is not None else random_kernels

    def _kernel_buffers(self) -> Buffers:
        """The shared `Buffers` over the arrays `_setup` allocated (no error yet)."""
        return Buffers(self._obs, self._mask, self._reward, self._term, self._trunc, self._final_obs, self._done,
                       self._illegal, self._final_seat, self._final_deal, self._final_ret, self._final_len,
                       self._refused, np.full(4, -1, np.int64))

    def _kernel_head(self) -> tuple:
        """Arguments the kernels take before the tables (none; RoboRally: its packed board)."""
        return ()

    def _seated_codes(self) -> np.ndarray:
        return self._tables.codes

    def _start_all(self, fresh: bool) -> None:
        self._tables.key[:] = self._keys
        self._buffers.err[0] = -1
        self._kernels.reset(*self._kernel_head(), self._tables, self._buffers, self._settings, fresh)
        self._check_err()
        if not self.seat_rewards:
            self._seat_rewards[:] = 0.0

    def _step_kernel(self, actions: np.ndarray) -> None:
        self._kernels.step(*self._kernel_head(), self._tables, self._buffers, self._settings, actions)
        self._check_err()
        if not self.seat_rewards and self.control == "all_seats":
            self._seat_rewards[:] = self._reward[:, None]  # a team: every seat is paid the step's reward

    def _seats(self) -> np.ndarray:
        return self._tables.learner

    def _deal_seeds(self) -> np.ndarray:
        return self._tables.seed

    def _paused_rows(self) -> np.ndarray:
        return np.flatnonzero(self._tables.phase)

    def _seat_codes(self, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return self._tables.codes[rows, seats]

    def _seated_name(self, row: int, seat: int) -> str:
        """The id of the opponent at `seat` of table `row` (its code where none matches)."""
        code = int(self._tables.codes[row, seat]) if seat >= 0 else None
        return next((o.name for up in self._line_ups.line_ups for o in up if getattr(o, "code", None) == code),
                    f"code {code}")

    def _check_err(self) -> None:
        """Raise `RuntimeError` naming the table, the seat and the opponent where the last kernel call stopped on an
        error (`Buffers.err`)."""
        row, status, seat, act = (int(x) for x in self._buffers.err)
        if row < 0:
            return
        if status == ERR_REDEALS:
            raise RuntimeError(f"table {row}: 10,000 deals in a row ended before the learner's first decision")
        raise RuntimeError(f"table {row}: " + self._error_text(status, seat, act, self._seated_name(row, seat)))

    # --- tools ---------------------------------------------------------------------------------
    def privileged_observations(self) -> np.ndarray:
        """`(N, P)` float32: what each table hides from the seat of the last observation returned (the encoder's
        `privileged(state, seat)`, written by the game's compiled twin), for an asymmetric critic
        (`train.cleanrl_ppo --privileged-critic`); never a policy's input.

        Raises:
            NotImplementedError: the game's vector env has no privileged rows.
        """
        size = getattr(self.encoder, "privileged_size", None)
        if size is None:
            raise NotImplementedError(f"{type(self).__name__} gives no privileged observations")
        out = np.zeros((self.num_envs, size()), np.float32)
        self._privileged_rows(np.arange(self.num_envs), self._seats(), out)
        return out

    def _privileged_rows(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
        raise NotImplementedError

    def render(self, row: int = 0) -> str:
        """Text picture of table `row` (the plain engine's `render` of the game's `state(row)`)."""
        who = "to move" if self.control == "all_seats" else "learner"
        return f"table {row} ({who} player_{int(self._seats()[row])}):\n" + self.game.render(self.state(row))

    def observe(self, rows: Sequence[int] | np.ndarray, seats: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Observations of tables `rows` from `seats` (default: each table's learner), a new (len(rows), D) array."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        seats = self._tables.learner[rows] if seats is None else np.asarray(seats, dtype=np.int64).reshape(-1)
        out = np.zeros((rows.shape[0], self.single_observation_space.shape[0]), np.float32)
        self._observe_rows(rows, seats, out)
        return out


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed must be None or an integer in 0..2**64-1, got {seed!r}")
    return int(seed)


__all__ = ["BATCH_CODE", "CONTROLS", "ERR_ILLEGAL", "ERR_REDEALS", "RANDOM", "SKIP", "BatchPolicy", "Buffers",
           "SeatBuffers", "CompiledVectorEnv", "KernelTablesEnv", "LineUps", "OpponentKernel", "Recording", "Pool",
           "check_control", "compile_line_ups", "episode_seeds", "next_random", "nb_pick_line_up",
           "np_episode_seeds", "np_mix64", "np_next", "np_pick_line_up", "np_table_keys",
           "pick_line_up", "shared_kernels", "table_key", "VectorKernels"]
