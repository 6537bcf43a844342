"""Explicit deck orders in the tournament and paired runners (`decks=`): the seeded deals given as decks are
the same games, both engines play the given decks alike, and bad decks are one clear error."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from evaluate.paired import run_paired_many
from evaluate.tournament import deal_rng, run_tournament


def _seeded_decks(game_name: str, options: dict, seed: int, deals: int) -> list[list[int]]:
    game = envs.make_game(game_name, **options)
    return [game.deal_key(deal_rng(seed, d)) for d in range(deals)]


@pytest.mark.parametrize("game_name, ids, options", [
    ("primi_composti", ["primi_composti/greedy_rand", "primi_composti/rand"], {"cards_per_player": 6}),
    ("the_game", ["the_game/simplest", "the_game/bestplays"], {}),
])
@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_a_tournament_on_the_seeded_decks_is_the_seeded_tournament(game_name, ids, options, engine):
    seeded = run_tournament(game_name, ids, games=24, seed=7, options=options, progress=False, engine=engine)
    decks = _seeded_decks(game_name, options, 7, 12)
    given = run_tournament(game_name, ids, games=24, seed=7, options=options, progress=False, engine=engine,
                           decks=decks)
    assert given.to_dict() == seeded.to_dict()


def test_both_engines_play_the_given_decks_alike_and_other_decks_give_other_games():
    rng = np.random.default_rng(5)
    decks = [rng.permutation(np.arange(2, 14)) for _ in range(30)]  # 2 x 6 cards: the cards 2..13
    case = dict(game_name="primi_composti", agent_ids=["primi_composti/minimax?depth=2", "primi_composti/greedy_asc"],
                games=60, seed=3, options={"cards_per_player": 6, "reward": "score"}, progress=False, decks=decks)
    py = run_tournament(**case, engine="python").to_dict()
    cc = run_tournament(**case, engine="compiled").to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled") and py == cc
    seeded = run_tournament(**{**case, "decks": None}, engine="python").to_dict()
    seeded.pop("engine")
    assert seeded != py  # the decks were played, not the seed's deals


def test_paired_on_the_seeded_decks_is_the_seeded_comparison():
    opts = {"cards_per_player": 6}
    ids = ["primi_composti/greedy_rand", "primi_composti/greedy_asc", "primi_composti/minimax?depth=2"]
    for engine in ("python", "compiled"):
        seeded = run_paired_many("primi_composti", ids, "primi_composti/greedy_desc", games=20, seed=4, options=opts,
                                 engine=engine)
        given = run_paired_many("primi_composti", ids, "primi_composti/greedy_desc", games=20, seed=4, options=opts,
                                engine=engine, decks=_seeded_decks("primi_composti", opts, 4, 20))
        assert [r.to_dict() for r in given] == [r.to_dict() for r in seeded]


def test_bad_decks_are_one_clear_error():
    opts = {"cards_per_player": 4}
    pc = ["primi_composti/greedy_rand", "primi_composti/greedy_asc"]
    with pytest.raises(ValueError, match=r"^decks: lama's deals are not deck orders.*primi_composti, the_game$"):
        run_tournament("lama", ["lama/first"] * 4, games=4, progress=False, decks=[list(range(56))])
    for game, ids in (("simple_poker", ["random", "random"]), ("roborally", ["random", "random"])):
        with pytest.raises(ValueError, match=rf"^decks: {game}'s deals are not deck orders"):
            run_paired_many(game, ids, "random", games=1, decks=[[1, 2]])
    with pytest.raises(ValueError, match=r"^decks: 3 deals need 3 deck orders, got 2$"):
        run_tournament("primi_composti", pc, games=6, options=opts, progress=False, decks=[range(2, 10)] * 2)
    with pytest.raises(ValueError, match=r"^decks\[1\]: a deck must be a permutation of the cards 2\.\.9$"):
        run_paired_many("primi_composti", pc, "primi_composti/rand", games=2, options=opts,
                        decks=[range(2, 10), [2] * 8])
