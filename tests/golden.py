"""The shared frame of the golden regression tests (`tests/envs/<game>/test_<game>_golden.py`).

A game's golden test names its cases `(name, options, wrapped, max_turns, p_illegal)` and a function
`case_hashes(options, wrapped, max_turns, p_illegal, seed) -> [hash per episode]`; its expected hashes live
in a JSON file beside it, written once by running the test file as a script with `--write`, before a change
to the engine, and never regenerated to make a change pass.
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

Hashes = Callable[..., list[str]]

# Info keys added after the goldens were written; each is hashed already (the mask with the
# observation, the refused action as the action played), so leaving them out keeps the goldens.
LATER_INFO_KEYS = ("action_mask", "illegal_action")


def old_info(info: dict) -> dict:
    """`info` without the keys added after the goldens were written."""
    return {k: v for k, v in info.items() if k not in LATER_INFO_KEYS}


def hash_array(h: Any, a: np.ndarray) -> None:
    """Feed an array's dtype, shape and bytes to the hash `h`."""
    h.update(f"{a.dtype.str}{a.shape}".encode())
    h.update(np.ascontiguousarray(a).tobytes())


def random_move(rng: np.random.Generator, mask: np.ndarray, p_illegal: float) -> int:
    """A uniformly random legal action of `mask`, or with probability `p_illegal` (drawn only when > 0) a uniformly
    random masked one."""
    legal = np.flatnonzero(mask)
    if p_illegal and rng.random() < p_illegal:
        illegal = np.flatnonzero(mask == 0)
        return int(illegal[rng.integers(len(illegal))])
    return int(legal[rng.integers(len(legal))])


def aec_hashes(env: Any, seed: int, episodes: int, choose: Callable[[Any, Any, dict], int],
               extra: Callable[[Any, Any], None] | None = None) -> list[str]:
    """One hash per episode of `episodes` played on the AEC `env` (episode e reset with seed `seed * 100 + e`):
    at every step the acting seat's observation, reward, ends and info, every live seat's observation, mask and
    view, the env's rewards, cumulative rewards, terminations, truncations and infos, the engine's legal actions,
    then `extra(h, raw_env)` (a game's own additions) and the action, `choose(h, raw_env, obs)` (which may hash
    more) on a live step."""
    raw = env.unwrapped
    out = []
    for ep in range(episodes):
        h = hashlib.sha256()
        env.reset(seed=seed * 100 + ep)
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            h.update(f"{agent}|{rew!r}|{term!r}|{trunc!r}|{sorted(old_info(info).items())!r}".encode())
            hash_array(h, obs["observation"])
            hash_array(h, obs["action_mask"])
            for a in env.agents:
                o = env.observe(a)
                hash_array(h, o["observation"])
                hash_array(h, o["action_mask"])
                h.update(repr(raw.view(a)).encode())
            h.update(repr(sorted(env.rewards.items())).encode())
            h.update(repr(sorted(env._cumulative_rewards.items())).encode())
            h.update(repr(sorted(env.terminations.items())).encode())
            h.update(repr(sorted(env.truncations.items())).encode())
            h.update(repr(sorted((k, sorted(old_info(v).items())) for k, v in env.infos.items())).encode())
            h.update(repr(raw.game.legal_actions(raw.game_state)).encode())
            if extra is not None:
                extra(h, raw)
            action = None if term or trunc else choose(h, raw, obs)
            h.update(repr(action).encode())
            env.step(action)
        h.update(repr((env.agents, raw.game_state)).encode())
        out.append(h.hexdigest()[:32])
    return out


def all_hashes(cases: Sequence[tuple[Any, ...]], case_hashes: Hashes) -> dict[str, list[str]]:
    """Every case's hashes, case i seeded i + 1."""
    return {name: case_hashes(*rest, seed=i + 1) for i, (name, *rest) in enumerate(cases)}


def check(golden: Path, cases: Sequence[tuple[Any, ...]], case_hashes: Hashes, case: int) -> None:
    """Assert that case `case` hashes as the golden file says."""
    name, *rest = cases[case]
    expected = json.loads(golden.read_text())[name]
    assert case_hashes(*rest, seed=case + 1) == expected


def golden_test(golden: Path, cases: Sequence[tuple[Any, ...]], case_hashes: Hashes) -> Callable[[int], None]:
    """The test function of a game's golden file: one parametrised test a case (bind it as `test_golden`)."""

    @pytest.mark.filterwarnings("ignore")
    @pytest.mark.parametrize("case", range(len(cases)), ids=[c[0] for c in cases])
    def test_golden(case: int) -> None:
        check(golden, cases, case_hashes, case)

    return test_golden


def main(golden: Path, cases: Sequence[tuple[Any, ...]], case_hashes: Hashes, script: str) -> None:
    """`python <script> --write`: write the golden file (only before changing the engine)."""
    if "--write" not in sys.argv:
        sys.exit(f"usage: python {script} --write  (only before changing the engine)")
    warnings.simplefilter("ignore")
    golden.write_text(json.dumps(all_hashes(cases, case_hashes), indent=1) + "\n")
    print(f"wrote {golden}")
