"""Golden behaviour of L.A.M.A.: every seeded episode stays bit-for-bit the same.

For about 30 seeded random episodes over many configs (2..8 players, both rules
presets, both reward modes, every variant switch) this test hashes, step by
step, everything the engine and the PettingZoo env produce: every seat's
observation bytes and action mask, rewards, cumulative rewards, terminations,
truncations, views, states, legal actions, returns, the `IllegalActionError`
message of every illegal action, `sample_state` draws and `render` text.

The expected hashes in `lama_golden.json` were recorded ONCE from the engine as
it stood before the speed work on `envs/lama` (commit 737e26a), by running this
module as a script: `python -m tests.envs.lama.test_lama_golden --write`.
Never regenerate them to make a change pass: a mismatch means behaviour changed.
Two hashes were recorded again for a change of `render` text only (a finished game's winners as plain
names, not a Python list): the two episodes whose terminal state is rendered (engine/off6_player0/29,
engine/seed4/17); every other hash is the first recording.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import Config, LamaGame
from envs.lama_v0 import env, raw_env

GOLDEN = Path(__file__).with_name("lama_golden.json")

# Field lists frozen at recording time, so the hash does not depend on how the
# classes are implemented (only on what they hold).
STATE_FIELDS = ("seed", "round", "reshuffles", "hands", "draw_pile", "discard", "stock", "active", "current", "starter",
                "totals", "rounds_won", "last_scores", "game_over")
VIEW_FIELDS = ("seat", "hand", "discard", "draw_size", "unseen", "hand_sizes", "active", "current", "starter", "totals",
               "rounds_won", "last_scores", "round", "reshuffles", "stock", "game_over", "top")

# (name, options, seeds): about 30 episodes in all.
CASES = [
    ("off2", dict(num_players=2), (0, 1, 2)),
    ("off3_dense", dict(num_players=3, reward="dense"), (3, 4)),
    ("off4", dict(num_players=4), (5, 6, 7)),
    ("off5_reshuffle", dict(num_players=5, empty_deck="reshuffle"), (8, 9)),
    ("off6_dense_quirk", dict(num_players=6, reward="dense", empty_deck="reshuffle_seed"), (10, 11)),
    ("seed2", dict(num_players=2, rules="seed2022"), (12, 13)),
    ("seed3_dense", dict(num_players=3, rules="seed2022", reward="dense"), (14, 15)),
    ("seed4", dict(num_players=4, rules="seed2022"), (16, 17, 18)),
    (
        "seed5_mixed",
        dict(num_players=5, rules="seed2022", scoring="distinct", return_chip=True, round_starter="ender"),
        (19,),
    ),
    ("seed6_dense", dict(num_players=6, rules="seed2022", reward="dense"), (20, 21)),
    ("seed7_nodraw", dict(num_players=7, rules="seed2022", empty_deck="no_draw", last_player_continues=True), (22, 31)),
    ("seed8", dict(num_players=8, rules="seed2022"), (23, 24)),
    ("seed8_dense_t20", dict(num_players=8, rules="seed2022", reward="dense", target_points=20), (25,)),
    ("off4_sumall_t15", dict(num_players=4, scoring="sum_all", target_points=15), (26, 27)),
    ("off6_player0", dict(num_players=6, round_starter="player0", return_chip=False), (28, 29)),
]

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


def choose(rng: np.random.Generator, legal, seed: int):
    """A random legal action: uniform for even seeds; for odd seeds quitting
    (action 8, always legal and always last) only 3% of the time, which makes
    long rounds with reshuffles and empty draw piles."""
    if seed % 2 and len(legal) > 1 and rng.random() >= 0.03:
        return legal[rng.integers(len(legal) - 1)]
    return legal[rng.integers(len(legal))]


class Hasher:
    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, *items: object) -> None:
        for x in items:
            if isinstance(x, np.ndarray):
                self.h.update(f"<{x.dtype.str}{x.shape}>".encode())
                self.h.update(np.ascontiguousarray(x).tobytes())
            else:
                self.h.update(repr(x).encode())
            self.h.update(b"|")

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def _fields(obj: object, names: tuple[str, ...]) -> tuple:
    return (type(obj).__name__,) + tuple((n, getattr(obj, n)) for n in names)

# Info keys added after the goldens were written; each is hashed already (the mask with the
# observation, the refused action as the action played), so leaving them out keeps the goldens.
_LATER_INFO_KEYS = ("action_mask", "illegal_action")


def _old_info(info: dict) -> dict:
    return {k: v for k, v in info.items() if k not in _LATER_INFO_KEYS}


def env_digest(make, opts: dict, seed: int, illegal_every: int = 0) -> str:
    """Random legal play through the AEC API, all of it hashed. With
    `illegal_every` k > 0, every k-th live step plays the first illegal action
    instead (for `env()`: the wrapper ends the game)."""
    e = make(**opts)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed + 12345)
    h = Hasher()
    h.add(e.possible_agents, e.observation_space(e.possible_agents[0]), e.action_space(e.possible_agents[0]))
    live = 0
    for agent in e.agent_iter(max_iter=20_000):
        obs, rew, term, trunc, info = e.last()
        h.add(agent, obs["observation"], obs["action_mask"], rew, term, trunc, sorted(_old_info(info)))
        for a in e.possible_agents:
            o = e.observe(a)
            h.add(a, o["observation"], o["action_mask"])
            h.add(_fields(e.unwrapped.view(a), VIEW_FIELDS))
        h.add(dict(e.rewards), dict(e._cumulative_rewards), dict(e.terminations), dict(e.truncations), list(e.agents))
        if term or trunc:
            action = None
        else:
            live += 1
            mask = obs["action_mask"]
            if illegal_every and live % illegal_every == 0 and not mask.all():
                action = int(np.flatnonzero(mask == 0)[0])
            else:
                action = int(choose(rng, np.flatnonzero(mask), seed))
        h.add(action)
        e.step(action)
    h.add("end", dict(e.rewards), dict(e._cumulative_rewards), list(e.agents))
    return h.hexdigest()


def engine_digest(opts: dict, seed: int) -> str:
    """Random legal play on the bare engine: states, every seat's view and
    encoding, legal actions/mask, returns, every illegal action's error text,
    plus `sample_state` and `render` at intervals."""
    game = LamaGame(Config(**opts))
    enc = LamaEncoder(game)
    rng = np.random.default_rng(seed)
    srng = np.random.default_rng(seed + 999)
    s = game.initial_state(rng)
    h = Hasher()
    step = 0
    while True:
        h.add(_fields(s, STATE_FIELDS), game.current_player(s), game.is_terminal(s), game.returns(s))
        legal = game.legal_actions(s)
        h.add(legal, game.legal_mask(s))
        for seat in range(game.num_players):
            v = game.view(s, seat)
            h.add(_fields(v, VIEW_FIELDS), enc.encode(v))
        if step % 7 == 0:
            h.add(game.render(s))
            v = game.view(s, s.current)
            t = game.sample_state(v, srng)
            h.add(_fields(t, STATE_FIELDS), _fields(game.view(t, s.current), VIEW_FIELDS))
        for a in [*range(-1, 10), np.int64(3), 2.0, True]:
            try:
                t = game.apply(s, a)
                h.add("ok", a, _fields(t, STATE_FIELDS))
            except IllegalActionError as err:
                h.add("illegal", a, str(err))
            except Exception as err:  # noqa: BLE001 - record whatever it was
                h.add("error", type(err).__name__, str(err))
        if game.is_terminal(s):
            break
        a = choose(rng, legal, seed)
        s = game.apply(s, a)
        h.add(a)
        step += 1
    h.add(game.winners(s), step)
    return h.hexdigest()


def compute_all() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, opts, seeds in CASES:
        for seed in seeds:
            out[f"engine/{name}/{seed}"] = engine_digest(opts, seed)
            out[f"raw_env/{name}/{seed}"] = env_digest(raw_env, opts, seed)
            out[f"env/{name}/{seed}"] = env_digest(env, opts, seed)
        out[f"env_illegal/{name}/{seeds[0]}"] = env_digest(env, opts, seeds[0], illegal_every=25)
        out[f"raw_env_trunc/{name}/{seeds[0]}"] = env_digest(lambda **o: raw_env(max_turns=60, **o), opts, seeds[0])
    return out


_KEYS = [(kind, name, seed) for name, _, seeds in CASES for seed in seeds for kind in ("engine", "raw_env", "env")] + [
    (kind, name, seeds[0]) for name, _, seeds in CASES for kind in ("env_illegal", "raw_env_trunc")
]


@pytest.fixture(scope="module")
def golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text())


def test_golden_covers_every_case(golden):
    assert sorted(golden) == sorted(f"{k}/{n}/{s}" for k, n, s in _KEYS)


@pytest.mark.parametrize("kind,name,seed", _KEYS, ids=[f"{k}/{n}/{s}" for k, n, s in _KEYS])
def test_golden(golden, kind, name, seed):
    opts = {n: o for n, o, _ in CASES}[name]
    if kind == "engine":
        got = engine_digest(opts, seed)
    elif kind == "raw_env":
        got = env_digest(raw_env, opts, seed)
    elif kind == "env":
        got = env_digest(env, opts, seed)
    elif kind == "env_illegal":
        got = env_digest(env, opts, seed, illegal_every=25)
    else:
        got = env_digest(lambda **o: raw_env(max_turns=60, **o), opts, seed)
    assert got == golden[f"{kind}/{name}/{seed}"]


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python -m tests.envs.lama.test_lama_golden --write  (records the CURRENT behaviour)")
    GOLDEN.write_text(json.dumps(compute_all(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
