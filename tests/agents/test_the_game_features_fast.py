"""The compiled twin of The Game's student features (`agents.the_game.features_fast`, through
`TheGameFeatures.from_observations`) gives the Python features of every view, number for number."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from agents.learned import feature_set
from envs.the_game.encoding import TheGameEncoder


def _decisions(game, games: int, player: str):
    """(views, masks) of every decision of `games` games, each seat played by `player` ("random": a uniformly
    random legal action)."""
    rng, views, masks = np.random.default_rng(7), [], []
    for g in range(games):
        seats = None if player == "random" else [agents.make(player, game, np.random.default_rng(g))
                                                  for _ in range(game.num_players)]
        state = game.initial_state(np.random.default_rng(g))
        while not game.is_terminal(state):
            seat = game.current_player(state)
            view, mask = game.view(state, seat), np.asarray(game.legal_mask(state), np.int8)
            views.append(view)
            masks.append(mask)
            action = int(rng.choice(np.flatnonzero(mask))) if seats is None else seats[seat].act(view, mask)
            state = game.apply(state, action)
    return views, masks


@pytest.mark.parametrize("players", [1, 2, 3, 5])
@pytest.mark.parametrize("name", ["the_game", "the_game_noscore"])
def test_compiled_features_are_the_python_features(players, name):
    game = envs.make_game("the_game", num_players=players)
    views, masks = [], []
    for player, games in (("random", 4), ("the_game/bestplays", 2)):
        v, m = _decisions(game, games, player)
        views += v
        masks += m
    enc, fn = TheGameEncoder(game), feature_set(name)
    obs = np.array([enc.encode(v) for v in views], np.float32)
    for features in (fn.for_game(game), fn):  # bound, and unbound (the default game of the observation's width)
        ctx, per = features.from_observations(obs, np.array(masks, bool))
        for k, (view, mask) in enumerate(zip(views, masks)):
            want_ctx, want_per = fn(view, mask)
            assert np.array_equal(ctx[k], want_ctx) and np.array_equal(per[k], want_per), (k, view)
    assert len(views) > 200 and (per[:, :, 5] > 0).any()  # backwards tricks among the rows
    one_ctx, one_per = fn.from_observation(obs[-1], np.asarray(masks[-1], bool))
    assert np.array_equal(one_ctx, ctx[-1]) and np.array_equal(one_per, per[-1])


def test_observations_of_another_game_are_refused():
    fn = feature_set("the_game").for_game(envs.make_game("the_game", num_players=2))
    with pytest.raises(ValueError, match="width"):
        fn.from_observations(np.zeros((1, 700), np.float32), np.zeros((1, 405), bool))
    with pytest.raises(ValueError, match="official"):
        feature_set("the_game").for_game(envs.make_game("the_game", rules="berger2024"))


def test_a_student_scores_one_decision_as_in_a_batch():
    """`ActionScorer.forward` (legal actions only, fixed blocks) gives each decision's logits bit for bit alone and
    in a batch, and those of scoring every action through the same MLP."""
    import torch

    from agents.learned import load_student

    game = envs.make_game("the_game", num_players=3)
    student = load_student("agents/pretrained/the_game-3p", game)
    views, masks = _decisions(game, 3, "random")
    enc = TheGameEncoder(game)
    ctx, per = student._fn.from_observations(np.array([enc.encode(v) for v in views], np.float32),
                                             np.array(masks, bool))
    c, p, m = torch.from_numpy(ctx), torch.from_numpy(per), torch.from_numpy(np.array(masks, np.float32))
    with torch.inference_mode():
        batch = student.net(c, p, m)[0]
        alone = torch.cat([student.net(c[i:i + 1], p[i:i + 1], m[i:i + 1])[0] for i in range(len(views))])
        every = student.net.score(torch.cat([p, c.unsqueeze(1).expand(-1, p.shape[1], -1)], dim=-1))[..., 0]
    assert torch.equal(batch, alone)
    assert torch.equal(batch, every.masked_fill(m <= 0, -1e9))
