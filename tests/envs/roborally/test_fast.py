"""The fast path against the plain engine: whole random races compared after every turn, the deal, the reduced
programs and the lone-robot kernel."""

from dataclasses import replace

import numpy as np
import pytest

from envs.roborally.board import board_to_text, shipped_boards
from envs.roborally.cards import NUM_CARDS
from envs.roborally.fast import M_DECK, FastEngine
from envs.roborally.programs import equivalence_classes, program_cards, reduced_programs
from envs.roborally.rules import REGISTERS, Config, RoboRallyGame, free_registers

VARIANTS = [
    {},
    {"rules": "seed"},
    {"crushers": True, "double_repair_heals": 2},
    {"card_numbering": "roborace", "flags_repair": True},
    {"lives": 1},
]


def _races(board: str, num_robots: int, options: dict, min_turns: int, seed: int) -> int:
    """Random races on both engines until `min_turns` turns were compared after every turn; returns the turns.

    Programs are uniform reduced programs of the dealt hands; robots that may power down announce (or stay down)
    at random. The fast state is carried from turn to turn; only the deal (the shuffle differs) is copied from
    the plain state.
    """
    game = RoboRallyGame(Config(board=board, num_robots=num_robots, max_turns=None, **options))
    fe = FastEngine(game)
    rng = np.random.default_rng(seed)
    turns = 0
    while turns < min_turns:
        state = game.initial_state(rng)
        fs = fe.pack(state)
        for _ in range(60):
            if game.is_terminal(state):
                break
            robots = list(state.robots)
            if game.config.power_down:
                for i, r in enumerate(robots):
                    if game._may_power(r) and rng.random() < 0.15:
                        robots[i] = replace(r, stay_down=True) if r.powered_down else replace(r, announced=True)
                state = state._replace(robots=tuple(robots))
            programs = np.zeros((num_robots, REGISTERS), np.int32)
            for i, hand in enumerate(state.hands):
                if hand:
                    k = min(free_registers(robots[i].damage), len(hand))
                    options_ = fe.reduced_programs(hand, k)
                    programs[i] = options_[rng.integers(len(options_))]
            fs = _sync(fe, fs, state)
            after = game.execute_turn(state, programs)
            fs = fe.execute_turn(fs, programs)
            assert fe.differences(fs, after) == [], (board, num_robots, options, turns)
            state = after
            turns += 1
    return turns


def _sync(fe: FastEngine, fs, state):
    """The carried fast state with the plain state's deal (deck) and programming choices (power announcements)."""
    out = fs.copy()
    packed = fe.pack(state)
    out.deck[:] = packed.deck
    out.meta[M_DECK] = packed.meta[M_DECK]
    out.robots[:, 12:14] = packed.robots[:, 12:14]  # announced, stay_down
    assert fe.differences(out, state) == []
    return out


@pytest.mark.parametrize("board", shipped_boards())
def test_races_on_shipped_boards(board):
    total = 0
    for n in (2, 4, 8):
        game = RoboRallyGame(Config(board=board))
        if n > len(game.board.starts):
            continue
        for v, options in enumerate(VARIANTS):
            total += _races(board, n, options, min_turns=40, seed=100 * n + v)
    assert total >= 40 * len(VARIANTS)


@pytest.mark.parametrize("seed", range(6))
def test_races_on_random_boards(seed):
    total = 0
    for v, options in enumerate(VARIANTS):
        n = (2, 4, 8)[(seed + v) % 3]
        total += _races(f"random:{seed}", n, options, min_turns=40, seed=seed * 10 + v)
    assert total >= 40 * len(VARIANTS)


def test_deal_is_a_partition_of_the_unheld_cards():
    game = RoboRallyGame(Config(board="race_easy", num_robots=4))
    fe = FastEngine(game)
    state = game.initial_state(np.random.default_rng(1))
    fs = fe.pack(state)
    fs.robots[1, 3] = 6  # damage 6: registers 4 and 5 locked
    fs.registers[1] = (0, 0, 0, 11, 12)
    fs.robots[2, 7] = 1  # powered down: no cards
    after, hands, sizes = fe.deal(fs, seed=7)
    assert sizes.tolist() == [9, 3, 0, 9]
    dealt = [c for i in range(4) for c in hands[i, :sizes[i]].tolist()]
    for i in range(4):
        assert hands[i, :sizes[i]].tolist() == sorted(hands[i, :sizes[i]].tolist())
    deck = after.deck[:after.meta[M_DECK]].tolist()
    assert sorted(dealt + deck + [11, 12]) == list(range(1, NUM_CARDS + 1))
    again = fe.deal(fs, seed=7)
    assert np.array_equal(again[1], hands) and np.array_equal(again[0].deck, after.deck)
    assert not np.array_equal(fe.deal(fs, seed=8)[1], hands)


@pytest.mark.parametrize("numbering", ["classic", "roborace"])
def test_reduced_programs_match_the_plain_enumeration(numbering):
    game = RoboRallyGame(Config(card_numbering=numbering))
    fe = FastEngine(game)
    rng = np.random.default_rng(3)
    hands = [(11, 83, 57, 49, 35, 21, 3, 50, 4)] + [tuple(sorted(rng.choice(np.arange(1, 85), size, replace=False)))
                                                     for size in (9, 9, 8, 7, 5, 3, 1) for _ in range(3)]
    for hand in hands:
        classes = equivalence_classes(hand, numbering)
        for k in range(0, min(5, len(hand)) + 1):
            want = [program_cards(classes, p) + (0,) * (REGISTERS - k)
                    for p in reduced_programs([len(c) for c in classes], k)]
            got = [tuple(row) for row in fe.reduced_programs(hand, k).tolist()]
            assert got == want or (k == 0 and got == [])
    if numbering == "classic":  # the seed's example hand (§1.1): 1,250 reduced programs
        assert len(fe.reduced_programs(hands[0], 5)) == 1250


def test_solo_matches_the_plain_engine_without_lasers_and_opponents(tmp_path):
    from envs.roborally.fast import solo_kernel

    compared = 0
    for seed in range(4):
        board = RoboRallyGame(Config(board=f"random:{seed}")).board
        path = tmp_path / f"b{seed}.rrb"
        path.write_text(board_to_text(replace(board, lasers=())))
        game = RoboRallyGame(Config(board=str(path), crushers=True, max_turns=None))
        fe = FastEngine(game)
        rng = np.random.default_rng(seed)
        state = game.initial_state(rng)
        for _ in range(40):
            r = state.robots[0]
            other = replace(state.robots[1], on_board=False, eliminated=True)
            st = state._replace(robots=(r, other))
            prog = fe.reduced_programs(st.hands[0], min(free_registers(r.damage), len(st.hands[0])))
            cards = prog[rng.integers(len(prog))]
            after = game.execute_turn(st, [cards, ()])
            x, y, f, nf, alive = solo_kernel(fe.board, r.x, r.y, r.facing, r.next_flag,
                                             np.array(cards, np.int64), True)
            a = after.frames[-1].robots[0]
            assert alive == a.on_board
            assert nf == a.next_flag
            if alive:
                assert (x, y, f) == (a.x, a.y, a.facing)
            compared += 1
            if game.is_terminal(after) or not after.robots[0].on_board:
                state = game.initial_state(rng)  # a fresh start: the next program again starts on the board
            else:
                state = after._replace(robots=(after.robots[0], state.robots[1]))
    assert compared == 160


def test_random_turns_loop_plays_whole_races():
    from envs.roborally.fast import random_turns

    game = RoboRallyGame(Config(board="tiny", num_robots=2))
    fe = FastEngine(game)
    fs = fe.pack(game.initial_state(np.random.default_rng(0)))
    before = fs.copy()
    races = random_turns(fe.board, fs.robots, fs.registers, fs.meta, 3000, 100, 1)
    assert races >= 30  # at most 100 turns per race
    assert races == random_turns(fe.board, fs.robots, fs.registers, fs.meta, 3000, 100, 1)
    assert np.array_equal(fs.robots, before.robots) and np.array_equal(fs.meta, before.meta)


def test_execute_turn_rejects_repeated_or_unknown_cards():
    game = RoboRallyGame(Config(board="race_easy", num_robots=2))
    fe = FastEngine(game)
    fs = fe.pack(game.initial_state(np.random.default_rng(0)))
    for bad in ([[50, 0, 0, 0, 0], [50, 0, 0, 0, 0]], [[85, 0, 0, 0, 0], [0] * 5], [[-1, 0, 0, 0, 0], [0] * 5]):
        with pytest.raises(ValueError, match="distinct cards 1..84"):
            fe.execute_turn(fs, bad)
        with pytest.raises(ValueError):
            game.execute_turn(game.setup(list(game.initial_robots())), bad)
