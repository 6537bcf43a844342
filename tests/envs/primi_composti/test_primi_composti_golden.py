"""Golden regression test: Primi Composti's env behaves bit for bit as it did before its speed work.

For 40 seeded episodes (random legal play, 20 configs x 2 episodes: version 1/2,
2/3/4/6 players, 12 and 6 cards per player, steal_choice max/player,
allow_revealed_operand, observation_hints, every reward mode, seat0_holds_two
off; `raw_env` and `env()`, with an occasional illegal move under `env()` and a
`max_turns` truncation), every step's observation and action mask of every live
seat, the seat's view, the engine's legal actions, the rewards, cumulative
rewards, terminations, truncations, infos and the full state are hashed into
one SHA-256 per episode. The expected hashes in `primi_composti_golden.json`
were written by running this file as a script (`python
tests/envs/primi_composti/test_primi_composti_golden.py --write`) ONCE, on
`envs/primi_composti/rules.py` and `encoding.py` as they were BEFORE the env
speed work; they must never be regenerated to make a change pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from envs import primi_composti_v0

sys.path.append(
    str(Path(__file__).parents[2])
)  # tests/ (after the installed packages: tests/envs must not shadow envs)
import golden  # noqa: E402  (the shared golden-test frame; pytest finds it anyway, a script run needs the line above)

GOLDEN = Path(__file__).with_name("primi_composti_golden.json")


# (name, options, wrapped, max_turns, illegal-move probability); two episodes each.
CASES = [
    ("v1_2p", dict(), False, None, 0.0),
    ("v1_2p_wrapped", dict(), True, None, 0.0),
    ("v1_3p", dict(num_players=3), False, None, 0.0),
    ("v1_4p_k6", dict(num_players=4, cards_per_player=6), True, None, 0.0),
    ("v1_6p", dict(num_players=6), False, None, 0.0),
    ("v1_2p_k6_hints", dict(cards_per_player=6, observation_hints=True), False, None, 0.0),
    ("v1_3p_score", dict(num_players=3, reward="score"), False, None, 0.0),
    ("v1_2p_result_noseat0", dict(reward="result", seat0_holds_two=False), True, None, 0.0),
    ("v2_2p", dict(version=2), False, None, 0.0),
    ("v2_2p_wrapped", dict(version=2), True, None, 0.0),
    ("v2_3p_hints", dict(version=2, num_players=3, observation_hints=True), False, None, 0.0),
    ("v2_4p", dict(version=2, num_players=4), False, None, 0.0),
    ("v2_6p_k6_score", dict(version=2, num_players=6, cards_per_player=6, reward="score"), True, None, 0.0),
    ("v2_2p_player", dict(version=2, steal_choice="player"), False, None, 0.0),
    ("v2_3p_player_k6", dict(version=2, num_players=3, cards_per_player=6, steal_choice="player"), True, None, 0.0),
    ("v2_2p_revealed", dict(version=2, allow_revealed_operand=True), False, None, 0.0),
    (
        "v2_4p_revealed_player_hints",
        dict(version=2, num_players=4, allow_revealed_operand=True, steal_choice="player", observation_hints=True),
        False,
        None,
        0.0,
    ),
    (
        "v2_2p_revealed_hints_result",
        dict(version=2, allow_revealed_operand=True, observation_hints=True, reward="result"),
        False,
        None,
        0.0,
    ),
    ("v1_2p_illegal", dict(), True, None, 0.03),
    ("v2_3p_trunc", dict(version=2, num_players=3, seat0_holds_two=False), True, 20, 0.0),
]
EPISODES = 2

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


def case_hashes(options: dict, wrapped: bool, max_turns: int | None, p_illegal: float, seed: int) -> list[str]:
    """One hash per episode of `EPISODES` episodes played on one env object (`golden.aec_hashes`, with the
    engine's returns and state and each action's text)."""
    make = primi_composti_v0.env if wrapped else primi_composti_v0.raw_env
    env = make(max_turns=max_turns, **options)
    rng = np.random.default_rng(seed)

    def returns_and_state(h, raw):
        h.update(repr(raw.game.returns(raw.game_state)).encode())
        h.update(repr(raw.game_state).encode())

    def choose(h, raw, obs):
        action = golden.random_move(rng, obs["action_mask"], p_illegal)
        h.update(raw.game.action_to_string(raw.game_state, action).encode())
        return action

    return golden.aec_hashes(env, seed, EPISODES, choose, returns_and_state)


test_golden = golden.golden_test(GOLDEN, CASES, case_hashes)


if __name__ == "__main__":
    golden.main(GOLDEN, CASES, case_hashes, "tests/envs/primi_composti/test_primi_composti_golden.py")
