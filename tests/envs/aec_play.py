"""Playing the PettingZoo AEC envs in tests, written once: whole episodes under a move chooser, the first position
with a masked action, PettingZoo's conformance tests of a game's module.

Test files in tests/envs import it directly; those in tests/envs/<game>/ after
`sys.path.append(str(Path(__file__).parents[1]))` (tests/envs, after the installed packages).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from pettingzoo.test import api_test, seed_test

Choose = Callable[[str, dict], int]


def random_legal(rng: np.random.Generator, check: Callable[[str, dict], None] | None = None) -> Choose:
    """A chooser of uniformly random legal actions (`rng.choice` over the mask's legal ones); `check(agent, obs)`
    sees every observation it chooses for."""

    def choose(agent: str, obs: dict) -> int:
        if check is not None:
            check(agent, obs)
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    return choose


def lowest_legal(agent: str, obs: dict) -> int:
    """The chooser of the lowest legal action."""
    return int(np.flatnonzero(obs["action_mask"])[0])


def play(env: Any, choose: Choose, seed: int | None = None) -> tuple[dict[str, float], int]:
    """Play the AEC `env` (reset with `seed` unless None) to its end, `choose(agent, obs)` acting for every live
    seat and `None` for the finished ones. Returns (each agent's summed rewards, the live steps played)."""
    if seed is not None:
        env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        totals[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        env.step(choose(agent, obs))
        steps += 1
    return totals, steps


def play_a_masked_action(env: Any, seeds: Iterable[int], mask_of: Callable[[dict, dict], np.ndarray],
                         max_iter: int) -> tuple[str, int] | None:
    """Play lowest legal actions (episodes of `seeds`, at most `max_iter` steps each) until a seat has a masked
    action, and play the first one. Returns (that agent, the action), or None if no position had one.
    `mask_of(obs, info)` says where the env puts its mask."""
    for seed in seeds:
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=max_iter):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                break
            mask = mask_of(obs, info)
            illegal = np.flatnonzero(mask == 0)
            if len(illegal):
                env.step(int(illegal[0]))
                return agent, int(illegal[0])
            env.step(int(np.flatnonzero(mask)[0]))
    return None


def conformance(module: Any, options: dict, cycles: int, seed_cycles: int, seed_raw: bool = False) -> None:
    """PettingZoo's `api_test` on a game module's `env(**options)` and `raw_env(**options)`, its `seed_test` on
    `env` (and `raw_env` with `seed_raw`)."""
    api_test(module.raw_env(**options), num_cycles=cycles)
    api_test(module.env(**options), num_cycles=cycles)
    for make in (module.env, module.raw_env) if seed_raw else (module.env,):
        seed_test(lambda make=make: make(**options), num_cycles=seed_cycles)
