"""RoboRally agents: the solo simulator against the engine, greedy's choice and tie-break, mc's options and views."""

from dataclasses import replace

import numpy as np
import pytest

import agents
from agents.roborally.mc import DEFAULTS
from agents.roborally.strategies import SoloSimulator, greedy_program, solo_of
from envs.core.play import play_game
from envs.roborally.board import board_to_text, load_board, shipped_boards
from envs.roborally.programs import equivalence_classes, program_cards, rank, reduced_programs
from envs.roborally.rules import REGISTERS, Config, RoboRallyGame


def _alone(game, rng):
    """A start-of-turn state with robot 0 somewhere on the board and robot 1 out of the game."""
    b = game.board
    while True:
        x, y = int(rng.integers(b.width)), int(rng.integers(b.height))
        if b.floor[y, x] != 1:  # not a pit
            break
    r0, r1 = game.initial_robots()[:2]
    r0 = replace(r0, x=x, y=y, facing=int(rng.integers(4)), next_flag=int(rng.integers(len(b.flags))), archive_x=-1)
    r1 = replace(r1, on_board=False, eliminated=True, lives=0)
    return r0, game.setup([r0, r1], seed=int(rng.integers(1 << 30)))


@pytest.mark.parametrize("board", ["race_easy", "race_medium", "race_hard", "gears_pushers", "express", "crushers"])
def test_solo_simulator_matches_the_engine_with_one_robot(board):
    game = RoboRallyGame(Config(board=board, rules="seed", crushers=True))
    sim = SoloSimulator(game)
    rng = np.random.default_rng(7)
    laser_deaths = 0
    for _ in range(150):
        r0, state = _alone(game, rng)
        cards = [int(c) for c in rng.choice(np.arange(1, 85), 5, replace=False)]
        after = game.execute_turn(state, [cards, []])
        solo = sim.run(solo_of(r0), cards)
        r = after.robots[0]
        if after.winner == 0:
            assert solo[3] == len(game.board.flags)
        elif r.lives < r0.lives:
            # The only difference allowed: lasers (which the solo simulation ignores) destroyed the robot.
            laser_deaths += solo[4]
            assert not solo[4] or game.board.lasers
        else:
            assert solo == (r.x, r.y, r.facing, r.next_flag, True)
    assert laser_deaths <= 15


@pytest.mark.parametrize("crushers", [False, True])
@pytest.mark.parametrize("numbering", ["classic", "roborace"])
def test_solo_simulator_is_the_engine_register_by_register_without_lasers(tmp_path, crushers, numbering):
    """Every shipped board with its lasers taken out, so nothing the solo simulation ignores can differ: after each
    register phase the lone robot is where the engine's frame has it (random squares, facings, next flags and
    programs with empty registers)."""
    compared = deaths = 0
    for name in shipped_boards():
        path = tmp_path / f"{name}.rrb"
        path.write_text(board_to_text(replace(load_board(name), lasers=())))
        game = RoboRallyGame(Config(board=str(path), rules="seed", crushers=crushers, card_numbering=numbering))
        sim = SoloSimulator(game)
        rng = np.random.default_rng([len(name), crushers, numbering == "classic"])
        for _ in range(60):
            r0, state = _alone(game, rng)
            cards = [int(c) if rng.random() < 0.8 else 0 for c in rng.choice(np.arange(1, 85), 5, replace=False)]
            after = game.execute_turn(state, [cards, []])
            s = solo_of(r0)
            for ri, frame in enumerate(after.frames):
                s = sim.register(s, cards[ri], ri)
                r = frame.robots[0]
                assert (s[4], s[3]) == (r.on_board, r.next_flag), (name, solo_of(r0), cards, ri)
                if r.on_board:
                    assert s[:3] == (r.x, r.y, r.facing), (name, solo_of(r0), cards, ri)
                compared += 1
            deaths += not s[4]
            assert len(after.frames) == REGISTERS or after.winner == 0
    assert compared >= 60 * len(shipped_boards()) and deaths > 0


def test_solo_simulator_cache_returns_the_compiled_register():
    """`SoloSimulator.register` caches by card kind: every answer, first or repeated, with any card of a kind, is
    what `fast.solo_register` gives for that very card."""
    from envs.roborally.fast import solo_register

    game = RoboRallyGame(Config(board="crushers", rules="seed", crushers=True))
    sim = SoloSimulator(game)
    b = game.board
    rng = np.random.default_rng(11)
    starts = [(int(rng.integers(b.width)), int(rng.integers(b.height)), int(rng.integers(4)),
               int(rng.integers(len(b.flags)))) for _ in range(40)]
    hits = 0
    for _ in range(3000):
        x, y, f, nf = starts[rng.integers(len(starts))]
        card, ri = int(rng.integers(85)), int(rng.integers(REGISTERS))
        before = len(sim._memo)
        got = sim.register((x, y, f, nf, True), card, ri)
        hits += len(sim._memo) == before
        assert got == tuple(solo_register(sim.board, x, y, f, nf, card, ri, True))
    assert hits > 1000


def test_greedy_is_the_lowest_rank_best_program():
    game = RoboRallyGame(Config(board="race_medium", rules="seed"))
    sim = SoloSimulator(game)
    rng = np.random.default_rng(3)
    for _ in range(6):
        r0, state = _alone(game, rng)
        hand = tuple(sorted(int(c) for c in rng.choice(np.arange(1, 85), 7, replace=False)))
        classes = equivalence_classes(hand)
        mults = [len(c) for c in classes]
        # Brute force over every reduced program.
        keyed = [(sim.key(sim.run(solo_of(r0), program_cards(classes, p))), rank(mults, p), p)
                 for p in reduced_programs(mults, 5)]
        best = min(keyed)
        assert greedy_program(sim, hand, r0, (0,) * 5, game.numbering) == program_cards(classes, best[2])


def test_greedy_and_mc_beat_random_and_play_legally():
    game = RoboRallyGame(Config(board="race_easy", rules="seed", max_turns=40))
    for agent_id in ("roborally/greedy", "roborally/mc?budget=60&top=8"):
        ag = agents.make(agent_id, game, np.random.default_rng(0), game_name="roborally")
        rnd = agents.make("roborally/random", game, np.random.default_rng(1))
        wins = 0
        for i in range(4):
            _, won, _ = play_game(game, [ag, rnd], game.initial_state(np.random.default_rng(i)))
            wins += won == (0,)
        assert wins == 4, agent_id


def test_mc_decides_from_the_view_only():
    # Two states that differ only in the cards robot 0 cannot see give robot 0 the same view and the same program.
    game = RoboRallyGame(Config(board="race_easy", rules="seed"))
    state = game.initial_state(np.random.default_rng(5))
    hidden = list(state.hands[1]) + list(state.deck)
    np.random.default_rng(9).shuffle(hidden)
    other = state._replace(hands=(state.hands[0], tuple(sorted(hidden[:9]))), deck=tuple(hidden[9:]))
    assert game.view(state, 0) == game.view(other, 0)
    picks = []
    for s in (state, other):
        mc = agents.make("roborally/mc?budget=80&top=8", game, np.random.default_rng(11))
        picks.append(mc.program(game.view(s, 0)))
        assert mc.last_stats["playouts"] <= 80
    assert picks[0] == picks[1]


def test_mc_options():
    assert DEFAULTS == {"budget": 2000, "depth": 1, "policy": "random", "eval": "default", "top": 32,
                        "engine": "fast"}
    game = RoboRallyGame(Config())
    for bad, word in (("depth=4", "depth"), ("speed=1", "speed"), ("budget=0", "budget"), ("eval=x", "eval")):
        with pytest.raises(ValueError, match=word):
            agents.make(f"roborally/mc?{bad}", game, np.random.default_rng(0))
    assert agents.make("roborally/mc?depth=2", game, np.random.default_rng(0)).options["depth"] == 2


@pytest.mark.parametrize("board", ["race_medium", "gears_pushers"])
def test_compiled_greedy_agent_equals_the_plain_one(board):
    # Differential test over views with random positions, damage (locked registers) and hands.
    game = RoboRallyGame(Config(board=board, rules="seed"))
    fast = agents.make("roborally/greedy", game, np.random.default_rng(0))
    plain = agents.make("roborally/greedy-plain", game, np.random.default_rng(0))
    rng = np.random.default_rng(4)
    for _ in range(60):
        r0, state = _alone(game, rng)
        damage = int(rng.integers(0, 9))
        deck = [int(c) for c in rng.permutation(np.arange(1, 85))]
        hand = tuple(sorted(deck[: 9 - damage]))
        locked = [0] * (5 - max(0, damage - 4)) + deck[9 - damage: 9 - damage + max(0, damage - 4)]
        robots = (replace(r0, damage=damage),) + state.robots[1:]
        view = game.view(state._replace(robots=robots, hands=(hand, ()), registers=(tuple(locked), (0,) * 5)), 0)
        assert fast.program(view) == plain.program(view)


def test_mc_screening_is_the_same_on_both_engines():
    game = RoboRallyGame(Config(board="race_medium", rules="seed"))
    fast = agents.make("roborally/mc", game, np.random.default_rng(0))
    plain = agents.make("roborally/mc?engine=plain", game, np.random.default_rng(0))
    for i in range(5):
        state = game.initial_state(np.random.default_rng(i))
        for seat in (0, 1):
            view = game.view(state, seat)
            cands = fast.screen(view)
            assert cands == plain.screen(view) and len(cands) == 32


def test_turns_table_compiled_equals_plain_and_finishing_is_zero():
    from agents.roborally.mc import turns_table

    game = RoboRallyGame(Config(board="tiny", rules="seed"))
    sim = SoloSimulator(game)
    plain = turns_table(sim, sweeps=2, seed=3, engine="plain")
    fast = turns_table(sim, sweeps=2, seed=4, engine="fast")  # another seed: not the cached table
    again = turns_table(sim, sweeps=2, seed=3, engine="fast")
    assert again is plain  # cached per board and seed
    from agents.roborally import mc as search

    search._TABLES.clear()
    assert np.array_equal(turns_table(sim, sweeps=2, seed=3, engine="fast"), plain)
    assert fast.shape == (len(game.board.flags) + 1, game.board.height, game.board.width, 4)
    assert (plain[-1] == 0).all() and (plain[:-1] >= 1).all()


def test_turns_search_finds_the_least_value_over_every_program():
    """`_turns_min` (depth first, prefixes shared, repeated nodes skipped) against every program of
    `enumerate_programs` run whole by `solo_kernel`, on a board with crushers and random hands and squares."""
    from agents.roborally.fast import SEEN_SIZE
    from agents.roborally.mc import _turns_min
    from envs.roborally.elements import PIT
    from envs.roborally.fast import FastEngine, enumerate_programs, solo_kernel

    game = RoboRallyGame(Config(board="race_hard", rules="classic", crushers=True))
    bd = FastEngine(game).board
    nflags, kinds = bd[9], bd[14]
    rng = np.random.default_rng(5)
    table = rng.random((nflags + 1, bd[1], bd[0], 4)) * 10
    table[-1] = 0.0
    worst = float(table.max()) + 1.0
    seen = np.zeros(SEEN_SIZE, np.int64)
    checked = alive_somewhere = 0
    while checked < 12:
        x, y = int(rng.integers(bd[0])), int(rng.integers(bd[1]))
        f, nf = int(rng.integers(4)), int(rng.integers(nflags))
        if bd[2][y, x] == PIT:  # a robot never stands on a pit
            continue
        hand = np.sort(rng.choice(np.arange(1, 85), 9, replace=False)).astype(np.int64)
        want = worst
        for prog in enumerate_programs(hand, 9, 5, kinds):
            ex, ey, ef, enf, alive = solo_kernel(bd, x, y, f, nf, prog, True)
            want = min(want, table[enf, ey, ex, ef] if alive else worst)
        assert _turns_min(bd, x, y, f, nf, hand, table, worst, True, seen) == want
        checked += 1
        alive_somewhere += want < worst
    assert alive_somewhere >= 8  # mostly hands with a program that survives: the minimum is a table value
