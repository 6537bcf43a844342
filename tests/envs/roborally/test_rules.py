"""RoboRally engine properties: options, card conservation, determinism, masks, views."""

from itertools import permutations

import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.roborally.cards import card_name
from envs.roborally.programs import count_programs, equivalence_classes, program_cards, reduced_programs
from envs.roborally.rules import (
    NOOP,
    NUM_PROGRAMS,
    POWER_DOWN,
    PROGRAM_NOOP,
    Config,
    RoboRallyGame,
    Robot,
    free_registers,
    locked_count,
)

BOARDS = [("tiny", 2), ("arena", 4), ("arena", 8), ("belts", 2), ("lasers", 2), ("gears_pushers", 2),
          ("race_hard", 3), ("random:11", 4), ("random:12:16x10", 2)]


def _cards(state):
    hands = [c for h, u in zip(state.hands, state.used) for k, c in enumerate(h) if not u >> k & 1]
    regs = [c for r in state.registers for c in r if c]
    return hands + regs + list(state.deck) + list(state.discard)


def _random_game(game, rng, check):
    state = game.initial_state(rng)
    check(state)
    while not game.is_terminal(state):
        legal = game.legal_actions(state)
        state = game.apply(state, int(legal[rng.integers(len(legal))]))
        check(state)
    return state


VARIANTS = [{}, {"crushers": True, "flags_repair": True, "double_repair_heals": 2, "card_numbering": "roborace"}]


@pytest.mark.parametrize("board,n", BOARDS)
@pytest.mark.parametrize("mode", ["register", "program"])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_conservation_and_one_robot_per_square(board, n, mode, variant):
    game = RoboRallyGame(Config(board=board, num_robots=n, max_turns=30, action_mode=mode, **VARIANTS[variant]))

    def check(state):
        assert sorted(_cards(state)) == list(range(1, 85))
        squares = [(r.x, r.y) for r in state.robots if r.on_board]
        assert len(squares) == len(set(squares))
        for r, hand in zip(state.robots, state.hands):
            if hand:
                assert len(hand) == 9 - r.damage and r.on_board and not r.powered_down
            assert 0 <= r.damage < 10 or not r.on_board
            assert r.eliminated == (r.lives <= 0)
        if not game.is_terminal(state):
            assert game.legal_actions(state), "the seat to act always has an action"

    rng = np.random.default_rng(1)
    for _ in range(3 if mode == "program" else 6):
        _random_game(game, rng, check)


def test_determinism_under_a_seed():
    game = RoboRallyGame(Config(board="arena", num_robots=4, max_turns=20))
    runs = []
    for _ in range(2):
        rng = np.random.default_rng(7)
        states = []
        _random_game(game, rng, states.append)
        runs.append(states)
    assert runs[0] == runs[1]


def test_apply_never_mutates_and_rejects_before_change():
    game = RoboRallyGame(Config(board="tiny"))
    state = game.initial_state(np.random.default_rng(0))
    copy = state
    with pytest.raises(IllegalActionError) as info:
        game.apply(state, 99)
    assert info.value.seat == 0 and info.value.action == 99 and "player_0" in str(info.value)
    assert state == copy
    legal = game.legal_actions(state)
    game.apply(state, legal[0])
    assert state == copy


@pytest.mark.parametrize(
    "options,match",
    [
        ({"rules": "2016"}, "classic"),
        ({"card_numbering": "x"}, "roborace"),
        ({"num_robots": 3, "board": "tiny"}, "2..2"),
        ({"board": "nowhere"}, "tiny"),
        ({"action_mode": "cards"}, "program"),
        ({"reward": "dense"}, "progress"),
        ({"double_repair_heals": 3}, r"\[1, 2\]"),
        ({"max_turns": 0}, "positive"),
        ({"lives": 0}, "positive"),
        ({"power_down": "yes"}, "True or False"),
    ],
)
def test_bad_options_name_allowed_values(options, match):
    with pytest.raises(ValueError, match=match):
        Config(**options)


def test_presets():
    assert Config().power_down and not Config().flags_repair
    seed = Config(rules="seed")
    assert not seed.power_down and seed.flags_repair
    assert RoboRallyGame(Config(rules="seed")).num_actions == 10
    assert RoboRallyGame(Config()).num_actions == 11


def test_locking_thresholds():
    assert [locked_count(d) for d in range(10)] == [0, 0, 0, 0, 0, 1, 2, 3, 4, 5]
    # Cards dealt 9 - d equal the free registers whenever d >= 4 (the rules' consistency).
    assert all(free_registers(d) == 9 - d for d in range(4, 10))


def _finished_programs(game, state, seat):
    """Every register content seat can reach through mask-respecting sub-steps (others NOOP-free paths)."""
    out = set()

    def rec(st):
        if st.step // game.num_players >= 5:
            out.add(st.registers[seat])
            return
        if game.current_player(st) != seat:
            legal = game.legal_actions(st)
            rec(game.apply(st, legal[0]))
            return
        for a in game.legal_actions(st):
            rec(game.apply(st, a))

    rec(state)
    return out


def _damaged(game, damage):
    """Seat 0 on `game`'s board with `damage` (its locked registers holding cards), seed 3's deal."""
    robots = list(game.initial_robots())
    robots[0] = Robot(robots[0].x, robots[0].y, robots[0].facing, damage=damage)
    regs = [(0,) * 5, (0,) * 5]
    if damage >= 5:
        regs[0] = (0,) * (9 - damage) + tuple(range(84, 84 - (damage - 4), -1))
    return game.setup(robots, seed=3, registers=regs)


@pytest.mark.parametrize("damage", [0, 3, 5, 7])
def test_register_masks_give_exactly_the_reduced_programs(damage):
    game = RoboRallyGame(Config(board="tiny"))
    state = _damaged(game, damage)
    hand = state.hands[0]
    assert len(hand) == 9 - damage
    k = free_registers(damage)
    classes = equivalence_classes(hand)
    expected = set()
    for prog in reduced_programs([len(c) for c in classes], k):
        expected.add(program_cards(classes, prog) + state.registers[0][k:])
    got = _finished_programs(game, state, 0)
    assert got == expected
    assert len(got) == count_programs([len(c) for c in classes], k)


@pytest.mark.parametrize("damage", [3, 5])
def test_every_card_option_offers_every_ordered_program(damage):
    """`card_classes=False`: the register sub-steps reach every ordered choice of k distinct hand cards, and the
    program-mode mask lists each once; the default offers fewer first cards for the same hand."""
    reduced = RoboRallyGame(Config(board="tiny"))
    state = _damaged(reduced, damage)
    hand, k = state.hands[0], free_registers(damage)
    assert len(reduced.legal_actions(state)) < len(hand)
    every = {p + state.registers[0][k:] for p in permutations(hand, k)}
    game = RoboRallyGame(Config(board="tiny", card_classes=False))
    assert _finished_programs(game, _damaged(game, damage), 0) == every
    game = RoboRallyGame(Config(board="tiny", card_classes=False, action_mode="program"))
    state = _damaged(game, damage)
    legal = [a for a in game.legal_actions(state) if a < NUM_PROGRAMS]  # not the power-down twins
    assert len(legal) == len(every) == len(set(legal))
    assert {game.action_to_string(state, a) for a in legal} == {
        " ".join(card_name(c, game.numbering) for c in p[:k]) for p in every}


def test_card_classes_must_be_a_bool():
    with pytest.raises(ValueError, match="card_classes must be True or False, got 'no'"):
        Config(card_classes="no")


def test_program_mode_mask_counts_reduced_programs():
    game = RoboRallyGame(Config(board="tiny", action_mode="program"))
    state = game.initial_state(np.random.default_rng(5))
    hand = state.hands[0]
    legal = game.legal_actions(state)
    # Undamaged: no power down offered, the programs only.
    assert len(legal) == count_programs([len(c) for c in equivalence_classes(hand)], 5)
    after = game.apply(state, legal[0])
    assert after.registers[0] != (0,) * 5


def test_power_down_offered_only_when_damaged():
    game = RoboRallyGame(Config(board="tiny"))
    robots = list(game.initial_robots())
    robots[1] = Robot(robots[1].x, robots[1].y, robots[1].facing, damage=2)
    state = game.setup(robots, seed=1)
    for _ in range(10):  # five register rounds
        state = game.apply(state, game.legal_actions(state)[0])
    assert game.legal_actions(state) == [NOOP]  # robot 0 is undamaged
    state = game.apply(state, NOOP)
    assert game.legal_actions(state) == [NOOP, POWER_DOWN]


def test_program_mode_noop_when_fully_locked():
    game = RoboRallyGame(Config(board="tiny", action_mode="program", power_down=False))
    robots = list(game.initial_robots())
    robots[0] = Robot(robots[0].x, robots[0].y, robots[0].facing, damage=9)
    state = game.setup(robots, seed=1, registers=[(80, 81, 82, 83, 84), (0,) * 5])
    assert state.hands[0] == () and game.legal_actions(state) == [PROGRAM_NOOP]


def test_view_hides_other_hands_and_sample_state_is_consistent():
    game = RoboRallyGame(Config(board="arena", num_robots=4))
    rng = np.random.default_rng(3)
    state = game.initial_state(rng)
    for _ in range(6):
        state = game.apply(state, game.legal_actions(state)[-1])
    view = game.view(state, 1)
    assert view.hand == state.hands[1] and view.registers == state.registers[1]
    # Another hand and other unlocked registers for seat 0 leave seat 1's view unchanged.
    other = state._replace(hands=(tuple(state.deck[:9]),) + state.hands[1:],
                           registers=((1, 2, 0, 0, 0),) + state.registers[1:])
    assert game.view(other, 1) == view and game.view(other, 0) != game.view(state, 0)
    for seed in range(5):
        sampled = game.sample_state(view, np.random.default_rng(seed))
        assert game.view(sampled, 1) == view
        assert sorted(_cards(sampled)) == list(range(1, 85))
        # The sampled state plays on.
        while not game.is_terminal(sampled) and sampled.turn == state.turn:
            sampled = game.apply(sampled, game.legal_actions(sampled)[0])


def test_returns_win_and_progress():
    game = RoboRallyGame(Config(board="tiny", reward="progress"))
    state = game.initial_state(np.random.default_rng(0))
    assert game.returns(state) == (0.0, 0.0)
    won = state._replace(winner=1)
    assert game.returns(won)[1] == pytest.approx(1.0 - game._phi0[1])
    plain = RoboRallyGame(Config(board="tiny"))
    assert plain.returns(won) == (0.0, 1.0) and plain.winners(won) == (1,)


def test_action_to_string_and_render():
    game = RoboRallyGame(Config(board="tiny"))
    state = game.initial_state(np.random.default_rng(0))
    assert game.action_to_string(state, game.legal_actions(state)[0]).startswith("register 1: ")
    assert game.action_to_string(state, NOOP) == "NOOP"
    assert "turn 1" in game.render(state)
