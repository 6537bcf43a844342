"""Self-play opponents: a pool of frozen snapshots and baselines, weighed by a meta-solver."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.policy import MixtureAgent
from agents.search.matrix_game import solve_matrix_game
from envs.core.play import play_game
from train.networks import to_student


class OpponentPool:
    """Opponents for self-play: frozen snapshots of the learner and baseline agents, weighed by the meta-strategy:
    `"uniform"` (fictitious play) or `"nash"` (PSRO's: the exact Nash of the members' payoff matrix, two-player
    zero-sum games). The live policy plays only until the first snapshot exists (against one's own last iterate,
    play cycles in games whose equilibria are mixed)."""

    def __init__(self, game: Any, baselines: list[Any], pool_size: int, meta_solver: str = "uniform",
                 match_value: Any = None):
        self.game = game
        self.baselines = list(baselines)
        self.pool_size = pool_size
        self.meta_solver = meta_solver
        self.match_value = match_value
        self.snapshots: list[Any] = []
        self.live: Any = None
        self.payoff = np.zeros((0, 0))  # payoff[i, j]: member i's mean result against member j
        self.weights = np.zeros(0)

    def members(self) -> list[Any]:
        """Everything an opponent seat can be drawn from."""
        out = list(self.snapshots) + self.baselines
        if not self.snapshots and self.live is not None:
            out.append(self.live)
        return out

    def add(self, agent: Any) -> None:
        """Add a snapshot (dropping the oldest past `pool_size`) and re-solve the meta-game."""
        if self.meta_solver == "nash":  # its row and column go after the snapshots, before the baselines
            row = np.array([self.match_value(agent, m) for m in list(self.snapshots) + self.baselines])
            ns = len(self.snapshots)
            self.payoff = np.insert(np.insert(self.payoff, ns, -row, axis=1), ns, np.insert(row, ns, 0.0), axis=0)
        self.snapshots.append(agent)
        if len(self.snapshots) > self.pool_size:
            self.snapshots.pop(0)
            if self.meta_solver == "nash":
                self.payoff = self.payoff[1:, 1:]
        self._solve()

    def _solve(self) -> None:
        k = len(self.snapshots) + len(self.baselines)
        if self.meta_solver == "uniform" or k == 0:
            self.weights = np.full(k, 1.0 / max(k, 1))
            return
        _, self.weights = solve_matrix_game(self.payoff.T)  # column player = the mixture, rows = its opponents

    def mixture(self, rng: np.random.Generator) -> Any:
        """The pool's meta-strategy as one agent (what a self-play run ships)."""
        k = len(self.snapshots)
        w = self.weights[:k] if len(self.weights) else np.ones(k)
        if w.sum() <= 0:  # the meta-Nash is all on baselines: fall back to the newest snapshot
            w = np.eye(k)[-1]
        return MixtureAgent(list(self.snapshots), rng, weights=w)


def simulated_match_value(game: Any, games: int, seed: int):
    """`value(a, b)`: a's mean return against b over `games` seeded deals, each
    played from both seats (two-player games)."""
    def value(a: Any, b: Any) -> float:
        rng = np.random.default_rng(seed)
        total = 0.0
        for _ in range(games):
            start = game.initial_state(rng)
            total += play_game(game, [a, b], start)[0][0] + play_game(game, [b, a], start)[0][1]
        return total / (2 * games)

    return value


class VectorPool:
    """An `OpponentPool` seated in a two-player compiled vector env, each member drawn per table at each episode's
    start by the meta-strategy: snapshots and the live policy as batch policies (or a snapshot's compiled twin,
    `kernel_of(agent)`), baselines as their `baseline_kernels`. `sync()` reseats it after each snapshot."""

    def __init__(self, pool: OpponentPool, venv: Any, baseline_kernels: list[Any], kernel_of: Any = None):
        from envs.core.vector import BatchPolicy

        self.pool, self.venv, self.kernel_of = pool, venv, kernel_of
        self.kernels = {id(a): k for a, k in zip(pool.baselines, baseline_kernels)}
        self._batch: dict[int, Any] = {}
        self._live_fn: Any = None
        # the live policy (played until the first snapshot) is attached once the learner exists
        self.live = BatchPolicy(lambda obs, mask, rows, rng: self._live_fn(obs, mask, rows, rng), "live")

    def attach_live(self, policy: Any) -> None:
        """The learner's policy object (SB3 `model.policy`): what the live member plays, as it trains."""
        from agents.vector import batch_policy

        self._live_fn = batch_policy(policy, play="sample", name="live").fn

    def _member(self, agent: Any) -> Any:
        if agent is self.pool.live:
            return self.live
        if id(agent) in self.kernels:
            return self.kernels[id(agent)]
        if id(agent) not in self._batch:
            from agents.vector import batch_policy

            # the game's exact compiled twin of a frozen policy where it has one (no Python call per turn)
            member = self.kernel_of(agent) if self.kernel_of is not None else None
            self._batch[id(agent)] = (agent, member if member is not None else
                                      batch_policy(agent.policy, play="sample", name=agent.name))
        return self._batch[id(agent)][1]

    def opponents(self) -> Any:
        """The pool as the vector env's `Pool`."""
        from envs.core.vector import Pool

        members = self.pool.members() if (self.pool.snapshots or self.pool.baselines) else [self.pool.live]
        w = self.pool.weights if len(self.pool.weights) == len(members) else None
        ups = [[self._member(m)] for m in members]
        if w is not None and np.sum(w) <= 0:
            w = None
        # snapshots dropped from the pool free their batch policies (the env keeps those still seated)
        keep = {id(m) for m in members}
        self._batch = {k: v for k, v in self._batch.items() if k in keep}
        return Pool(ups, () if w is None else tuple(float(x) for x in w))

    def sync(self) -> None:
        """Seat the pool's present members and weights (at each table's next episode)."""
        self.venv.set_opponents(self.opponents())


class League:
    """The opponents of a league run (`--league-every`), a `Pool` in every table group (env, options) drawn per
    table at its next reset: half the draws the `target(players)` line-up, half one member (a `baselines` id or one
    of the `size` newest snapshots, sampling as batch policies) in every opponent seat."""

    def __init__(self, game: str, groups: list[tuple[Any, dict[str, Any]]], target: Callable[[int], list[str]],
                 baselines: Sequence[str], size: int):
        import envs

        self.game, self.groups, self.target = game, list(groups), target
        self.baselines, self.size = list(baselines), int(size)
        self.engines = [envs.make_game(game, **opts) for _, opts in self.groups]
        self.snapshots: list[list[Any]] = []  # one BatchPolicy per group for each snapshot, oldest first
        self.students: dict[int, Any] = {}  # snapshot number -> its student
        self.weights: dict[int, dict[str, Any]] = {}  # snapshot number -> the learner's weights then
        self.added = 0
        self.install()

    def add(self, policy: Any, rules: dict[str, Any]) -> None:
        """Freeze `policy` (its present weights) as the newest snapshot and seat the new pool."""
        if self.size == 0:
            return
        self.added += 1
        self.weights[self.added] = {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}
        self.students[self.added] = to_student(policy, self.game, rules)
        self.snapshots.append(self._seatable(self.added))
        del self.snapshots[:-self.size]
        self.install()
        held = set(self._held())
        for k in [k for k in self.students if k not in held]:  # neither in the pool nor seated at a table
            del self.students[k], self.weights[k]

    def _held(self) -> list[int]:
        """The snapshots the pool or a slot of a group's env holds."""
        from envs.core.vector_state import batch_registry

        seated = {_snapshot_number(p) for venv, _ in self.groups for reg in batch_registry(venv) for p in reg}
        seated.discard(None)
        return sorted(seated | {_snapshot_number(snap[0]) for snap in self.snapshots})

    def _seatable(self, number: int) -> list[Any]:
        """Snapshot `number` as one batch policy per group (named `snapshot <number>`)."""
        from agents.vector import batch_policy

        student, name = self.students[number], f"snapshot {number}"
        return [batch_policy(student, game=g, play="sample", name=name) for g in self.engines]

    def state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The league as a checkpoint keeps it: (numbers: the snapshots added, those in the pool, the snapshot in
        each slot of each group's envs; tensors: the weights of every snapshot a pool or a slot holds)."""
        from envs.core.vector_state import batch_registry

        # a slot holds a snapshot (its number), a policy of the line-up (its name: the env seats it anew) or none
        slots = [[[p if p is None else _snapshot_number(p) or p.name for p in reg] for reg in batch_registry(venv)]
                 for venv, _ in self.groups]
        pool = [_snapshot_number(snap[0]) for snap in self.snapshots]
        return {"added": self.added, "pool": pool, "slots": slots}, {str(k): self.weights[k] for k in self._held()}

    def restore(self, numbers: dict[str, Any], tensors: dict[str, Any], template: Any, rules: dict[str, Any]) -> None:
        """Put `state()`'s output back into a league built alike (`template`: a policy of the learner's shape),
        before its envs' tables are restored: the same snapshots in the pool and in the same slots of every env
        (a table's seat code names its slot)."""
        import copy

        from envs.core.vector_state import batch_registry, set_batch_registry

        for key, weights in tensors.items():
            policy = copy.deepcopy(template)
            policy.load_state_dict(weights)
            self.weights[int(key)] = weights
            self.students[int(key)] = to_student(policy, self.game, rules)
        self.added = int(numbers["added"])
        seatable = {k: self._seatable(k) for k in self.students}
        self.snapshots = [seatable[k] for k in numbers["pool"]]
        regs = []
        for g, ((venv, _), group) in enumerate(zip(self.groups, numbers["slots"])):
            present = {p.name: p for reg in batch_registry(venv) for p in reg if p is not None}
            regs.append([[None if k is None else present[k] if isinstance(k, str) else seatable[k][g] for k in reg]
                         for reg in group])
        for (venv, _), group in zip(self.groups, regs):
            set_batch_registry(venv, group)
        self.install()  # the pool's members keep their slots; the slots' other policies come back next
        for (venv, _), group in zip(self.groups, regs):
            set_batch_registry(venv, group)

    def install(self) -> None:
        """Give every group its pool (`set_opponents`: each table seats it at its next reset)."""
        from agents.vector import resolve_opponents
        from envs.core.vector import Pool

        for i, ((venv, opts), engine) in enumerate(zip(self.groups, self.engines)):
            seats = engine.num_players - 1
            members = [[b] * seats for b in self.baselines] + [[snap[i]] * seats for snap in self.snapshots]
            pool = Pool([self.target(engine.num_players), *members], [max(len(members), 1), *[1.0] * len(members)])
            venv.set_opponents(resolve_opponents(self.game, pool, opts))


def _snapshot_number(policy: Any) -> int | None:
    """The number of a league snapshot's batch policy (named `snapshot <number>`), else None."""
    name = getattr(policy, "name", "")
    return int(name.split()[-1]) if isinstance(name, str) and name.startswith("snapshot ") else None
