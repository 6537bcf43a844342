"""`roborally/mc` as a DAgger teacher of the program scorers (`MonteCarloProgram.action_values`): it values exactly
the candidates a program scorer offers, by mc's own playouts, every other legal action below them, and the same
seed gives the same labels."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.learned import Student
from agents.search.teacher import best_action, check_values
from envs.core.options import make_config
from envs.roborally.rules import Config, RoboRallyGame

OPTS = dict(board="race_easy", num_robots=2, rules="seed", max_turns=12, action_mode="program")


def _views(game: RoboRallyGame, seed: int, decisions: int) -> list[tuple]:
    """(view, mask) of the first `decisions` program decisions of races played by the flag seeker from `seed`."""
    greedy = agents.make("roborally/greedy", game, np.random.default_rng(seed))
    out, race = [], 0
    while len(out) < decisions:
        s = game.deal(seed + race)
        while not game.is_terminal(s) and len(out) < decisions:
            seat = game.current_player(s)
            view, mask = game.view(s, seat), game.legal_mask(s)
            out.append((view, mask))
            s = game.apply(s, greedy.act(view, mask))
        race += 1
    return out


@pytest.mark.parametrize("board", ["race_easy", "race_hard"])
def test_labels_are_mc_playout_means_of_the_students_candidates(board):
    """At each decision the finite labels above the floor are the student's offered actions (its
    `roborally_program_joint` inputs); the argmax is the candidate that mc's playouts rank first when the same
    worlds value the candidates in another order; every other legal action lies below every candidate; NaN off the
    mask; the same seed gives the same labels."""
    game = RoboRallyGame(make_config(Config, {**OPTS, "board": board}))
    mc = agents.make("roborally/mc?budget=256", game, np.random.default_rng(0))
    student = Student("roborally", {**OPTS, "board": board}, "action_scorer", [8], "roborally_program_joint",
                      game=game)
    compared = 0
    for k, (view, mask) in enumerate(_views(game, 3, 6)):
        values = check_values(mc.action_values(view, mask, np.random.default_rng(k)), mask)
        again = mc.action_values(view, mask, np.random.default_rng(k))
        np.testing.assert_array_equal(values, again)
        offered = np.flatnonzero(student.inputs(view, mask)[2])
        actions, cands = mc.scorer_candidates(view)
        assert sorted(actions) == offered.tolist()
        others = np.flatnonzero((mask > 0) & ~np.isin(np.arange(len(mask)), offered))
        assert np.all(values[others] < values[offered].min())
        if len(cands) < 2:
            continue
        order = np.random.default_rng(100 + k).permutation(len(cands))
        worlds = 256 // len(cands)
        means = mc.backend.means(view, [cands[i] for i in order], worlds, 1, np.random.default_rng(k))
        np.testing.assert_allclose(values[np.asarray(actions)[order]], means)
        best = best_action(values, mask)  # ties (candidates with one end) go to the lowest action
        assert best in actions and values[best] == means.max()
        assert best == min(actions[order[i]] for i in np.flatnonzero(means == means.max()))
        compared += 1
    assert compared >= 3


def test_a_lone_candidate_is_worth_zero_without_playouts():
    """A robot whose hand leaves one candidate (here: a hand of no cards, NOOP) gets 0 there, no playouts."""
    game = RoboRallyGame(make_config(Config, OPTS))
    mc = agents.make("roborally/mc", game, np.random.default_rng(0))
    view, mask = _views(game, 3, 1)[0]
    view = view._replace(hand=())
    actions, cands = mc.scorer_candidates(view)
    assert cands == [()]
    lone = np.zeros_like(mask)
    lone[actions[0]] = 1
    values = check_values(mc.action_values(view, lone, np.random.default_rng(0)), lone)
    assert values[actions[0]] == 0.0
