"""RoboRally's vector env in program mode (`action_mode="program"`): one decision per robot per turn over its
hand's reduced programs, numbered by rank (`envs.roborally.programs.rank`).

Differential tests: the mask and programs equal the rules engine's program mode (`RoboRallyGame.seat_mask`) on
every program of random hands and damage; each program's features equal the lone robot's run by `solo_kernel`
and by `turn_kernel` on a one-robot table; a program played in program mode equals its five registers played in
register mode (same deals, same states, same rewards).
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.vector import RANDOM
from envs.roborally import fast
from envs.roborally.cards import NUM_CARDS
from envs.roborally.programs import equivalence_classes, program_cards, unrank
from envs.roborally.rules import (
    HAND,
    NUM_PROGRAMS,
    PROGRAM_INDEX,
    PROGRAM_NOOP,
    PROGRAM_POWER_DOWN,
    REGISTERS,
    Config,
    RoboRallyGame,
    locked_count,
)
from envs.roborally.vector import vector_env

FEAT = {name: i for i, name in enumerate(fast.PROGRAM_FEATURES)}


def _random_tables(env, rng: np.random.Generator) -> None:
    """Overwrite every table's learner with a random hand, damage and power state (the turn's start: nothing
    placed, the locked registers holding cards)."""
    T = env._tables
    n = env.num_players
    b = env.game.board
    for r in range(env.num_envs):
        L = int(T.learner[r])
        T.step[r] = L
        deck = rng.permutation(np.arange(1, NUM_CARDS + 1))
        dmg = int(rng.integers(0, 9))
        R = T.R[r, L]
        R[fast.RDMG] = dmg
        R[fast.RON] = 1
        R[fast.RPD] = 0
        R[fast.RANN] = int(rng.random() < 0.3)
        free = np.argwhere(b.floor != fast.PIT)
        sy, sx = (int(v) for v in free[rng.integers(len(free))])
        R[fast.RX], R[fast.RY], R[fast.RF] = sx, sy, int(rng.integers(4))
        R[fast.RNF] = int(rng.integers(len(b.flags)))
        nl = locked_count(dmg)
        T.regs[r, L, :] = 0
        T.regs[r, L, REGISTERS - nl:] = deck[:nl]
        hl = HAND - dmg
        T.hands[r, L, :] = 0
        T.hands[r, L, :hl] = np.sort(deck[nl:nl + hl])
        T.hand_len[r, L] = hl
        T.used[r, L] = 0
        fast.hand_classes(T.hands[r, L], hl, env.engine.kinds, T.cls[r, L])
        assert 0 <= L < n


def _rules_state(env, game: RoboRallyGame, row: int):
    """The rules engine's state of table `row`'s learner decision (its robots, registers and hand)."""
    T = env._tables
    L = int(T.learner[row])
    state = game.setup(list(env.robots(row)), registers=T.regs[row].tolist())
    hands = list(state.hands)
    hands[L] = tuple(int(c) for c in T.hands[row, L, :T.hand_len[row, L]])
    return state._replace(hands=tuple(hands), step=L), L


def _rules_action(hand: tuple[int, ...], cards: np.ndarray, k: int) -> int:
    """The rules engine's program-mode action (`PROGRAM_TUPLES` index) of a program's cards."""
    slots = [hand.index(int(c)) for c in cards[:k]]
    rest = [s for s in range(HAND) if s not in slots]
    return PROGRAM_INDEX[tuple(slots + rest[:REGISTERS - k])]


@pytest.mark.parametrize("card_classes,tables", [(True, 40), (False, 3)])
def test_program_mask_and_programs_equal_the_rules_engine(card_classes, tables):
    options = dict(board="race_easy", num_robots=2, action_mode="program", card_classes=card_classes)
    env = vector_env(tables, opponents=[RANDOM], seed=5, **options)
    game = RoboRallyGame(Config(**options))
    env.reset()
    _random_tables(env, np.random.default_rng(11 + card_classes))
    rows = np.arange(tables)
    mask = np.zeros((tables, env.num_actions), np.int8)
    fast.mask_rows(env._tables, rows, env._tables.learner, env._settings, mask)
    cards, feats, counts = env.program_table()
    powered = 0
    for r in rows:
        state, L = _rules_state(env, game, r)
        hand = state.hands[L]
        k = min(REGISTERS - locked_count(state.robots[L].damage), len(hand))
        classes = equivalence_classes(hand, game.numbering, card_classes)
        mults = [len(c) for c in classes]
        legal = np.flatnonzero(mask[r])
        want = set(game._legal(state, L))
        assert set(np.flatnonzero(game.seat_mask(state, L))) == want
        c = int(counts[r])
        assert c == int((legal < NUM_PROGRAMS).sum())
        assert (legal[legal < NUM_PROGRAMS] == np.arange(c)).all()
        got = set()
        for p in range(c):
            assert tuple(cards[r, p, :k]) == program_cards(classes, unrank(mults, k, p))  # the seed's numbering
            assert (cards[r, p, k:] == 0).all()
            got.add(_rules_action(hand, cards[r, p], k))
        power = bool((legal >= NUM_PROGRAMS).any())
        powered += power
        if power:
            assert (legal[legal >= NUM_PROGRAMS] == NUM_PROGRAMS + np.arange(c)).all()
            got |= {a + NUM_PROGRAMS for a in got}
        assert got == want, f"table {r}"
        for a in legal[:: max(1, len(legal) // 20)]:  # the single-action check agrees with the mask
            assert fast.program_legal(env._tables, r, env._settings, L, a)
        for a in (c, NUM_PROGRAMS + c, PROGRAM_NOOP, PROGRAM_POWER_DOWN, -1, env.num_actions):
            if a not in legal:
                assert not fast.program_legal(env._tables, r, env._settings, L, a)
    assert 0 < powered < tables or tables < 5


def test_no_cards_gives_noop_and_the_power_choice():
    env = vector_env(2, opponents=[RANDOM], seed=3, action_mode="program")
    env.reset()
    T = env._tables
    for r, pd in ((0, 1), (1, 0)):
        L = int(T.learner[r])
        T.hand_len[r, L] = 0
        T.R[r, L, fast.RPD] = pd
        T.R[r, L, fast.RDMG] = 0
    mask = np.zeros((2, env.num_actions), np.int8)
    fast.mask_rows(T, np.arange(2), T.learner, env._settings, mask)
    assert np.flatnonzero(mask[0]).tolist() == [PROGRAM_NOOP, PROGRAM_POWER_DOWN]  # powered down: may stay down
    assert np.flatnonzero(mask[1]).tolist() == [PROGRAM_NOOP]
    assert env.program_counts().tolist() == [0, 0]


def _one_robot_turn(bd, R0, cards):
    """The trace of `turn_kernel` with robot `R0` alone running `cards` (5 registers)."""
    R = R0.reshape(1, -1).copy()
    regs = np.asarray(cards, np.int32).reshape(1, REGISTERS).copy()
    trace = np.zeros((REGISTERS, 1, fast.NFIELDS), np.int32)
    meta = np.array([-1, 0, 0], np.int32)
    done = fast.turn_kernel(bd, R, regs, np.zeros(NUM_CARDS, np.int32), meta, trace)
    return trace, done


@pytest.mark.parametrize("board", ["race_easy", "race_hard"])
def test_program_features_equal_the_lone_robot_runs(board):
    env = vector_env(12, opponents=[RANDOM], seed=7, board=board, action_mode="program", crushers=True)
    env.reset()
    _random_tables(env, np.random.default_rng(3))
    T = env._tables
    bd = env.engine.board
    W, H = bd[0], bd[1]
    nflags = bd[9]
    lmap = fast.solo_laser_map(bd)
    cards, feats, counts = env.program_table()
    rng = np.random.default_rng(0)
    checked_turn = 0
    for r in range(env.num_envs):
        L = int(T.learner[r])
        R0 = T.R[r, L].copy()
        x0, y0, f0, nf0 = (int(R0[c]) for c in (fast.RX, fast.RY, fast.RF, fast.RNF))
        k = min(REGISTERS - locked_count(int(R0[fast.RDMG])), int(T.hand_len[r, L]))
        for p in range(int(counts[r])):
            prog = cards[r, p].astype(np.int64)
            prog[k:] = T.regs[r, L, k:]
            x, y, f, nf, alive = fast.solo_kernel(bd, x0, y0, f0, nf0, prog, True)
            ft = feats[r, p]
            assert ft[FEAT["alive"]] == alive
            assert ft[FEAT["flags"]] == nf - nf0
            assert ft[FEAT["finished"]] == (nf >= nflags)
            assert ft[FEAT["facing_n"] + f] == 1 and ft[FEAT["facing_n"]:FEAT["facing_w"] + 1].sum() == 1
            if 0 <= x < W and 0 <= y < H:
                assert ft[FEAT["x"]] == np.float32(x / (W - 1)) and ft[FEAT["y"]] == np.float32(y / (H - 1))
            if alive and nf < nflags:
                assert ft[FEAT["distance"]] == np.float32(bd[15][nf, y, x] / (W + H))
                assert ft[FEAT["turns"]] == np.float32(env._turns[nf, y, x, f])
            if not alive:
                assert ft[FEAT["fell"]] == (not (0 <= x < W and 0 <= y < H) or bd[2][y, x] == fast.PIT)
            # The same program on a one-robot table of the full turn (lasers included) for a sample of programs.
            if rng.random() < 0.05 and not (ft[FEAT["damage"]] + R0[fast.RDMG] >= 10):
                trace, done = _one_robot_turn(bd, R0, prog)
                last = trace[done - 1, 0]
                assert bool(last[fast.RON]) == alive
                assert last[fast.RNF] == nf
                if alive:
                    assert (last[fast.RX], last[fast.RY], last[fast.RF]) == (x, y, f)
                    assert last[fast.RDMG] - R0[fast.RDMG] == ft[FEAT["damage"]]
                checked_turn += 1
        assert (feats[r, int(counts[r]):] == 0).all()
    assert checked_turn > 20
    assert lmap.sum() > 0 or not env.game.board.lasers


def test_walls_and_falls_are_counted():
    """A robot facing a wall with a move card meets it; a robot stepping into a pit falls."""
    env = vector_env(1, opponents=[RANDOM], seed=2, board="race_easy", action_mode="program")
    bd = env.engine.board
    walls, floor, kinds = bd[5], bd[2], bd[14]
    move1 = next(c for c in range(1, NUM_CARDS + 1) if kinds[c] == 4)  # Move 1
    ys, xs = np.nonzero(walls)
    y, x = int(ys[0]), int(xs[0])
    d = int(np.flatnonzero([(walls[y, x] >> q) & 1 for q in range(4)])[0])
    assert fast.solo_phase(bd, x, y, d, 0, move1, 0, True)[5] == 1
    pits = np.argwhere(floor == fast.PIT)
    if len(pits):
        py, px = (int(v) for v in pits[0])
        for q, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
            sx, sy = px - dx, py - dy
            if 0 <= sx < bd[0] and 0 <= sy < bd[1] and not (walls[sy, sx] >> q) & 1 and floor[sy, sx] != fast.PIT:
                assert fast.solo_phase(bd, sx, sy, q, 0, move1, 0, True)[4] is False
                break


def _register_actions(env_p, cards, actions):
    """Per table, the register-mode sub-steps (slots, NOOP, the power choice) of program-mode `actions`."""
    T = env_p._tables
    out = []
    for r, a in enumerate(actions):
        L = int(T.learner[r])
        hand = T.hands[r, L, :T.hand_len[r, L]].tolist()
        power = a == PROGRAM_POWER_DOWN or NUM_PROGRAMS <= a < PROGRAM_NOOP
        steps = [HAND] * REGISTERS
        if a < PROGRAM_NOOP:
            for j, c in enumerate(cards[r, a % NUM_PROGRAMS]):
                if c:
                    steps[j] = hand.index(int(c))
        if env_p._settings.rounds > REGISTERS:
            steps.append(HAND + 1 if power else HAND)
        out.append(steps)
    return np.array(out, np.int64)


@pytest.mark.parametrize("opponents,num_robots", [(["random"], 2), (["roborally/greedy", "random", "random"], 4)])
def test_a_program_equals_its_registers_in_register_mode(opponents, num_robots):
    from agents.vector import vector_env as agents_vector_env

    opts = dict(num_robots=num_robots, board="race_easy", reward="progress", max_turns=12, seed=21)
    env_p = agents_vector_env("roborally", 6, opponents=opponents, action_mode="program", **opts)
    env_r = agents_vector_env("roborally", 6, opponents=opponents, **opts)
    obs_p, info_p = env_p.reset()
    obs_r, info_r = env_r.reset()
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(40):
        assert np.array_equal(obs_p, obs_r)
        assert np.array_equal(info_p["deal_seed"], info_r["deal_seed"])
        assert np.array_equal(info_p["seat"], info_r["seat"])
        for name in ("R", "regs", "deck", "meta", "hands", "hand_len", "step"):
            assert np.array_equal(getattr(env_p._tables, name), getattr(env_r._tables, name)), name
        mask = env_p.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        cards = env_p.program_table()[0]
        subs = _register_actions(env_p, cards, acts)
        obs_p, rew_p, term_p, trunc_p, info_p = env_p.step(acts)
        total = np.zeros(env_r.num_envs)
        for j in range(subs.shape[1]):
            assert env_r.action_masks()[np.arange(env_r.num_envs), subs[:, j]].all()
            obs_r, rew_r, term_r, trunc_r, info_r = env_r.step(subs[:, j])
            total += rew_r
            if j < subs.shape[1] - 1:
                assert not (term_r | trunc_r).any()
        np.testing.assert_allclose(rew_p, total, atol=1e-5)
        assert np.array_equal(term_p, term_r) and np.array_equal(trunc_p, trunc_r)
        if (term_p | trunc_p).any():
            ended += int((term_p | trunc_p).sum())
            done = term_p | trunc_p
            assert np.array_equal(info_p["final_info"]["deal_seed"][done], info_r["final_info"]["deal_seed"][done])
            np.testing.assert_allclose(info_p["tabletop_episode"]["r"], info_r["tabletop_episode"]["r"], atol=1e-5)
            lengths_p, lengths_r = info_p["tabletop_episode"]["l"][done], info_r["tabletop_episode"]["l"][done]
            assert (lengths_p * subs.shape[1] == lengths_r).all()
    assert ended >= 6


def test_program_mode_all_seats_and_batch_opponents():
    from envs.core.vector import BatchPolicy

    env = vector_env(3, control="all_seats", seed=8, num_robots=3, action_mode="program", max_turns=5)
    env.reset()
    rng = np.random.default_rng(1)
    seen = []
    for _ in range(20):
        seen.append(env._tables.learner.copy())
        assert (env._tables.step == env._tables.learner).all()  # every decision at round 0
        mask = env.action_masks()
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    assert (np.array(seen)[:3] == np.arange(3)[:, None]).all()

    calls = []

    def first_program(obs, mask, rows, rng):
        calls.append(mask.shape)
        return np.argmax(mask, axis=1).astype(np.int64)

    env = vector_env(4, opponents=[BatchPolicy(first_program, "first")], seed=9, action_mode="program", max_turns=6)
    env.reset()
    for _ in range(12):
        env.step(np.argmax(env.action_masks(), axis=1))
    assert calls and all(shape[1] == env.num_actions for shape in calls)
    assert (env._tables.meta[:, fast.M_TURN] >= 10).all() or env._tables.episode.max() > 1
