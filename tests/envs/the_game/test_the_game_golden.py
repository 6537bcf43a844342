"""Golden regression test: The Game's env behaves bit for bit as it did before its speed work.

For 50 seeded episodes (random and greedy play) over many configs (official 1..5 players, berger2024
1..7, pile_flags on/off, other options; `raw_env` and `env()`, with an occasional
illegal move under `env()` and a `max_turns` truncation), every step's observation
and action mask of every live seat, the seat's view, the engine's legal actions,
the rewards, cumulative rewards, terminations, truncations and infos are hashed
into one SHA-256 per episode. The expected hashes in `the_game_golden.json` were
written by running this file as a script (`python
tests/envs/the_game/test_the_game_golden.py --write`) ONCE, on the engine as it
was before the env's public-info refactor and before any optimisation of
`envs/the_game`; they must never be regenerated to make a change pass.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs import the_game_v0

sys.path.append(
    str(Path(__file__).parents[2])
)  # tests/ (after the installed packages: tests/envs must not shadow envs)
import golden  # noqa: E402  (the shared golden-test frame; pytest finds it anyway, a script run needs the line above)

GOLDEN = Path(__file__).with_name("the_game_golden.json")


# (name, options, wrapped, max_turns, illegal-move probability or -1 for greedy play); two episodes each.
CASES = [
    ("off1", dict(num_players=1), False, None, 0.0),
    ("off2", dict(num_players=2), False, None, 0.0),
    ("off3", dict(num_players=3), False, None, 0.0),
    ("off4", dict(num_players=4), True, None, 0.0),
    ("off5", dict(num_players=5), False, None, 0.0),
    ("off2_flags", dict(num_players=2, communication="pile_flags"), False, None, 0.0),
    ("off3_flags", dict(num_players=3, communication="pile_flags"), True, None, 0.0),
    ("off5_flags_starter", dict(num_players=5, communication="pile_flags", starter=3), False, None, 0.0),
    ("off4_min3_hand4", dict(num_players=4, min_cards_per_turn=3, hand_size=4, win_bonus=3.5), False, None, 0.0),
    ("off2_illegal", dict(num_players=2), True, None, 0.02),
    ("off3_trunc", dict(num_players=3, communication="pile_flags"), True, 30, 0.0),
    ("ber1", dict(num_players=1, rules="berger2024"), False, None, 0.0),
    ("ber2", dict(num_players=2, rules="berger2024"), False, None, 0.0),
    ("ber3", dict(num_players=3, rules="berger2024"), True, None, 0.0),
    ("ber4", dict(num_players=4, rules="berger2024"), False, None, 0.0),
    ("ber5", dict(num_players=5, rules="berger2024"), False, None, 0.0),
    ("ber6", dict(num_players=6, rules="berger2024"), False, None, 0.0),
    ("ber7", dict(num_players=7, rules="berger2024", hand_size=3), False, None, 0.0),
    # greedy play (smallest gap first, 10% random): long games that empty the draw pile
    ("greedy_off1", dict(num_players=1), False, None, -1.0),
    ("greedy_off2", dict(num_players=2), True, None, -1.0),
    ("greedy_off3_flags", dict(num_players=3, communication="pile_flags"), False, None, -1.0),
    ("greedy_off5", dict(num_players=5), False, None, -1.0),
    ("greedy_ber2", dict(num_players=2, rules="berger2024"), False, None, -1.0),
    ("greedy_ber5", dict(num_players=5, rules="berger2024"), True, None, -1.0),
    ("greedy_ber7", dict(num_players=7, rules="berger2024"), False, None, -1.0),
]
EPISODES = 2

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


def _greedy(raw: Any, legal: np.ndarray, rng: np.random.Generator) -> int:
    """Smallest gap first (the trick counts -10), end the turn once the minimum is met; 10% a random
    fitting move instead."""
    s = raw.game_state
    tops = [p[-1] for p in s.piles]
    costs = []
    for a in legal.tolist():
        if a < 392:
            card, pile = a // 4 + 2, a % 4
            c = card - tops[pile] if pile < 2 else tops[pile] - card
            if c < 0 and (c != -10 or raw.game.berger):
                c = 500  # a misfit under berger2024
        else:
            c = 6 if a == 392 else 1000
        costs.append((c, a))
    if rng.random() < 0.1:
        ok = [a for c, a in costs if c < 500]
        if ok:
            return ok[int(rng.integers(len(ok)))]
    return min(costs)[1]


def case_hashes(options: dict, wrapped: bool, max_turns: int | None, p_illegal: float, seed: int) -> list[str]:
    """One hash per episode of `EPISODES` episodes played on one env object (`golden.aec_hashes`)."""
    env = (
        the_game_v0.env(max_turns=max_turns, **options)
        if wrapped
        else the_game_v0.raw_env(max_turns=max_turns, **options)
    )
    rng = np.random.default_rng(seed)

    def choose(h, raw, obs):
        if p_illegal < 0:
            return _greedy(raw, np.flatnonzero(obs["action_mask"]), rng)
        return golden.random_move(rng, obs["action_mask"], p_illegal)

    return golden.aec_hashes(env, seed, EPISODES, choose)


test_golden = golden.golden_test(GOLDEN, CASES, case_hashes)


if __name__ == "__main__":
    golden.main(GOLDEN, CASES, case_hashes, "tests/envs/the_game/test_the_game_golden.py")
