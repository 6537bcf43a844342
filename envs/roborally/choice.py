"""RoboRally's program choice as an action scorer's env: each learner decision picks one of at most `candidates`
programs of its hand (`ProgramChoiceEnv`, over the program-mode vector env), every candidate described by its own
features. Observations are rows `[context (C), per_candidate (K x F)]` (`feature_dims`; C = 10, F = 19), the mask
the candidates that exist; action j plays candidate j's program-mode action (`candidate_actions`). The candidates,
their order and their features are described in docs/roborally.md ("The program scorer").
"""
from __future__ import annotations

from typing import Any

import gymnasium as gym
import numba
import numpy as np

from envs.roborally import fast
from envs.roborally.joint import steps_to_flag
from envs.roborally.rules import NUM_PROGRAMS, PROGRAM_NOOP, REGISTERS, View, public_state
from envs.roborally.vector import RoboRallyVectorEnv

FEATURES = "roborally_program"
_F = {name: i for i, name in enumerate(fast.PROGRAM_FEATURES)}
#: per-feature divisors of `PROGRAM_FEATURES` (walls, damage and turns are counts)
_SCALE = np.ones(len(fast.PROGRAM_FEATURES), np.float32)
_SCALE[[_F["walls"], _F["damage"], _F["turns"]]] = (5.0, 10.0, 10.0)
FEATURE_DIM = len(fast.PROGRAM_FEATURES) + 3
CONTEXT_DIM = 10
MAX_ROBOTS = 8
#: K: the candidate programs a decision offers the shipped program scorers (of the hand's reduced programs: all of
#: them in 93% of decisions against greedy on race_easy).
CANDIDATES = 32
#: Where a hand has more than K programs, at most this many with one end (square, facing, alive) come first.
PER_END = 4


def seeker_order(feats: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Indices of the programs with features `feats` [P, F] and ranks `ranks` [P] in the flag seeker's order
    (alive, then more flags claimed, then fewer BFS steps to the next flag, then the lower rank)."""
    return np.lexsort((ranks, feats[:, _F["distance"]], -feats[:, _F["flags"]], -feats[:, _F["alive"]]))


def preselect(feats: np.ndarray, count: int, k: int, per_end: int) -> np.ndarray:
    """The ranks (int64, at most `k`) a decision offers of its `count` programs with features `feats` [>= count,
    F]: all in rank order where count <= k; else the flag seeker's order (alive, more flags, fewer steps, lower
    rank) with at most `per_end` a distinct end (x, y, facing, alive) first, then the rest of that order.
    The readable twin of the compiled `_preselect` (which `ProgramChoiceEnv` runs)."""
    if count <= k:
        return np.arange(count, dtype=np.int64)
    f = feats[:count]
    order = seeker_order(f, np.arange(count))
    facing = f[:, _F["facing_n"]:_F["facing_w"] + 1].argmax(axis=1)
    xy = np.rint(f[:, [_F["x"], _F["y"]]] * 255).astype(np.int64)  # x / (W - 1), y / (H - 1): exact squares
    ends = (((xy[:, 0] * 256 + xy[:, 1]) * 4 + facing) * 2 + (f[:, _F["alive"]] > 0))[order]
    inverse = np.unique(ends, return_inverse=True)[1].reshape(-1)
    by_end = np.argsort(inverse, kind="stable")  # each end's programs together, in the flag seeker's order
    group = inverse[by_end]
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    within = np.empty(count, np.int64)  # place of each program among those of its end
    within[by_end] = np.arange(count) - np.repeat(starts, np.diff(np.r_[starts, count]))
    kept = np.concatenate([order[within < per_end], order[within >= per_end]])
    return kept[:k].astype(np.int64)


# --- the compiled candidates: `ProgramChoiceEnv._observe` runs these over every table at once ---------------------
_ALIVE, _FLAGS, _FIN, _DIST, _DIED, _X, _Y, _FN = (_F[k] for k in ("alive", "flags", "finished", "distance",
                                                                  "died_at", "x", "y", "facing_n"))
_NS = len(fast.PROGRAM_FEATURES)
_ENDS = 256 * 256 * 4 * 2  # the distinct end keys of `_end_key`


@numba.njit(cache=True)
def _ordered_bits(v):
    """float32 `v` as a uint32 that sorts as the float does (-0.0 as 0.0)."""
    b = np.int64(np.array([v + np.float32(0.0)], np.float32).view(np.uint32)[0])
    return (b ^ 0xFFFFFFFF) if b >= 0x80000000 else (b | 0x80000000)


@numba.njit(cache=True)
def _seeker_keys(f, ranks):
    """Keys that sort as `seeker_order`: (not alive, flags not claimed, distance's bits, rank) packed in that order
    of significance, so ties fall to the rank as in `np.lexsort` (ranks below 2^15, flags below 32)."""
    keys = np.empty(ranks.shape[0], np.int64)
    for i in range(ranks.shape[0]):
        alive = 0 if f[i, _ALIVE] > 0 else 1
        keys[i] = (((alive << 5 | (31 - np.int64(f[i, _FLAGS]))) << 32 | _ordered_bits(f[i, _DIST])) << 15) | ranks[i]
    return keys


@numba.njit(cache=True)
def _end_key(row):
    """The end (square, facing, alive) of a program's features `row`, as one number below `_ENDS`."""
    x = np.int64(np.rint(row[_X] * np.float32(255)))
    y = np.int64(np.rint(row[_Y] * np.float32(255)))
    facing = 0
    for d in range(1, 4):
        if row[_FN + d] > row[_FN + facing]:
            facing = d
    return ((x * 256 + y) * 4 + facing) * 2 + (1 if row[_ALIVE] > 0 else 0)


@numba.njit(cache=True)
def _preselect(f, count, k, per_end, seen, out):
    """`preselect` compiled: the kept ranks into `out[:n]`, returns n. `seen` (int64 [_ENDS], zeros) is scratch,
    left zero."""
    if count <= k:
        for p in range(count):
            out[p] = p
        return count
    order = np.sort(_seeker_keys(f[:count], np.arange(count))) & 0x7FFF  # the flag seeker's order of ranks
    within = np.empty(count, np.int64)
    for i in range(count):
        e = _end_key(f[order[i]])
        within[i] = seen[e]
        seen[e] += 1
    n = 0
    for first in (True, False):
        for i in range(count):
            if n < k and (within[i] < per_end) == first:
                out[n] = order[i]
                n += 1
    for i in range(count):
        seen[_end_key(f[order[i]])] = 0
    return n


@numba.njit(cache=True)
def _context(R, me, count, cut, turn, cap, lives, nflags, dist, big, out):
    """The context row (see the module docstring) of seat `me` on robots `R` into `out` (float32 [CONTEXT_DIM])."""
    most, fewest = 0, 1.0
    for i in range(R.shape[0]):
        if i != me:
            most = max(most, R[i, fast.RNF])
            fewest = min(fewest, steps_to_flag(R, i, nflags, dist, big))
    out[0] = min(R[me, fast.RDMG], 10) / 10
    out[1] = R[me, fast.RLIVES] / lives
    out[2] = (nflags - R[me, fast.RNF]) / nflags
    out[3] = steps_to_flag(R, me, nflags, dist, big)
    out[4] = 0.0 if cap <= 0 else min(turn / cap, 1.0)
    out[5] = count / NUM_PROGRAMS
    out[6] = R.shape[0] / MAX_ROBOTS
    out[7] = most / nflags
    out[8] = fewest
    out[9] = 1.0 if cut else 0.0


@numba.njit(cache=True)
def _candidate_rows(feats, kept, n, K, scale, row):
    """Candidates `kept[:n]`'s rows into `row` (an observation: candidate j at CONTEXT_DIM + j * FEATURE_DIM):
    scaled features, place in the flag seeker's order / K, finishes first, 1."""
    f = feats[kept[:n]]
    at = CONTEXT_DIM + np.arange(n) * FEATURE_DIM
    for j in range(n):
        for c in range(_NS):
            row[at[j] + c] = f[j, c] / scale[c]
        row[at[j] + _NS + 2] = 1.0
    o = np.argsort(_seeker_keys(f, kept[:n]))
    for i in range(n):
        row[at[o[i]] + _NS] = np.float32(i) / np.float32(K)
    first = np.inf
    for j in range(n):
        if f[j, _FIN] > 0:
            first = min(first, f[j, _DIED])
    for j in range(n):
        row[at[j] + _NS + 1] = 1.0 if f[j, _FIN] > 0 and f[j, _DIED] == first else 0.0


@numba.njit(cache=True)
def _observe_kernel(cards, feats, counts, R, learner, turns, cap, lives, nflags, dist, K, per_end, scale,
                    obs, actions, mask, cands, cut):
    """Every table's rows, candidate actions, mask, cards and cut (`ProgramChoiceEnv._observe`); the outputs are
    written whole."""
    seen = np.zeros(_ENDS, np.int64)
    kept = np.empty(K, np.int64)
    big = float(dist.shape[1] + dist.shape[2])
    obs[:] = 0
    actions[:] = PROGRAM_NOOP
    mask[:] = False
    cands[:] = 0
    for r in range(obs.shape[0]):
        c = counts[r]
        n = 0
        if c == 0:
            mask[r, 0] = True
        else:
            n = _preselect(feats[r], c, K, per_end, seen, kept)
            for j in range(n):
                actions[r, j] = kept[j]
                mask[r, j] = True
                cands[r, j] = cards[r, kept[j]]
            _candidate_rows(feats[r], kept, n, K, scale, obs[r])
        cut[r] = c > K
        _context(R[r], learner[r], c, c > K, turns[r], cap, lives, nflags, dist, big, obs[r, :CONTEXT_DIM])


def observe_tables(game: Any, bd: tuple, T: Any, rows: np.ndarray, seats: np.ndarray, table: tuple, candidates: int,
                   per_end: int, joint: Any = None, turns: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """The decisions of seat `seats[q]` at compiled table `rows[q]` of `T` (a vector env's or a tournament
    runner's `fast.Tables`; `bd` the packed board) as a program scorer sees them, given their programs `table`
    (`envs.roborally.vector.program_table`'s (cards, features, counts)): (rows [R, C + K * F], candidate actions
    [R, K], mask [R, K], cards [R, K, 5], cut [R]) with K = `candidates` (see the module docstring).

    With `joint` (a `JointTurn`), each candidate's row goes on with `joint.dim` columns of its joint turn
    (`joint(bd, T, rows, seats, cards, solo, mask, turns)`, `turns` the turns table): F = FEATURE_DIM + joint.dim."""
    cards, feats, counts = table
    R, K = rows.size, int(candidates)
    obs = np.empty((R, CONTEXT_DIM + K * FEATURE_DIM), np.float32)
    actions, mask = np.empty((R, K), np.int64), np.empty((R, K), bool)
    cands, cut = np.empty((R, K, REGISTERS), np.int32), np.empty(R, bool)
    cap = game.config.max_turns
    _observe_kernel(cards, feats, counts, T.R[rows], np.asarray(seats, np.int64), T.meta[rows, fast.M_TURN],
                    0 if cap is None else cap, float(max(int(game.lives), 1)), len(game.board.flags), bd[15], K,
                    int(per_end), _SCALE, obs, actions, mask, cands, cut)
    if joint is not None:
        solo = np.zeros((R, K, feats.shape[2]), np.float32)
        if feats.shape[1]:
            solo = np.take_along_axis(feats, np.minimum(actions, feats.shape[1] - 1)[:, :, None], axis=1)
        extra = joint(bd, T, rows, seats, cands, solo, mask, turns)
        per = np.concatenate([obs[:, CONTEXT_DIM:].reshape(R, K, FEATURE_DIM), extra], axis=2)
        obs = np.concatenate([obs[:, :CONTEXT_DIM], per.reshape(R, -1)], axis=1)
    return obs, actions, mask, cands, cut


class JointTurn:
    """What `observe_tables` adds to each candidate's row: `dim` columns of the candidate's joint turn (see
    `envs.roborally.joint`), computed by `kernel(bd, T, rows, seats, cards, solo, mask, worlds, turns, out)` (the
    other robots programmed by the caller's kernel: `agents.roborally.joint` binds the flag seeker), over `worlds`
    deals of the unseen cards; `name` is the feature set the rows make.

    Raises:
        ValueError: worlds below 1."""

    def __init__(self, name: str, dim: int, kernel: Any, worlds: int):
        if int(worlds) < 1:
            raise ValueError(f"worlds must be >= 1, got {worlds}")
        self.name, self.dim, self.kernel, self.worlds = name, int(dim), kernel, int(worlds)

    def __call__(self, bd: tuple, T: Any, rows: np.ndarray, seats: np.ndarray, cards: np.ndarray, solo: np.ndarray,
                 mask: np.ndarray, turns: np.ndarray) -> np.ndarray:
        """float32 [R, K, dim]: the joint columns of every candidate (zeros where `mask` is False)."""
        out = np.zeros((*mask.shape, self.dim), np.float32)
        self.kernel(bd, T, np.asarray(rows, np.int64), np.asarray(seats, np.int64), cards, solo, mask, self.worlds,
                    turns, out)
        return out


class ProgramChoiceEnv(gym.vector.VectorEnv):
    """`num_envs` RoboRally races whose learner decisions choose among at most `candidates` programs (see the
    module docstring).

    Args:
        num_envs: tables.
        candidates: K, the candidates a decision offers (>= 1).
        per_end: where a hand has more than K programs, at most this many of one end first (>= 1).
        joint: a `JointTurn` whose columns each candidate's row goes on with (None: the solo features alone).
        **kwargs: `RoboRallyVectorEnv`'s (opponents, seed, control "one_seat", seat, copy, game options);
            `action_mode` is "program".

    Raises:
        ValueError: K or per_end below 1, another action_mode, or control="all_seats".
    """

    def __init__(self, num_envs: int, candidates: int = 64, per_end: int = 4, joint: JointTurn | None = None,
                 **kwargs: Any):
        if int(candidates) < 1 or int(per_end) < 1:
            raise ValueError(f"candidates and per_end must be >= 1, got {candidates} and {per_end}")
        if kwargs.setdefault("action_mode", "program") != "program":
            raise ValueError(f"a program choice needs action_mode='program', got {kwargs['action_mode']!r}")
        if kwargs.get("control", "one_seat") != "one_seat":
            raise ValueError("a program choice env plays one learner seat: control must be 'one_seat'")
        kwargs["copy"] = True
        self.venv = RoboRallyVectorEnv(num_envs, **kwargs)
        self.game, self.config = self.venv.game, self.venv.config
        self.num_envs, self.candidates, self.per_end = int(num_envs), int(candidates), int(per_end)
        self.joint = joint
        per = FEATURE_DIM + (joint.dim if joint is not None else 0)
        self.features, self.feature_dims = (joint.name if joint is not None else FEATURES), (CONTEXT_DIM, per)
        self.single_action_space = gym.spaces.Discrete(self.candidates)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        width = CONTEXT_DIM + self.candidates * per
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (width,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}
        self._actions = np.zeros((self.num_envs, self.candidates), np.int64)
        self._mask = np.zeros((self.num_envs, self.candidates), bool)
        self._cards = np.zeros((self.num_envs, self.candidates, REGISTERS), np.int32)
        self.cut = np.zeros(self.num_envs, bool)

    def __getattr__(self, name: str) -> Any:
        if name == "venv":
            raise AttributeError(name)
        return getattr(self.venv, name)

    # --- the candidates -------------------------------------------------------------------------
    def _observe(self) -> np.ndarray:
        """Each table's rows, candidate actions and mask for its decision now (`observe_tables`)."""
        T = self.venv._tables
        obs, self._actions, self._mask, self._cards, self.cut = observe_tables(
            self.game, self.venv.engine.board, T, np.arange(self.num_envs), T.learner, self.venv.program_table(),
            self.candidates, self.per_end, self.joint, self.venv._turns)
        return obs

    def candidate_actions(self) -> np.ndarray:
        """int64 [N, K]: the wrapped env's program-mode action of each candidate now (PROGRAM_NOOP where none)."""
        return self._actions.copy()

    def action_masks(self) -> np.ndarray:
        """bool [N, K]: the candidates that exist."""
        return self._mask.copy()

    def candidate_cards(self) -> np.ndarray:
        """int32 [N, K, 5]: each candidate's cards for its free registers (0 after, and for NOOP or none)."""
        return self._cards.copy()

    def observe_view(self, view: View) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row [C + K * F], mask [K], cards [K, 5]) of the robot deciding at `view` (a rules-engine `View` at
        its program decision: `action_mode="program"`), as this env's table 0 would give them there: table 0 is
        overwritten with what the view shows (robots, the turn, its hand and registers) and observed. A program
        scorer trained here plays the rules engine with it (`agents.roborally.program`)."""
        T, seat = self.venv._tables, int(view.seat)
        fs = self.venv.engine.pack(public_state(view))
        T.R[0], T.regs[0], T.meta[0] = fs.robots, fs.registers, fs.meta
        T.hands[0], T.hand_len[0], T.cls[0], T.used[0] = 0, 0, 0, 0
        T.hands[0, seat, :len(view.hand)] = view.hand
        T.hand_len[0] = view.hand_sizes  # public; the others' hands stay unknown (zeros)
        T.hand_len[0, seat] = len(view.hand)
        fast.hand_classes(T.hands[0, seat], len(view.hand), self.venv.engine.board[14], T.cls[0, seat])
        T.learner[0], T.step[0] = seat, view.step
        obs = self._observe()
        return obs[0], self._mask[0].copy(), self._cards[0].copy()

    # --- the Gymnasium contract ---------------------------------------------------------------------
    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[np.ndarray, dict[str, Any]]:
        _, info = self.venv.reset(seed=seed, options=options)
        return self._observe(), info

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Play candidate `actions[r]` at each table r (a candidate that does not exist is the wrapped env's
        illegal action: it raises under `strict`)."""
        a = np.asarray(actions, np.int64).reshape(self.num_envs)
        ok = (a >= 0) & (a < self.candidates)
        ok[ok] = self._mask[np.flatnonzero(ok), a[ok]]
        program = np.where(ok, self._actions[np.arange(self.num_envs), np.clip(a, 0, self.candidates - 1)], -1)
        _, reward, term, trunc, info = self.venv.step(program)
        obs = self._observe()
        if "final_obs" in info:  # zero rows: the wrapped env holds the next episode's state by then
            final = np.array(info["final_obs"], dtype=object)
            for i in np.flatnonzero(info.get("_final_obs", np.zeros(self.num_envs, bool))):
                final[i] = np.zeros(self.single_observation_space.shape, np.float32)
            info = {**info, "final_obs": final}
        return obs, reward, term, trunc, info

    def close(self, **kwargs: Any) -> None:
        self.venv.close(**kwargs)
