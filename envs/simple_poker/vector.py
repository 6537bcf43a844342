"""Simple poker as a batched environment: `num_envs` hands, one learner seat each (or, with
`control="all_seats"`, one policy for both seats), stepped in one numpy call.

Built on `envs.core.vector.CompiledVectorEnv` and `envs.simple_poker.fast`. Observations and rewards are
`OpponentEnv`'s; every hand ends after the learner's one decision, so every step autoresets every table. A hand where
the learner sits second and the opponent passes first is dealt again (the learner keeping its seat), as
`OpponentEnv` does. Opponents: `OpponentKernel`s of code -1 (`RANDOM`: pass or bet, 1/2 each) or code 1 with
`params` = player 1's bet then player 2's call probabilities per card (2n floats; a mixed choice bets when `u < p`,
u = (draw >> 11) / 2**53 from the table's stream), `BatchPolicy`s, or a `Pool` of line-ups.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.options import make_config
from envs.core.vector import (
    BATCH_CODE,
    RANDOM,
    CompiledVectorEnv,
    check_control,
    compile_line_ups,
    np_episode_seeds,
    np_next,
    np_pick_line_up,
)
from envs.simple_poker import fast
from envs.simple_poker.encoding import SimplePokerEncoder
from envs.simple_poker.rules import BET, NUM_ACTIONS, PASS, Config, SimplePokerGame, State

BEHAVIOUR = 1  # the code of a behaviour-strategy opponent


class SimplePokerVectorEnv(CompiledVectorEnv):
    """`num_envs` simple-poker hands against one opponent (see the module docstring and `envs.core.vector`)."""

    def __init__(self, num_envs: int, *, opponents: Any = (), seed: int | None = None,
                 control: str = "one_seat", seat: int | None = None, strict: bool = False, copy: bool = True,
                 illegal_reward: float = -1.0, **options: Any):
        self.config: Config = make_config(Config, options)
        self.game = SimplePokerGame(self.config)
        n = self.config.n
        check_control(control)
        if control == "all_seats":
            self._no_opponents(opponents, seat)
            opponents = [RANDOM]  # never asked: no seat is left to an opponent
        ups = self._compile_opponents(opponents)
        self._setup(num_envs, SimplePokerEncoder(self.game).observation_space, NUM_ACTIONS, 2, seed=seed, seat=seat,
                    strict=strict, copy=copy, illegal_reward=illegal_reward, control=control)
        N = self.num_envs
        self._code = np.full(N, RANDOM.code, np.int64)  # the opponent seated at each table's hand, and its strategy
        self._probs = np.zeros((N, 2 * n))
        self._install(ups)
        self._c1 = np.zeros(N, np.int64)
        self._c2 = np.zeros(N, np.int64)
        self._learner = np.zeros(N, np.int64)
        self._deal = np.zeros(N, np.uint64)
        self._episode = np.zeros(N, np.int64)
        self._rng = np.zeros(N, np.uint64)
        self._opening = np.zeros(N, np.int64)  # player 1's action when the learner sits second
        self._mask[:] = 1  # both actions are legal at every decision of this game

    def _compile_opponents(self, opponents: Any):
        """The opponents checked and laid out (`compile_line_ups`): random, behaviour strategies, batch policies."""
        n = self.config.n
        ups = compile_line_ups(opponents, 1, 2 * n, compiled=False)
        for up in ups.line_ups:
            opp = up[0]
            code = getattr(opp, "code", None)
            if code is not None and code not in (RANDOM.code, BEHAVIOUR):
                raise ValueError(f"the opponent must be an OpponentKernel of code -1 (random) or {BEHAVIOUR} "
                                 f"(behaviour strategy), or a BatchPolicy, got {opp!r}")
            if code == BEHAVIOUR and len(opp.params) != 2 * n:
                raise ValueError(f"opponent {opp.name!r}: a behaviour strategy needs 2n = {2 * n} probabilities, "
                                 f"got {len(opp.params)}")
        return ups

    def _install(self, ups) -> None:
        self._seat_line_ups(ups)

    def _seated_codes(self) -> np.ndarray:
        return self._code

    def _seat_line_up(self, rows: np.ndarray) -> None:
        """Seat a line-up at the tables `rows` (drawn from their episode keys; their episode counters not yet
        advanced): its opponent's code and strategy stay with the table for the hand."""
        ups = self._line_ups
        li = np_pick_line_up(ups.cum, self._keys[rows], self._episode[rows])
        self._code[rows] = ups.codes[li, 0]
        self._probs[rows] = np.where(ups.codes[li, 0:1] == BEHAVIOUR, ups.params[li, 0], 0.5)

    def _choose(self, rows: np.ndarray, bet_seen: bool) -> np.ndarray:
        """The opponent's action at `rows`: its opening (`bet_seen` False: it is player 1) or its answer to the
        learner's bet. A behaviour strategy bets/calls with its probability, random plays the k-th legal action
        (k = draw mod 2), a batch policy is asked for all its tables at once (every table draws from its stream)."""
        n = self.config.n
        z = np_next(self._rng, rows)
        code = self._code[rows]
        cards = self._c2[rows] if bet_seen else self._c1[rows]
        p = self._probs[rows, (n if bet_seen else 0) + cards - 1]
        u = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53
        out = np.where(code == RANDOM.code, (z % np.uint64(2)).astype(np.int64), np.where(u < p, BET, PASS))
        for j, policy in enumerate(self._batch):
            sel = code == BATCH_CODE - j
            if policy is None or not sel.any():
                continue
            r = rows[sel]
            obs = np.zeros((r.size, self._obs.shape[1]), np.float32)
            seat = np.full(r.size, 1 if bet_seen else 0, np.int64)
            fast.observe(cards[sel], seat, np.full(r.size, bet_seen), n, obs)
            self._paused_by_error = True  # until it answers: the hand is half played, `step` refuses until `reset`
            out[sel] = self._ask(policy, obs, np.ones((r.size, NUM_ACTIONS), np.bool_), r, seat)
            self._paused_by_error = False
        return out

    def _start(self, rows: np.ndarray) -> None:
        """Deal the tables `rows` their next hands and play the opponent's opening where it sits first."""
        n = self.config.n
        first = True
        while rows.size:
            deal, seat, stream = np_episode_seeds(self._keys[rows], self._episode[rows], 2)
            if first:
                self._seat_line_up(rows)  # a hand dealt again keeps its opponent
            self._episode[rows] += 1
            if self.fixed_seat >= 0:
                seat[:] = self.fixed_seat
            if not first:
                seat = self._learner[rows]  # a hand dealt again keeps the learner's seat (as `OpponentEnv`)
            first = False
            self._deal[rows], self._learner[rows], self._rng[rows] = deal, seat, stream
            self._c1[rows], self._c2[rows] = fast.deal_cards(deal, n)
            second = rows[seat == 1]
            self._opening[second] = self._choose(second, False)
            rows = second[self._opening[second] == PASS]  # over before the learner decides: deal again

    def _observe(self, out: np.ndarray) -> None:
        cards = np.where(self._learner == 0, self._c1, self._c2)
        fast.observe(cards, self._learner, self._learner == 1, self.config.n, out)

    def _start_all(self, fresh: bool) -> None:
        if fresh:
            self._episode[:] = 0
        if self.control == "all_seats":
            self._deal_all(np.arange(self.num_envs))
            return
        self._start(np.arange(self.num_envs))
        self._observe(self._obs)

    # --- control="all_seats": one policy for both seats ---------------------------------------------------
    def _deal_all(self, rows: np.ndarray) -> None:
        """All seats: deal the tables `rows` their next hands, player 1 to move, and observe it."""
        deal, _, _ = np_episode_seeds(self._keys[rows], self._episode[rows], 2)
        self._episode[rows] += 1
        self._deal[rows] = deal
        self._c1[rows], self._c2[rows] = fast.deal_cards(deal, self.config.n)
        self._player[rows] = 0
        obs = np.zeros((rows.size, self._obs.shape[1]), np.float32)
        fast.observe(self._c1[rows], self._player[rows], np.zeros(rows.size, np.bool_), self.config.n, obs)
        self._obs[rows] = obs

    def _step_all_seats(self, actions: np.ndarray) -> None:
        """All seats: the seat to move at each table plays `actions`; a bet by player 1 hands the table to
        player 2 (its view shows the bet), every other move ends the hand, which is dealt anew at once."""
        n, ante, bet = self.config.n, float(self.config.ante), float(self.config.bet)
        actor = self._player.copy()
        refused = (actions != PASS) & (actions != BET)
        ends = refused | (actor == 1) | (actions == PASS)
        first = np.where(actor == 0, actions, BET)
        second = np.where(actor == 1, actions, PASS)
        p1 = fast.payoff(self._c1, self._c2, first, second, ante, bet)
        rewards = np.where(ends[:, None], np.stack([p1, -p1], axis=1), 0.0)
        rewards[refused] = 0.0
        rewards[refused, actor[refused]] = self.illegal_reward
        self._seat_rewards[:] = rewards
        rows = np.arange(self.num_envs)
        self._reward[:] = rewards[rows, actor]
        self._term[:] = ends
        self._trunc[:] = False
        self._done[:] = ends
        self._refused[:] = refused
        self._illegal[:] = np.where(refused, actions, -1)
        cards = np.where(actor == 0, self._c1, self._c2)
        fast.observe(cards, actor, (actor == 1) | ((actions == BET) & ~refused), n, self._final_obs)
        self._final_player[:] = actor
        self._final_seat[:] = actor
        self._final_deal[:] = self._deal
        self._final_ret[:] = rewards[:, 0]  # seat 0's return (the hand's only reward comes at its end)
        self._final_len[:] = actor + 1
        self._obs[:] = 0.0
        on = np.flatnonzero(~ends)  # player 1 bet: player 2 answers, seeing the bet
        self._player[on] = 1
        obs = np.zeros((on.size, self._obs.shape[1]), np.float32)
        fast.observe(self._c2[on], self._player[on], np.ones(on.size, np.bool_), n, obs)
        self._obs[on] = obs
        self._deal_all(np.flatnonzero(ends))
        self._mask[:] = 1

    def _step_kernel(self, actions: np.ndarray) -> None:
        if self.control == "all_seats":
            self._step_all_seats(actions)
            return
        n, ante, bet = self.config.n, float(self.config.ante), float(self.config.bet)
        refused = (actions != PASS) & (actions != BET)
        first = np.where(self._learner == 0, actions, BET)
        second = np.where(self._learner == 1, actions, PASS)
        answer = np.flatnonzero((self._learner == 0) & (actions == BET))
        second[answer] = self._choose(answer, True)
        p1 = fast.payoff(self._c1, self._c2, first, second, ante, bet)
        reward = np.where(self._learner == 0, p1, -p1)
        reward[refused] = self.illegal_reward
        self._reward[:] = reward
        self._term[:] = True
        self._trunc[:] = False
        self._done[:] = True
        self._refused[:] = refused
        self._illegal[:] = np.where(refused, actions, -1)
        # the final view: player 1's bet is seen once made (a refused action changes nothing)
        cards = np.where(self._learner == 0, self._c1, self._c2)
        fast.observe(cards, self._learner, (first == BET) & ~refused | (self._learner == 1), n, self._final_obs)
        self._final_seat[:] = self._learner
        self._final_deal[:] = self._deal
        self._final_ret[:] = reward
        self._final_len[:] = 1
        self._start(np.arange(self.num_envs))
        self._observe(self._obs)
        self._mask[:] = 1  # rewritten every step, like every game's mask (a caller may hold a view of it)

    def render(self, row: int = 0) -> str:
        """Text picture of table `row`'s hand (the plain engine's `render` of its position)."""
        history: tuple[int, ...] = ()
        if self.control == "all_seats":
            history = (BET,) if self._player[row] == 1 else ()
        elif self._learner[row] == 1:
            history = (int(self._opening[row]),)
        return self.game.render(State((int(self._c1[row]), int(self._c2[row])), history))

    def _seats(self) -> np.ndarray:
        return self._player if self.control == "all_seats" else self._learner

    def _deal_seeds(self) -> np.ndarray:
        return self._deal


def vector_env(num_envs: int, **kwargs: Any) -> SimplePokerVectorEnv:
    """`num_envs` simple-poker hands against a compiled opponent, as a Gymnasium `VectorEnv`:
    `SimplePokerVectorEnv`'s arguments (opponents, seed, control, seat, strict, copy, game options)."""
    return SimplePokerVectorEnv(num_envs, **kwargs)
