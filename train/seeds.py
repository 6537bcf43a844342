"""The random streams of an SB3 run, all from its one seed: `SeedSequence(seed).spawn(n_envs + 5)` once, then
`envs[i]` (table i; `envs[0]` the vector env's seed), `agents` (self-play baselines, then the live policy, then the
snapshots) and `eval`. Every index is part of a seeded run's identity: changing one changes its results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def child(seq: np.random.SeedSequence, j: int) -> np.random.SeedSequence:
    """Child `j` of `seq`, as `seq.spawn(j + 1)[j]` on a fresh `seq`, without its counter."""
    return np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, j), pool_size=seq.pool_size)


def children(seq: np.random.SeedSequence, count: int, start: int = 0) -> list[np.random.SeedSequence]:
    """Children `start .. start + count - 1` of `seq`."""
    return [child(seq, start + j) for j in range(count)]


@dataclass(frozen=True)
class RunSeeds:
    """The named streams of a run with `n_envs` environments."""

    envs: tuple[np.random.SeedSequence, ...]
    agents: np.random.SeedSequence
    eval: np.random.SeedSequence

    @classmethod
    def from_seed(cls, seed: int, n_envs: int) -> RunSeeds:
        """Spawn every stream of the run from `seed`."""
        streams = np.random.SeedSequence(seed).spawn(n_envs + 5)
        return cls(tuple(streams[:n_envs]), streams[n_envs], streams[n_envs + 4])

    def env_seed(self, i: int) -> int:
        """Environment `i`'s integer seed."""
        return int(self.envs[i].generate_state(1)[0])

    def resumed(self, step: int) -> RunSeeds:
        """The streams of a run resumed at `step`: env i's stream becomes child `step + 1` of its own."""
        return RunSeeds(tuple(child(s, step + 1) for s in self.envs), self.agents, self.eval)
