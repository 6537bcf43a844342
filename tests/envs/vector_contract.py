"""What every game's compiled vector env must do, written once: the Gymnasium contract as the suite uses it, and
the differential replay of every table in the plain engine.

A game's vector test (`tests/envs/<game>/test_<game>_vector.py`) declares a `VectorCase` (its id, a line-up of
kernel opponents, options, sizes) and subclasses `VectorContract` as `TestVectorContract`, so pytest runs every
shared check on that game under the game's own file; the file keeps only what is the game's own: its replays in
the plain engine (`replay` with its opponents' Python mirrors) and its rules' options. Import it after
`sys.path.append(str(Path(__file__).parents[1]))` (tests/envs, after the installed packages, as `golden`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import agents
import envs
from envs.core.game import IllegalActionError
from envs.core.vector import episode_seeds, next_random


class RandomMirror:
    """A kernel's random seat in Python: the k-th legal action, k = draw mod count, from the table's SplitMix64
    stream (shared by the table's random seats). `draw_when_forced=False`: a forced action draws nothing (as
    RoboRally's kernel)."""

    def __init__(self, shared: dict, draw_when_forced: bool = True):
        self.shared = shared
        self.draw_when_forced = draw_when_forced

    def act(self, view, mask):
        """The mirrored choice among the legal actions of `mask`."""
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1 and not self.draw_when_forced:
            return legal[0]
        self.shared["rng"], z = next_random(self.shared["rng"])
        return legal[z % len(legal)]


def obs_pick(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A deterministic batch choice that depends on every observed number: the k-th legal action of each row, k
    from the observation's bytes (so an observation encoded from the wrong seat picks other moves)."""
    k = [int.from_bytes(o.tobytes()[-8:], "little") ^ int(o.sum() * 4096) ^ int(o @ np.arange(o.size)) for o in obs]
    out = np.empty(len(obs), np.int64)
    for i, m in enumerate(mask):
        legal = np.flatnonzero(m)
        out[i] = legal[k[i] % legal.size]
    return out


class PickTwin:
    """`obs_pick` as a Python agent of the plain engine: it encodes its own seat's view with `encoder`, as a vector
    env encodes a batch policy's observations from that policy's seat."""

    def __init__(self, encoder):
        self.enc = encoder

    def act(self, view, mask):
        """The twin's choice among the legal actions of `mask`."""
        return int(obs_pick(self.enc.encode(view)[None], np.asarray(mask, bool)[None])[0])


def pick_policy(calls: list | None = None, name: str = "pick", choice_only: bool = False):
    """`obs_pick` as a batch policy that checks what the env hands it (float32 observations, bool masks, int64 rows,
    a Generator) and appends the rows it is asked for to `calls`; under `choice_only` it must be asked only where it
    has a choice (a game whose kernels play a forced action without asking)."""
    from envs.core.vector import BatchPolicy

    def fn(obs, mask, rows, rng):
        assert obs.dtype == np.float32 and mask.dtype == np.bool_ and rows.dtype == np.int64
        assert isinstance(rng, np.random.Generator)
        assert not choice_only or (mask.sum(axis=1) >= 2).all()
        if calls is not None:
            calls.append(rows.copy())
        return obs_pick(obs, mask)

    return BatchPolicy(fn, name)


def check_set_opponents_at_next_episode(venv, line_up: Callable[[Any], list], steps: int = 400, seed: int = 0,
                                       back: Any = None):
    """Seat a batch policy (`obs_pick`) with `venv.set_opponents(line_up(policy))` after a reset and step random
    legal actions: the policy is asked only at tables whose episode ended since (each table seats new opponents at
    its next episode, never mid-episode), and every table's episode ends within `steps`. Then, given `back` (kernel
    opponents, as `set_opponents` takes them), seat those: the policy plays out the episodes it sits in (asked only
    at tables whose episode has not ended since) and every table's episode ends within `steps` again."""
    n = venv.num_envs
    rng = np.random.default_rng(seed)
    asked: list[np.ndarray] = []

    def step() -> np.ndarray:
        asked.clear()
        _, _, term, trunc, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
        return term | trunc

    venv.reset()
    venv.set_opponents(line_up(pick_policy(asked, "new")))
    ended = np.zeros(n, bool)
    for _ in range(steps):
        ended |= step()
        for rows in asked:  # this step's episode ends count: a table's next episode starts within the step
            assert ended[rows].all(), rows
        if ended.all() and asked:
            break
    assert ended.all() and asked
    if back is None:
        return
    venv.set_opponents(back)
    ended[:] = False
    for _ in range(steps):
        now = step()
        for rows in asked:
            assert not ended[rows].any(), rows
        ended |= now
        if ended.all():
            break
    assert ended.all()


class Shadow:
    """One table replayed in the plain engine (the game and its encoder), as `OpponentEnv` plays it: the deal of
    `game.deal(deal_seed)`, the opponents Python players seated after the learner, their rewards carried into the
    learner's next one. Under `all_seats` the policy plays whoever is to move.

    `redeals`: a deal that ends before the learner's first decision takes the table's next episode index (same
    seat); without it every episode index must reach the learner. `max_turns` counts every seat's moves (the vector
    env's cut); a game that stops itself at a turn cap says so with `game.truncated(state)`.
    """

    def __init__(self, game, encoder, seed: int, table: int, make_opponents: Callable[[dict], list] | None, *,
                 fixed_seat: int | None = None, all_seats: bool = False, max_turns: int | None = None,
                 redeals: bool = False):
        self.game, self.enc = game, encoder
        self.seed, self.table, self.make_opponents = seed, table, make_opponents
        self.fixed_seat, self.all_seats, self.max_turns, self.redeals = fixed_seat, all_seats, max_turns, redeals
        self.episode = 0

    def start(self, deal_seed: int, seat: int) -> None:
        """Follow the table to its next episode, which the vector env dealt from `deal_seed` with the learner at
        `seat`."""
        g, n = self.game, self.game.num_players
        drawn = episode_seeds(self.seed, self.table, self.episode, n)[1]
        first = self.episode  # the episode index the table's line-up is drawn at (`pick_line_up`)
        while True:
            d, _, stream = episode_seeds(self.seed, self.table, self.episode, n)
            self.episode += 1
            if d == deal_seed:
                break
            assert self.redeals and self.episode < 10_000, (self.table, self.episode, d, deal_seed)
        self.deal_seed = deal_seed
        self.state = g.deal(deal_seed)
        self.turns = 0
        if self.all_seats:
            assert seat == g.current_player(self.state)
            self.seat = seat
            return
        assert seat == (drawn if self.fixed_seat is None else self.fixed_seat)
        self.seat = seat
        self.seated = [None] * n
        for k, agent in enumerate(self.make_opponents({"rng": stream, "table": self.table, "episode": first})):
            self.seated[(seat + k + 1) % n] = agent
        self.carry = self._advance(cut=False)  # the vector env never cuts the moves before the first decision
        assert not g.is_terminal(self.state)

    def _ret(self) -> float:
        return self.game.returns(self.state)[self.seat]

    def _apply(self, action: int) -> None:
        self.state = self.game.apply(self.state, int(action))
        self.turns += 1

    def _advance(self, cut: bool = True) -> float:
        before = self._ret()
        g = self.game
        while (not g.is_terminal(self.state) and g.current_player(self.state) != self.seat
               and not (cut and self.ended()[1])):
            cur = g.current_player(self.state)
            self._apply(self.seated[cur].act(g.view(self.state, cur), g.legal_mask(self.state)))
        return self._ret() - before

    def ended(self) -> tuple[bool, bool]:
        """(terminated, truncated) now."""
        g = self.game
        if g.is_terminal(self.state):
            cut = bool(getattr(g, "truncated", lambda s: False)(self.state))
            return not cut, cut
        return False, self.max_turns is not None and self.turns >= self.max_turns

    def obs(self) -> np.ndarray:
        """The encoded view of the seat the vector env observes for."""
        return self.enc.encode(self.game.view(self.state, self.seat))

    def step(self, action: int) -> tuple[float, tuple | None]:
        """Play the policy's `action`: (its reward, every seat's reward under `all_seats`)."""
        g = self.game
        if self.all_seats:
            before = g.returns(self.state)
            self._apply(action)
            rewards = tuple(a - b for a, b in zip(g.returns(self.state), before))
            mover = self.seat
            if not g.is_terminal(self.state):
                self.seat = g.current_player(self.state)
            return rewards[mover], rewards
        before = self._ret()
        self._apply(action)
        reward = self._ret() - before + self.carry
        self.carry = 0.0
        return reward + self._advance(), None


def replay(venv, game, encoder, seed: int, make_opponents: Callable[[dict], list] | None, steps: int,
           rng: np.random.Generator, *, fixed_seat: int | None = None, all_seats: bool = False,
           max_turns: int | None = None, redeals: bool = False, return_tol: float = 1e-4,
           inspect: Callable[[Any, int, Shadow], None] | None = None) -> int:
    """Step `venv` (reset with `seed`) with random legal actions for `steps` steps and check every table against
    its `Shadow` in the plain engine: observations, masks, rewards, ends, the final observation and info, the
    episode statistics; `inspect(venv, i, shadow)` adds the game's own comparison. Returns the episodes seen."""
    n_envs = venv.num_envs
    obs, info = venv.reset(seed=seed)
    shadows = [Shadow(game, encoder, seed, i, make_opponents, fixed_seat=fixed_seat, all_seats=all_seats,
                      max_turns=max_turns, redeals=redeals) for i in range(n_envs)]
    for i, sh in enumerate(shadows):
        sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
    returns = np.zeros(n_envs)
    lengths = np.zeros(n_envs, np.int64)
    episodes = 0
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.dtype == np.bool_ and masks.any(axis=1).all()
        assert np.array_equal(info["action_mask"], masks.astype(np.int8))
        if all_seats:
            assert np.array_equal(info["current_player"], [sh.seat for sh in shadows])
        for i, sh in enumerate(shadows):
            if inspect is not None:
                inspect(venv, i, sh)
            np.testing.assert_array_equal(obs[i], sh.obs())
            np.testing.assert_array_equal(info["action_mask"][i], game.legal_mask(sh.state))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = venv.step(acts)
        for i, sh in enumerate(shadows):
            mover = sh.seat
            r, rewards = sh.step(acts[i])
            assert np.float32(r) == rew[i], (i, r, rew[i])
            assert (term[i], trunc[i]) == sh.ended(), (i, term[i], trunc[i], sh.ended())
            if all_seats:
                np.testing.assert_array_equal(info["rewards"][i], np.float32(rewards))
                returns[i] += np.float32(rewards[0])
            else:
                returns[i] += np.float32(r)
            lengths[i] += 1
            if term[i] or trunc[i]:
                episodes += 1
                assert info["_final_obs"][i] and info["_tabletop_episode"][i]
                if all_seats:
                    assert info["final_info"]["current_player"][i] == mover
                    sh.seat = mover  # the final observation is the mover's
                np.testing.assert_array_equal(info["final_obs"][i], sh.obs())
                assert info["final_info"]["deal_seed"][i] == sh.deal_seed
                assert info["final_info"]["seat"][i] == (0 if all_seats else sh.seat)
                assert info["tabletop_episode"]["l"][i] == lengths[i]
                assert info["tabletop_episode"]["r"][i] == pytest.approx(returns[i], abs=return_tol)
                returns[i] = 0.0
                lengths[i] = 0
                sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
            else:
                assert "final_obs" not in info or info["final_obs"][i] is None
    return episodes


@dataclass(frozen=True)
class VectorCase:
    """One game's vector env as the shared checks build and replay it.

    Args:
        game: the game id (its engine and encoder from its `GameSpec`).
        lineup: kernel opponent ids for `options` (a random seat among them where the game allows).
        not_kernels: an agent id of the game with no kernel, refused naming the allowed ids...
        allowed: ...which the message lists from this start.
        num_actions: the size of the action space under `options`.
        options: the game's options for the contract's checks.
        heads: option sets the refusal checks run under each (an action head, where the game has several).
        refused: the game's own refusals: (line-up or None for `lineup`, options, what the message says).
        random_replays: option sets that `replay` plays against random seats: (tables, steps or steps(game), least
            episodes) each.
        sb3: (line-up, options, num_envs, n_steps, total steps) of the short MaskablePPO run, chosen so that
            episodes end inside it.
        redeals, return_tol, inspect: `replay`'s, for this game.
        forced_draws: whether the kernel's random seat draws for a forced action.
    """

    game: str
    lineup: list[str]
    not_kernels: str
    allowed: str
    num_actions: int
    options: dict = field(default_factory=dict)
    heads: tuple[dict, ...] = ({},)
    refused: tuple[tuple[list[str] | None, dict, str], ...] = ()
    random_replays: tuple[dict, ...] = ()
    replay_size: tuple[int, int | Callable[[Any], int], int] = (8, 200, 1)
    sb3: tuple[list[str], dict, int, int, int] = ((), {}, 16, 16, 512)
    redeals: bool = False
    return_tol: float = 1e-4
    inspect: Callable[[Any, int, Shadow], None] | None = None
    forced_draws: bool = True

    def make(self, num_envs: Any, seed: int | None = 0, lineup: list[str] | None = None, **kw):
        """`agents.vector_env` of this game: `lineup` (default the case's) and the case's options updated by
        `kw`."""
        return agents.vector_env(self.game, num_envs, opponents=self.lineup if lineup is None else lineup,
                                 seed=seed, **{**self.options, **kw})

    def engine(self, options: dict):
        """The game's plain engine under `options`."""
        spec = envs.spec(self.game)
        return spec.game_class(spec.config_class(**options))

    def replay(self, venv, game, seed: int, make_opponents: Callable[[dict], list] | None, steps: int,
               rng: np.random.Generator, **kw) -> int:
        """`replay` with this game's encoder and settings."""
        return replay(venv, game, envs.spec(self.game).encoder_class(game), seed, make_opponents, steps, rng,
                      redeals=self.redeals, return_tol=self.return_tol, inspect=self.inspect, **kw)

    def twin(self, game, who, shared: dict, python: dict | None = None):
        """The plain engine's player of a vector env's seat `who` (a line-up entry): the `PickTwin` of a batch
        policy (encoding its own seat's view), the `RandomMirror` of a random seat, `python[who]()` where given,
        else the agent of a kernel id (`agents.base.make` with a fresh generator)."""
        from agents.base import make
        from envs.core.vector import BatchPolicy

        if isinstance(who, BatchPolicy):
            return PickTwin(envs.spec(self.game).encoder_class(game))
        if who == "random":
            return RandomMirror(shared, self.forced_draws)
        if python is not None and who in python:
            return python[who]()
        return make(who, game, np.random.default_rng(0))

    def random_seats(self, n: int) -> Callable[[dict], list]:
        """The Python mirrors of `n` kernel random seats sharing a table's stream."""
        return lambda shared: [RandomMirror(shared, self.forced_draws) for _ in range(n)]


def check_batch_policy_replay(case: VectorCase, options: dict, line: list, *, tables: int, steps: int, least: int,
                              python: dict | None = None, choice_only: bool = False, **kw) -> None:
    """A line-up with `obs_pick` batch policies (`"pick"` in `line`) beside kernel opponents: every table replays in
    the plain engine with the policies' twins (`case.twin`, `python` its own players of kernel ids) in their seats,
    at least `least` episodes end, and a policy is asked once per turn over every table waiting on it (some call
    serves several tables), not once per table. `kw` (`max_turns`) goes to the env and the replay."""
    game = case.engine(options)
    calls: list[np.ndarray] = []
    pick = pick_policy(calls, choice_only=choice_only)
    line = [pick if who == "pick" else who for who in line]
    venv = agents.vector_env(case.game, tables, opponents=line, seed=4, **kw, **options)
    episodes = case.replay(venv, game, 4, lambda shared: [case.twin(game, who, shared, python) for who in line],
                           steps, np.random.default_rng(3), **kw)
    assert episodes >= least, episodes
    assert max(len(c) for c in calls) > 1


def check_pool_draws_per_table(case: VectorCase, options: dict, ups: list[list], *, steps: int, least: int,
                               python: dict | None = None) -> None:
    """A `Pool` of three line-ups (`"pick"`: an `obs_pick` batch policy) weighted 0.5, 0.3, 0.2: every table
    replays in the plain engine with the line-up its episode key draws (`pick_line_up`) at each episode, at least
    `least` episodes end and every line-up is drawn."""
    from envs.core.vector import Pool, pick_line_up, table_key

    game = case.engine(options)
    weights = [0.5, 0.3, 0.2]
    pick = pick_policy()
    ups = [[pick if who == "pick" else who for who in up] for up in ups]
    venv = agents.vector_env(case.game, 6, opponents=Pool(ups, weights=weights), seed=9, **options)
    cum = np.cumsum(weights)
    cum[-1] = 1.0
    seen = set()

    def line_up(shared):
        i = pick_line_up(cum, table_key(9, shared["table"]), shared["episode"])
        seen.add(i)
        return [case.twin(game, who, shared, python) for who in ups[i]]

    episodes = case.replay(venv, game, 9, line_up, steps, np.random.default_rng(5))
    assert episodes >= least, episodes
    assert seen == {0, 1, 2}, seen


def check_bad_batch_policies(game: str, options: dict, not_kernel: str, says: str, all_seats: bool = True) -> None:
    """Bad batch policies and pools refused alike in every game whose kernels pause at a batch policy's seat, each
    naming what is wrong. `options`: a two-seat game whose seat 0 (a batch policy's, the learner at seat 1) moves
    first at every table; `not_kernel`: an agent id of no compiled kernel, refused with a message matching `says`;
    `all_seats`: the game offers `control="all_seats"`, which takes no opponents."""
    from envs.core.vector import BatchPolicy, Pool

    def env(opponents, **kw):
        return agents.vector_env(game, 3, opponents=opponents, seed=2, **{**options, **kw})

    def returns(name: str, acts: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> BatchPolicy:
        return BatchPolicy(lambda obs, mask, rows, rng: acts(mask, rows), name)

    # the first action the mask forbids; out of range where every action is legal
    venv = env([returns("bad", lambda mask, rows: np.where(mask.all(axis=1), mask.shape[1], mask.argmin(axis=1)))],
               seat=1)
    with pytest.raises(IllegalActionError, match=r"illegal action \d+ for seat 0 .*by batch policy 'bad' at table 0;") \
            as e:
        venv.reset()
    assert e.value.seat == 0 and e.value.legal and e.value.action not in e.value.legal
    with pytest.raises(RuntimeError, match="call reset"):  # the tables wait on the failed policy
        venv.step(np.zeros(3, np.int64))
    for name, acts in (("shape", lambda mask, rows: np.zeros(len(rows) + 1, np.int64)),
                       ("float", lambda mask, rows: mask.argmax(axis=1).astype(np.float64))):
        with pytest.raises(ValueError, match=f"batch policy '{name}' must return 3 integer actions"):
            env([returns(name, acts)], seat=1).reset()
    with pytest.raises(ValueError, match="callable"):
        env([BatchPolicy(3, "x")])
    with pytest.raises(ValueError, match="needs 2 weights"):
        Pool([["random"], ["random"]], weights=[1])
    for w in ([-1, 2], [0, 0], [np.nan, 1]):
        with pytest.raises(ValueError, match="non-negative"):
            Pool([["random"], ["random"]], weights=w)
    with pytest.raises(ValueError, match=says):
        env(Pool([["random"], [not_kernel]]))
    with pytest.raises(ValueError, match="line-up 1: the game needs 1 opponents, got 2"):
        env(Pool([["random"], ["random", "random"]]))
    venv = env(["random"])
    with pytest.raises(ValueError, match="needs 1 opponents"):
        venv.set_opponents([pick_policy(), pick_policy()])
    if all_seats:
        with pytest.raises(ValueError, match="all_seats"):
            env(Pool([[]]), control="all_seats")
        solo = env([], control="all_seats")
        with pytest.raises(ValueError, match="all_seats"):
            solo.set_opponents(["random"])


def _lowest_legal(masks: np.ndarray) -> np.ndarray:
    return masks.argmax(axis=1)


def _highest_legal(masks: np.ndarray) -> np.ndarray:
    return masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)


class VectorContract:
    """The checks every game's vector env must pass (pytest collects them from each game's `TestVectorContract`
    subclass, which sets `case`)."""

    case: VectorCase

    def test_tables_do_not_depend_on_num_envs(self):
        """A table's episodes depend on (seed, table) only: not on how many tables run beside it nor on what
        they do (the other tables alternate refused and legal actions); another seed deals other episodes."""
        c = self.case
        small, big = c.make(2, seed=9), c.make(7, seed=9)
        o1, i1 = small.reset()
        o2, i2 = big.reset()
        assert np.array_equal(i1["deal_seed"], i2["deal_seed"][:2])
        for step in range(300):
            np.testing.assert_array_equal(o1, o2[:2])
            a2 = _lowest_legal(big.action_masks())
            a2[2:] = big.single_action_space.n if step % 2 else _highest_legal(big.action_masks())[2:]
            o1, r1, t1, u1, i1 = small.step(a2[:2])
            o2, r2, t2, u2, i2 = big.step(a2)
            np.testing.assert_array_equal(r1, r2[:2])
            np.testing.assert_array_equal(t1, t2[:2])
            np.testing.assert_array_equal(u1, u2[:2])
            np.testing.assert_array_equal(i1["deal_seed"], i2["deal_seed"][:2])
            np.testing.assert_array_equal(i1["seat"], i2["seat"][:2])
        other = c.make(2, seed=10)
        assert not np.array_equal(other.reset()[1]["deal_seed"], i1["deal_seed"])

    def test_reset_with_seed_restarts_and_without_continues(self):
        env = self.case.make(3, seed=4)
        _, a = env.reset()
        _, b = env.reset()
        _, c = env.reset(seed=4)
        assert np.array_equal(a["deal_seed"], c["deal_seed"]) and not np.array_equal(a["deal_seed"], b["deal_seed"])
        n = env.num_players
        assert [a["deal_seed"][i] for i in range(3)] == [episode_seeds(4, i, 0, n)[0] for i in range(3)]

    def test_illegal_action_ends_only_that_tables_episode(self):
        """A refused action (not legal, out of range, not an integer) ends that table's episode with
        `illegal_reward` and says so in the info; the other tables play on as a twin env's."""
        for head in self.case.heads:
            env, twin = self.case.make(4, seed=1, illegal_reward=-3.0, **head), self.case.make(4, seed=1, **head)
            env.reset()
            twin.reset()
            others = [0, 2, 3]
            bad_steps = {10: "first", 30: "last", 40: -1, 41: env.single_action_space.n, 42: 10**6}
            refused = 0
            for step in range(60):
                acts = _lowest_legal(env.action_masks())
                twin_acts = acts.copy()
                twin_acts[1] = _lowest_legal(twin.action_masks())[1]
                bad = bad_steps.get(step)
                if bad in ("first", "last"):
                    acts[1] = np.flatnonzero(~env.action_masks()[1])[0 if bad == "first" else -1]
                elif bad is not None:
                    acts[1] = bad
                o, r, t, _, info = env.step(acts)
                o2, r2, t2, _, _ = twin.step(twin_acts)
                if bad is not None:
                    refused += 1
                    assert r[1] == -3.0 and t[1] and info["illegal_action"][1] == acts[1] and info["_illegal_action"][1]
                    assert not info["_illegal_action"][others].any()
                np.testing.assert_array_equal(o[others], o2[others])
                np.testing.assert_array_equal(r[others], r2[others])
                np.testing.assert_array_equal(t[others], t2[others])
            assert refused == len(bad_steps)
            # a non-integer action array: every table's action is refused
            o, r, t, _, info = env.step(_lowest_legal(env.action_masks()).astype(np.float64))
            assert t.all() and (r == -3.0).all() and (info["illegal_action"] == -1).all()

    @pytest.mark.parametrize("table", [2, 3])
    def test_strict_raises_naming_table_seat_and_legal_actions_and_changes_nothing(self, table):
        for head in self.case.heads:
            env, twin = self.case.make(4, seed=1, strict=True, **head), self.case.make(4, seed=1, **head)
            _, info = env.reset()
            twin.reset()
            acts = _lowest_legal(env.action_masks())
            bad = acts.copy()
            bad[table] = np.flatnonzero(~env.action_masks()[table])[-1]
            with pytest.raises(IllegalActionError) as e:
                env.step(bad)
            assert f"table {table}" in str(e.value) and e.value.seat == info["seat"][table]
            assert list(e.value.legal) == np.flatnonzero(env.action_masks()[table]).tolist()
            o, r, *_ = env.step(acts)
            o2, r2, *_ = twin.step(acts)
            np.testing.assert_array_equal(o, o2)
            np.testing.assert_array_equal(r, r2)

    def test_bad_arguments(self):
        """Misuse every game's vector env refuses alike, each with a `ValueError` (or `RuntimeError`) that says
        what is wrong."""
        c = self.case
        env = c.make(4)
        with pytest.raises(RuntimeError, match="reset"):
            env.step(np.zeros(4, np.int64))
        env.reset()
        for shape in (3, (2, 2)):
            with pytest.raises(ValueError, match=r"shape \(4,\)"):
                env.step(np.zeros(shape, np.int64))
        for bad in (0, -1, 2.5):
            with pytest.raises(ValueError, match="num_envs"):
                c.make(bad)
        with pytest.raises(ValueError, match="tables"):
            c.make(10**12)
        with pytest.raises(ValueError, match=f"allowed: {c.allowed}") as e:
            c.make(2, lineup=[c.not_kernels] + c.lineup[1:])
        assert "\n" not in str(e.value)
        k = len(c.lineup)
        for wrong in (c.lineup[:-1], c.lineup + c.lineup[:1]):
            with pytest.raises(ValueError, match=f"needs {k} opponent"):
                c.make(2, lineup=wrong)
        with pytest.raises(ValueError, match="allowed options"):
            c.make(2, colour="red")
        with pytest.raises(ValueError, match="games are:"):
            agents.vector_env("chess", 2, opponents=["random"])
        with pytest.raises(ValueError, match="seat"):
            c.make(2, seat=env.num_players)
        with pytest.raises(ValueError, match="control must be"):
            c.make(2, control="both")
        with pytest.raises(ValueError, match="max_turns"):
            c.make(2, max_turns=0)
        for lineup, options, says in c.refused:
            with pytest.raises(ValueError, match=says):
                c.make(2, lineup=lineup, **options)

    def test_random_opponents_replay_in_the_plain_engine(self):
        """Random-legal learner against random kernel seats, every table replayed in the plain engine, over the
        game's option sets."""
        c = self.case
        tables, steps, least = c.replay_size
        assert c.random_replays, "a game's case names the option sets it replays"
        for opts in c.random_replays:
            game = c.engine(opts)
            n = game.num_players
            venv = agents.vector_env(c.game, tables, opponents=["random"] * (n - 1), seed=11, **opts)
            episodes = c.replay(venv, game, 11, c.random_seats(n - 1), steps(game) if callable(steps) else steps,
                                np.random.default_rng(0))
            assert episodes >= least, (opts, episodes)

    def test_gymnasium_contract_and_copy_flag(self):
        from gymnasium.vector import AutoresetMode

        env = self.case.make(5, copy=False)
        assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        assert env.single_action_space.n == self.case.num_actions and env.action_space.shape == (5,)
        assert env.observation_space.shape == (5, *env.single_observation_space.shape)
        obs, info = env.reset()
        assert obs.dtype == np.float32 and env.observation_space.contains(obs)
        assert info["action_mask"].dtype == np.int8
        acts = np.array([env.single_action_space.sample(mask=info["action_mask"][i]) for i in range(5)])
        obs2, *_ = env.step(acts)
        assert obs2 is obs  # copy=False hands out the env's own buffer
        fresh = self.case.make(5)
        o1, _ = fresh.reset()
        kept = o1.copy()
        o2, *_ = fresh.step(_lowest_legal(fresh.action_masks()))
        assert o1 is not o2 and not np.shares_memory(o1, o2) and not np.array_equal(o1, o2)
        np.testing.assert_array_equal(o1, kept)  # copy=True: what reset handed out is the caller's

    def test_maskable_ppo_on_to_sb3(self):
        """MaskablePPO trains on `to_sb3` of the env, its masks never empty nor all-legal; the one-array answer to
        `env_method("action_masks")` trains exactly as the N-row answer."""
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import VecEnv

        from envs.core import to_sb3

        lineup, options, num_envs, n_steps, total = self.case.sb3
        params = []
        for stacked in (True, False):
            venv = to_sb3(agents.vector_env(self.case.game, num_envs, opponents=list(lineup), seed=0, **options),
                          stacked_masks=stacked)
            assert isinstance(venv, VecEnv)
            model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=128, n_epochs=1, seed=0, device="cpu",
                                policy_kwargs={"net_arch": [32]})
            model.learn(total)
            assert len(model.ep_info_buffer) > 0
            masks = model.rollout_buffer.action_masks.reshape(n_steps * num_envs, -1)
            assert masks.any(axis=1).all() and not masks.all(axis=1).any()
            params.append(torch.nn.utils.parameters_to_vector(model.policy.parameters()).detach().clone())
        assert torch.equal(params[0], params[1])
