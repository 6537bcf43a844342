"""`lama/pimc`: the Teacher contract, the gate, reproducibility, the agent ids."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.lama.pimc import PimcTeacher
from agents.lama.strategies import FirstStrategy
from agents.search.teacher import Teacher, check_values
from envs.core.play import play_out
from envs.lama.rules import Config, LamaGame


def decisions(game: LamaGame, count: int, seed: int):
    """(view, mask) pairs met by strategy-1 players, with more than one legal action."""
    out = []
    s1 = FirstStrategy()
    rng = np.random.default_rng(seed)
    while len(out) < count:
        s = game.new_game(int(rng.integers(0, 2**63)))
        while not game.is_terminal(s) and len(out) < count:
            mask = game.legal_mask(s)
            v = game.view(s, s.current)
            if mask.sum() > 1 and rng.random() < 0.2:
                out.append((v, mask))
            s = game.apply(s, s1.act(v, mask))
    return out


@pytest.mark.parametrize("rules", ["official", "seed2022"])
def test_values_follow_the_contract_and_are_reproducible(rules):
    game = LamaGame(Config(rules=rules))
    t = PimcTeacher(game, np.random.default_rng(0), k=16)
    assert isinstance(t, Teacher)
    for view, mask in decisions(game, 8, 1):
        v = check_values(t.action_values(view, mask, np.random.default_rng(5)), mask)
        again = t.action_values(view, mask, np.random.default_rng(5))
        assert np.array_equal(v, again, equal_nan=True)
        legal = np.flatnonzero(mask)
        assert (v[legal] >= -1e-3).all() and (v[legal] <= 1).all()  # win shares (a gated one just below)


def test_a_closed_gate_plays_strategy_one():
    game = LamaGame(Config())
    t = PimcTeacher(game, np.random.default_rng(0), k=8, gate=1e9)
    s1 = FirstStrategy()
    for view, mask in decisions(game, 10, 2):
        assert t.act(view, mask) == s1.act(view, mask)
    assert t.deviations == 0 and t.decisions == 10


def test_an_open_gate_deviates_and_the_agent_plays_whole_games():
    game = LamaGame(Config())
    t = PimcTeacher(game, np.random.default_rng(0), k=24, gate=-1e9)
    end, _ = play_out(game, [t] + [FirstStrategy()] * 3, game.new_game(4))
    assert game.is_terminal(end) and t.decisions > 0 and t.deviations > 0


def test_registered_ids_and_bad_arguments():
    game = LamaGame(Config(rules="seed2022"))
    rng = np.random.default_rng(0)
    assert agents.make("lama/pimc", game, rng=rng).k == 300
    assert agents.make("lama/pimc?k=40", game, rng=rng).k == 40
    assert agents.make("lama/pimc-retuned", game, rng=rng)._code == 3
    with pytest.raises(ValueError, match="blueprint"):
        PimcTeacher(game, rng, blueprint="second")
    with pytest.raises(ValueError, match="k must"):
        PimcTeacher(game, rng, k=1)


@pytest.mark.parametrize(("agent_id", "rules", "teacher"), [("lama/learned", "official", "lama/pimc"),
                                                           ("lama/learned-seed2022", "seed2022", "lama/pimc-retuned")])
def test_shipped_students_play_whole_games(agent_id, rules, teacher):
    """The shipped students load by id (tensors only), name their teacher, and play legal games to the end."""
    import json
    import os

    from agents.pretrained import checkpoints

    folder = checkpoints()[agent_id]
    with open(os.path.join(folder, "policy.json"), encoding="utf-8") as f:
        meta = json.load(f)
    assert meta["options"]["rules"] == rules and meta["provenance"]["teacher"] == teacher
    game = LamaGame(Config(rules=rules))
    student = agents.make(agent_id, game, rng=np.random.default_rng(0))
    for seed in range(3):
        end, _ = play_out(
            game, [FirstStrategy()] * seed + [student] + [FirstStrategy()] * (3 - seed), game.new_game(seed)
        )
        assert game.is_terminal(end)


def test_unfinished_rollouts_are_dropped_for_every_action(monkeypatch):
    """A determinization whose game never ends (NaN row) leaves the comparison paired on the other rollouts."""
    game = LamaGame(Config(rules="seed2022"))
    t = PimcTeacher(game, np.random.default_rng(0), k=4, gate=0.0)
    view, mask = decisions(game, 1, 3)[0]
    n_legal = int(mask.sum())
    rows = np.zeros((4, n_legal))
    rows[:, 1:] = 1.0  # every alternative wins where the blueprint's action loses
    rows[0, 0] = np.nan
    monkeypatch.setattr(t, "rollouts", lambda view, actions, rng: rows.copy())
    v = check_values(t.action_values(view, mask, np.random.default_rng(0)), mask)
    assert np.nanmax(v) == 1.0 and t.deviations == 1
    rows[1:, 0] = np.nan
    v = check_values(t.action_values(view, mask, np.random.default_rng(0)), mask)
    assert t.act(view, mask) == FirstStrategy().act(view, mask) == int(np.nanargmax(v))


def test_estimates_are_the_ungated_means_of_the_same_search():
    """`action_estimates` gives the gated values and the raw means from one search: they agree wherever the gate
    did not act, and the gate only ever lowers a value."""
    from agents.search.teacher import SearchTeacher

    game = LamaGame(Config(rules="seed2022"))
    t = PimcTeacher(game, np.random.default_rng(0), k=16, gate=1e9, blueprint="third-retuned")
    assert isinstance(t, SearchTeacher)
    lowered = 0
    for view, mask in decisions(game, 12, 4):
        values, estimates = t.action_estimates(view, mask, np.random.default_rng(9))
        check_values(values, mask), check_values(estimates, mask)
        assert np.array_equal(values, t.action_values(view, mask, np.random.default_rng(9)), equal_nan=True)
        legal = np.flatnonzero(mask)
        assert (values[legal] <= estimates[legal] + 1e-12).all()
        changed = values[legal] != estimates[legal]
        lowered += int(changed.sum())
        assert np.allclose(values[legal][changed], values[t.blueprint.act(view, mask)] - 1e-4)
    assert lowered > 0  # with the gate closed, some action measured above the blueprint's was lowered
