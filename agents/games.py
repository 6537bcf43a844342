"""Each game's part of the agents layer (default line-up, compiled opponent kernels, compiled whole-game runner,
exact analyses), declared by the game's own agents package with `declare` (docs/architecture.md, "agents: who plays");
`part(game)` imports that package the first time the game is asked for, so the shared tools name no game.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import envs


@dataclass(frozen=True)
class GameAgents:
    """What the agents layer knows of one game.

    Attributes:
        game: the game id.
        default_lineup: agent ids by seat for a table without given agents (`python -m evaluate GAME`,
            `gymnasium.make(id)`): the strongest baseline first, then the next strongest; the last id fills the
            other seats.
        kernels: the module of the opponents' compiled kernels for the game's batched env
            (`opponent_kernel(agent_id, options)`, `KERNEL_IDS`), or None.
        compiled_games: "module:function", the game's compiled whole-game runner for tournaments
            (`function(game, ids, max_turns[, policies]) -> play`, as `evaluate.tournament` describes), or None.
        exact_values: "module:function" giving exact head-to-head values of agents,
            `function(game, ids, built_agents) -> {id: {id: value}} | None` (leagues print it), or None.
        exploitability: "module:function" giving each agent's exact exploitability,
            `function(game, ids, built_agents) -> {id: float | None} | None`, or None.
        compile_seconds: about how long the compiled runner's kernels take to compile on a fresh numba cache
            (one core; what a first run's progress bar says), or None.
    """

    game: str
    default_lineup: tuple[str, ...] = ("random",)
    kernels: str | None = None
    compiled_games: str | None = None
    exact_values: str | None = None
    exploitability: str | None = None
    compile_seconds: float | None = None

    def __post_init__(self) -> None:
        if not self.default_lineup:
            raise ValueError(f"{self.game}: default_lineup needs at least one agent id")

    def lineup(self, num_players: int) -> list[str]:
        """The default line-up for a table of `num_players` seats."""
        ids = list(self.default_lineup[:num_players])
        return ids + [self.default_lineup[-1]] * (num_players - len(ids))


class Parts:
    """One layer's parts of the games, each declared by the game's own package of that layer: `<suite>.<game>` for
    the suite's games (registered from `envs.<game>`), `<home>.<beside>` for a game registered from a package
    outside the suite (`envs.home`). The agents, evaluate and train layers each keep one."""

    def __init__(self, suite: str, beside: str, make: Callable[..., Any]):
        self.suite, self.beside, self.make = suite, beside, make
        self._parts: dict[str, Any] = {}
        self._loaded: set[str] = set()

    def declare(self, game: str, **values: Any) -> Any:
        """Declare the part of `game` (`make(game, **values)`); declaring again replaces it."""
        found = self._parts[game] = self.make(game, **values)
        return found

    def withdraw(self, game: str) -> None:
        """Forget the part of `game` (tests that declare a throwaway game clean up with this)."""
        self._parts.pop(game, None)
        self._loaded.discard(game)

    def module_of(self, game: str) -> str | None:
        """The game's package of this layer, or None for a game registered as a bare spec."""
        home = envs.home(game)
        if home == f"envs.{game}":
            return f"{self.suite}.{game}"
        return f"{home}.{self.beside}" if home else None

    def module(self, game: str) -> ModuleType | None:
        """The game's package of this layer, imported (once), or None where it has none."""
        name = self.module_of(game)
        if name is None:
            return None
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            return None

    def part(self, game: str) -> Any:
        """The part of a registered game (its package imported the first time; `make(game)` where it declares
        none).

        Raises:
            ValueError: an unknown game, naming the registered ones.
        """
        envs.spec(game)
        if game not in self._loaded:
            self.module(game)
            self._loaded.add(game)
        return self._parts.get(game) or self.make(game)


#: The agents layer's parts of the games.
PARTS = Parts("agents", "agents", GameAgents)
declare, withdraw, part, module_of = PARTS.declare, PARTS.withdraw, PARTS.part, PARTS.module_of


def default_lineup(game: str) -> tuple[str, ...]:
    """The game's default line-up (`GameAgents.default_lineup`)."""
    return part(game).default_lineup
