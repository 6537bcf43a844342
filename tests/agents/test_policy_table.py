"""An OpenSpiel-style policy table as one of our agents (`openspiel:<file.json>`), without OpenSpiel installed:
a table built from our exact equilibrium plays as that equilibrium, is read as data, and bad files get one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import envs
from agents.openspiel import save_policy_table
from agents.simple_poker.strategies import behaviour_of, exploitability
from envs.core.game import info_state_string, legal_mask


def _table_of(agent, game) -> dict[str, np.ndarray]:
    """Every information state of simple poker (every deal, every history) with the agent's probabilities."""
    table = {}
    for deal in range(game.config.n ** 2):  # deal k is the ordered pair of cards number k: every pair once
        stack = [game.deal(deal)]
        while stack:
            s = stack.pop()
            if game.is_terminal(s):
                continue
            seat, mask = game.current_player(s), legal_mask(game, s)
            view = game.view(s, seat)
            table[info_state_string(view, seat)] = agent.action_probs(view, mask)
            stack += [game.apply(s, int(a)) for a in np.flatnonzero(mask)]
    return table


@pytest.fixture(scope="module")
def table_file(tmp_path_factory):
    game = envs.make_game("simple_poker", n=3)
    nash = agents.make("simple_poker/nash", game, np.random.default_rng(0))
    path = tmp_path_factory.mktemp("table") / "nash.json"
    return save_policy_table(_table_of(nash, game), str(path), "simple_poker", {"n": 3}), game


def test_a_saved_table_plays_as_the_policy_it_was_made_from(table_file):
    path, game = table_file
    agent = agents.make(f"openspiel:{path}", game, np.random.default_rng(0))
    nash = agents.make("simple_poker/nash", game, np.random.default_rng(0))
    assert agent.name == f"openspiel:{path}"
    assert exploitability(game, behaviour_of(agent, game)).total == pytest.approx(
        exploitability(game, behaviour_of(nash, game)).total, abs=1e-12)


def test_the_table_plays_in_a_tournament_and_declares_its_options(table_file, capsys):
    from agents.options import required_options
    from evaluate.__main__ import main

    path, _ = table_file
    assert required_options(f"openspiel:{path}") == {"n": 3}
    assert main(["simple_poker", "--agents", f"openspiel:{path},simple_poker/nash", "--option", "n=3",
                 "--games", "40", "--no-progress"]) == 0
    assert "openspiel:" in capsys.readouterr().out


@pytest.mark.parametrize(("content", "message"), [
    ("not json", "not a readable policy-table JSON file"),
    ('{"format": 1, "game": "simple_poker", "table": []}', "is not a policy table of format 1"),
    ('{"format": 1, "game": "simple_poker", "options": {"n": 3}, "table": {"k": [0.5, "x"]}}',
     "is not a list of probabilities"),
    ('{"format": 1, "game": "simple_poker", "options": {"n": 3}, "table": {"k": [0.5, 0.2, 0.3]}}',
     "has 3 probabilities; the game has 2 actions"),
    ('{"format": 1, "game": "simple_poker", "options": {"n": 5}, "table": {}}', "it does not play this game"),
])
def test_a_bad_table_file_is_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        agents.make(f"openspiel:{path}", envs.make_game("simple_poker", n=3), np.random.default_rng(0))
    with pytest.raises(ValueError, match="no policy-table file"):
        agents.make(f"openspiel:{tmp_path / 'missing.json'}", envs.make_game("simple_poker", n=3),
                    np.random.default_rng(0))


def test_the_policy_table_file_is_data(table_file):
    path, _ = table_file
    data = json.load(open(path))
    assert set(data) == {"format", "game", "options", "table"}
