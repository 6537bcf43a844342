"""RoboRally's distillation parts: the flag seeker's completion values (against brute force over the plain solo
simulator and against the flag seeker's own program), the student's features, and the shipped `roborally/learned`."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

import agents
import envs
from agents.roborally.solo import SoloSimulator, solo_of
from agents.roborally.strategies import greedy_program
from agents.roborally.teacher import outcome_value
from envs.core.game import legal_mask
from envs.core.play import play_out
from envs.roborally.rules import HAND, REGISTERS, free_registers, locked_count

pytest.importorskip("torch")


def _reached_views(game, games: int, seed: int, damage_every: int = 0):
    """(view, mask) of every decision of random-play races (mid-turn sub-steps included)."""
    rng = np.random.default_rng(seed)
    player = agents.make("random", game, rng=np.random.default_rng(seed + 1), game_name="roborally")
    for _ in range(games):
        s = game.initial_state(rng)
        while not game.is_terminal(s):
            seat = game.current_player(s)
            view, mask = game.view(s, seat), legal_mask(game, s)
            yield view, mask
            s = game.apply(s, player.act(view, mask))


def _brute_force(game, sim: SoloSimulator, view, mask) -> np.ndarray:
    """Every legal card's value by running every completion of the program through the plain solo simulator."""
    robot = view.robots[view.seat]
    rnd = view.step // game.num_players
    k = min(free_registers(robot.damage), len(view.hand))
    nl = locked_count(robot.damage)
    tail = (0,) * (REGISTERS - k - nl) + (tuple(view.registers[REGISTERS - nl:]) if nl else ())
    placed = tuple(view.registers[:min(rnd, k)])
    unused = [c for i, c in enumerate(view.hand) if not view.used >> i & 1]
    out = np.full(len(mask), np.nan)
    for a in np.flatnonzero(mask):
        if a >= HAND or rnd >= k:
            out[a] = outcome_value(sim, sim.run(solo_of(robot), placed + (0,) * (k - len(placed)) + tail))
            continue
        rest = [c for c in unused if c != view.hand[a]]
        out[a] = max(outcome_value(sim, sim.run(solo_of(robot), placed + (view.hand[a],) + comp + tail))
                     for comp in permutations(rest, k - rnd - 1))
    return out


@pytest.mark.parametrize("board", ["race_easy", "random:3"])
def test_teacher_values_equal_brute_force_over_every_completion(board):
    game = envs.make_game("roborally", rules="seed", board=board)
    teacher = agents.make("roborally/greedy-teacher", game, rng=np.random.default_rng(0), game_name="roborally")
    sim = SoloSimulator(game)
    checked = mid_turn = 0
    for view, mask in _reached_views(game, 3, seed=7):
        v = teacher.action_values(view, mask, np.random.default_rng(0))
        if checked % 4 == 0 or view.step >= game.num_players:  # first sub-steps' brute force is the slow one
            np.testing.assert_array_equal(v, _brute_force(game, sim, view, mask))
            mid_turn += view.step >= game.num_players
        checked += 1
    assert mid_turn > 20


def test_teacher_first_choice_is_the_flag_seekers_program_value():
    game = envs.make_game("roborally", rules="seed")
    teacher = agents.make("roborally/greedy-teacher", game, rng=np.random.default_rng(0), game_name="roborally")
    sim = SoloSimulator(game)
    n = 0
    for view, mask in _reached_views(game, 4, seed=11):
        if view.step >= game.num_players or mask.sum() < 2:
            continue
        robot = view.robots[view.seat]
        prog = greedy_program(sim, view.hand, robot, view.registers, game.numbering)
        k = min(free_registers(robot.damage), len(view.hand))
        nl = locked_count(robot.damage)
        tail = (0,) * (REGISTERS - k - nl) + (tuple(view.registers[REGISTERS - nl:]) if nl else ())
        v = teacher.action_values(view, mask, np.random.default_rng(0))
        assert np.nanmax(v) == outcome_value(sim, sim.run(solo_of(robot), tuple(prog) + tail))
        assert v[view.hand.index(prog[0])] == np.nanmax(v)
        n += 1
    assert n > 10


def _races_won(game, agent, opponent, races: int, rng: np.random.Generator) -> int:
    """Races `agent` wins against `opponent`, seats swapped every race (the project's one game loop)."""
    wins = 0
    for g in range(races):
        seats = [agent, opponent] if g % 2 == 0 else [opponent, agent]
        s, _ = play_out(game, seats, game.initial_state(rng))
        wins += s.winner == (0 if g % 2 == 0 else 1)
    return wins


def test_the_teacher_as_an_agent_finishes_races_against_random():
    game = envs.make_game("roborally", rules="seed")
    t = agents.make("roborally/greedy-teacher", game, rng=np.random.default_rng(0), game_name="roborally")
    r = agents.make("roborally/random", game, rng=np.random.default_rng(1), game_name="roborally")
    assert _races_won(game, t, r, 6, np.random.default_rng(5)) >= 5


def test_features_shapes_rows_and_binding():
    from agents.learned import Student, feature_set
    from agents.roborally.features import CONTEXT_DIM, FEATURE_DIM

    with pytest.raises(ValueError, match="for_game"):
        feature_set("roborally")(None, np.ones(11))
    game = envs.make_game("roborally", rules="seed")
    student = Student("roborally", {"rules": "seed"}, "action_scorer", [8], "roborally", game=game)
    for i, (view, mask) in enumerate(_reached_views(game, 1, seed=3)):
        ctx, per, m = student.inputs(view, mask)
        assert ctx.shape == (CONTEXT_DIM,) and per.shape == (game.num_actions, FEATURE_DIM)
        assert not per[mask == 0].any()
        assert (per[mask > 0].any(axis=1)).all()
        if i > 40:
            break
    with pytest.raises(ValueError, match="register"):
        Student("roborally", {"rules": "seed", "action_mode": "program"}, "action_scorer", [8], "roborally")


def test_shipped_learned_robot_loads_by_id_and_wins_races_against_random():
    game = envs.make_game("roborally", rules="seed")
    learned = agents.make("roborally/learned", game, rng=np.random.default_rng(0), game_name="roborally")
    rnd = agents.make("roborally/random", game, rng=np.random.default_rng(1), game_name="roborally")
    assert _races_won(game, learned, rnd, 8, np.random.default_rng(12345)) >= 5
