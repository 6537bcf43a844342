"""The game loop's helpers: re-seeding agents."""

from __future__ import annotations

import numpy as np

from agents.base import RandomAgent
from agents.policy import MixtureAgent
from envs.core.play import reseed_agent


class Hooked:
    def __init__(self):
        self.got = None

    def reseed(self, rng):
        self.got = rng


class Deterministic:
    def act(self, view, mask):
        return int(np.flatnonzero(mask)[0])


def test_reseed_agent_uses_the_hook_then_the_rng_attribute():
    rng = np.random.default_rng(1)
    hooked = Hooked()
    assert reseed_agent(hooked, rng) and hooked.got is rng
    plain = RandomAgent(rng=np.random.default_rng(0))
    assert reseed_agent(plain, rng) and plain.rng is rng
    assert not reseed_agent(Deterministic(), rng)


def test_mixture_reseeds_itself_and_its_members():
    members = [RandomAgent(rng=np.random.default_rng(i)) for i in range(3)]
    mix = MixtureAgent(members, np.random.default_rng(9))

    def draws(seed):
        reseed_agent(mix, np.random.default_rng(seed))
        out = []
        for _ in range(20):
            mix.reset()
            out.append((members.index(mix.current), mix.act(None, np.ones(5, dtype=np.int8))))
        return out

    assert draws(4) == draws(4) and draws(4) != draws(5)
    assert len({id(m.rng) for m in members} | {id(mix.rng)}) == 4  # independent streams
