"""The exact solver against plain full-tree minimax, and the solver/regret tools."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.primi_composti.solvers import ReferenceSolver, best_card, card_values, solve_deal, state_value
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame
from evaluate.primi_composti.solve import format_study, regret_game, solve_study


def full_minimax(game, s):
    """Plain full-tree minimax over every legal action (a card, and under steal_choice="player" its pair)."""
    if game.is_terminal(s):
        return s.scores[s.first] - s.scores[1 - s.first]
    m = game.current_player(s)
    vals = [full_minimax(game, game.apply(s, a)) for a in game.legal_actions(s)]
    return max(vals) if m == s.first else min(vals)


@pytest.mark.parametrize("version", [1, 2])
def test_solver_equals_full_minimax(version):
    rng = np.random.default_rng(version)
    for k in (2, 3, 4):
        game = PrimiCompostiGame(Config(version=version, cards_per_player=k))
        solver = ReferenceSolver(version, tt_bits=14)
        for _ in range(6):
            s = game.initial_state(rng)
            for _ in range(int(rng.integers(0, 3))):
                la = game.legal_actions(s)
                s = game.apply(s, la[int(rng.integers(len(la)))])
            assert state_value(game, s, solver) == full_minimax(game, s)
            # Card values and the chosen card are optimal for the mover.
            m = game.current_player(s)
            sign = 1 if m == s.first else -1
            vals = card_values(game, s, solver)
            for c, v in vals.items():
                child = game.apply(s, game.action_of(c))
                before = sign * (s.scores[s.first] - s.scores[1 - s.first])
                assert before + v == sign * full_minimax(game, child)
            assert vals[best_card(game, s, solver)] == max(vals.values())


# Every search option must give the same exact values (they only change the speed).
_OPTIONS = [
    {},
    {"use_bound": False, "mtdf": False},
    {"mtdf": False},
    {"use_bound": False, "guess": 5},
]


@pytest.mark.parametrize("version", [1, 2])
def test_solver_options_equal_full_minimax_many_seeds(version):
    for seed in range(20):
        rng = np.random.default_rng(1000 * version + seed)
        for k in (3, 4):
            game = PrimiCompostiGame(Config(version=version, cards_per_player=k))
            positions = []
            for _ in range(3):
                s = game.initial_state(rng)
                for _ in range(int(rng.integers(0, 4))):
                    la = game.legal_actions(s)
                    s = game.apply(s, la[int(rng.integers(len(la)))])
                positions.append((s, full_minimax(game, s)))
            for opts in _OPTIONS:
                # a small table: collisions and replacements happen
                solver = ReferenceSolver(version, tt_bits=10, **opts)
                for s, exact in positions:
                    assert state_value(game, s, solver) == exact, (seed, k, opts)


# Values of random deals computed by a plain PVS solver (no score bounds, no MTD(f)):
# decks = fast.random_decks(np.random.default_rng(100 + k), n, k).
_PLAIN_PVS = {
    (1, 6): [1, -2, 0, -2, -4, 1],
    (1, 7): [7, 0, -2, -4],
    (1, 8): [-3, -1, -3],
    (2, 6): [-2, -4, -2, -2, -6, -2],
    (2, 7): [4, -4, -4, -4],
    (2, 8): [-5],
}


@pytest.mark.parametrize("version,k", sorted(_PLAIN_PVS))
def test_solver_equals_plain_pvs_values(version, k):
    expected = _PLAIN_PVS[(version, k)]
    game = PrimiCompostiGame(Config(version=version, cards_per_player=k))
    decks = fast.random_decks(np.random.default_rng(100 + k), len(expected), k)
    solver = ReferenceSolver(version, tt_bits=18)
    assert [solve_deal(game, game.deal(d), solver).value for d in decks] == expected


def test_solver_player_and_regret():
    game = PrimiCompostiGame(Config(version=2, cards_per_player=4))
    player = agents.make("primi_composti/solver", game, np.random.default_rng(0))
    rng = np.random.default_rng(2)
    solver = ReferenceSolver(2, tt_bits=14)
    for _ in range(5):
        s = game.initial_state(rng)
        a = player.act(game.view(s, 0), game.legal_mask(s))
        assert a in game.legal_actions(s)
        for seat in (0, 1):
            assert regret_game(game, s, "greedy_rand", seat, solver) >= 0
    with pytest.raises(ValueError):
        agents.make("primi_composti/solver", PrimiCompostiGame(Config(num_players=3)), np.random.default_rng(0))


def test_solve_study_report():
    s = solve_study(1, 3, 12, 0, ["greedy_rand"])
    assert s["deals"] == 12 and abs(s["p1_wins"] + s["ties"] + s["p2_wins"] - 1) < 1e-9
    assert s["regret"]["greedy_rand"]["mean"] >= 0
    assert "regret of greedy_rand" in format_study(s)


def test_solve_deals_cli(capsys):
    from evaluate.__main__ import main

    args = ["primi_composti", "--solve-deals", "6", "--option", "version=2", "--option", "cards_per_player=3",
            "--regret-players", "greedy_rand"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "6 random deals solved exactly" in out and "regret of greedy_rand" in out
