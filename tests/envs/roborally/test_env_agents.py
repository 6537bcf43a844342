"""RoboRally agents: `roborally/random` plays reduced programs uniformly; both random agents finish games."""

from collections import Counter

import numpy as np
import pytest

import agents
from envs.core.play import play_game
from envs.roborally.programs import equivalence_classes, reduced_programs
from envs.roborally.rules import Config, RoboRallyGame, Robot

SEED_HAND = (3, 4, 11, 21, 35, 49, 50, 57, 83)


def test_random_program_is_uniform_over_the_reduced_programs():
    game = RoboRallyGame(Config(board="tiny"))
    agent = agents.make("roborally/random", game, np.random.default_rng(0))
    state = game.setup(list(game.initial_robots()), seed=0)
    view = game.view(state._replace(hands=(SEED_HAND,) + state.hands[1:]), 0)
    counts = Counter(agent.program(view) for _ in range(25_000))
    classes = equivalence_classes(SEED_HAND)
    of = {c: j for j, cl in enumerate(classes) for c in cl}
    as_classes = {tuple(of[SEED_HAND[s]] for s in prog) for prog in counts}
    assert as_classes == set(reduced_programs([len(c) for c in classes], 5))  # all 1,250, nothing else
    assert len(counts) == 1250
    assert max(counts.values()) < 45 and min(counts.values()) > 3  # mean 20


@pytest.mark.parametrize("mode", ["register", "program"])
def test_random_program_plays_its_program_over_the_rounds(mode):
    game = RoboRallyGame(Config(board="tiny", action_mode=mode))
    agent = agents.make("roborally/random", game, np.random.default_rng(1))
    robots = list(game.initial_robots())
    robots[0] = Robot(robots[0].x, robots[0].y, robots[0].facing, damage=2)
    state = game.setup(robots, seed=4)
    while state.turn == 0:
        seat = game.current_player(state)
        state = game.apply(state, agent.act(game.view(state, seat), game.legal_mask(state)))
    assert state.turn == 1 or game.is_terminal(state)


@pytest.mark.parametrize("ids", [("roborally/random", "random"), ("roborally/random",) * 4])
def test_whole_games(ids):
    game = RoboRallyGame(Config(board="arena", num_robots=len(ids), max_turns=30))
    rng = np.random.default_rng(2)
    for _ in range(3):
        seated = [agents.make(a, game, np.random.default_rng(i), game_name="roborally") for i, a in enumerate(ids)]
        returns, winners, moves = play_game(game, seated, game.initial_state(rng))
        assert moves > 0 and len(returns) == len(ids)
