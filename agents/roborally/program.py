"""The feature set of a program scorer over `envs.roborally.choice`'s candidate programs: `ProgramChoiceEnv`'s rows
as they are (`from_observation`), that env for a training run (`make_vector_env`) and, bound to a rules engine in
program mode (`ProgramViewFeatures`: a one-table `ProgramChoiceEnv` set to what a view shows), the same rows from a
view, each candidate at its rules-engine action (`rules_action`); docs/roborally.md ("The program scorer").
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from agents.learned import FEATURES
from envs.roborally.choice import CANDIDATES, CONTEXT_DIM, FEATURE_DIM, PER_END, ProgramChoiceEnv
from envs.roborally.choice import FEATURES as NAME
from envs.roborally.rules import PROGRAM_NOOP, program_action


def split_row(obs: np.ndarray, k: int, per: int = FEATURE_DIM, name: str = NAME) -> tuple[np.ndarray, np.ndarray]:
    """(context [C], per_candidate [k, per]) of a `ProgramChoiceEnv` row of k candidates of `per` features each
    (feature set `name`).

    Raises:
        ValueError: a row of another width."""
    obs = np.asarray(obs, np.float32).reshape(-1)
    if obs.shape[0] != CONTEXT_DIM + k * per:
        raise ValueError(f"a {name} row of {k} candidates has {CONTEXT_DIM + k * per} values, got "
                         f"{obs.shape[0]} (give ProgramChoiceEnv observations)")
    return obs[:CONTEXT_DIM], obs[CONTEXT_DIM:].reshape(k, per)


class ProgramFeatures:
    """The candidate rows of a `ProgramChoiceEnv` observation, split into (context, per_candidate). `name` is the
    feature set; `joint()` the `JointTurn` its rows go on with (None: the solo features alone)."""

    portable_options = ("board", "num_robots", "max_turns")
    name = NAME

    def joint(self) -> Any:
        """The `envs.roborally.choice.JointTurn` of these features (None: none)."""
        return None

    @property
    def per(self) -> int:
        """F: the features of one candidate."""
        j = self.joint()
        return FEATURE_DIM + (j.dim if j is not None else 0)

    def for_game(self, game: Any) -> ProgramViewFeatures:
        """The features of `game`'s views (a rules engine with `action_mode="program"`)."""
        return ProgramViewFeatures(game, self)

    def from_observation(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(context [C], per_candidate [K, F]) of a `ProgramChoiceEnv` row (K = len(mask))."""
        return split_row(obs, len(mask), self.per, self.name)

    def __call__(self, view: Any, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise ValueError(f"the {self.name} features of a view need the game: bind them first (for_game(game)), as "
                         "a saved student does")

    def make_vector_env(self, game: str, num_envs: int, *, opponents: Any, seed: int | None, control: str,
                        copy: bool = False, **options: Any) -> ProgramChoiceEnv:
        """The vector env a learner of these features trains on: `ProgramChoiceEnv` of `num_envs` tables with
        `CANDIDATES` candidates (`opponents`: agent ids with compiled kernels, or what `agents.vector_env` takes).

        Raises:
            ValueError: options without `action_mode="program"` (the saved policy plays program mode), or
                control other than "one_seat"."""
        from agents.vector import resolve_opponents

        if options.get("action_mode") != "program":
            raise ValueError(f"the {self.name} features choose whole programs: give the option action_mode=program "
                             f"(--option action_mode=program), got {options.get('action_mode', 'register')!r}")
        kernels = resolve_opponents(game, opponents, options)
        return ProgramChoiceEnv(num_envs, candidates=CANDIDATES, per_end=PER_END, joint=self.joint(),
                                opponents=kernels, seed=seed, control=control, **options)


class ProgramViewFeatures(ProgramFeatures):
    """`ProgramFeatures` bound to a rules engine: the features of a view, at the rules engine's actions.

    Raises:
        ValueError: a game that is not in program mode."""

    def __init__(self, game: Any, base: ProgramFeatures | None = None):
        base = base if base is not None else FEATURES[NAME]
        if game.config.action_mode != "program":
            raise ValueError(f"the {base.name} features play action_mode='program', got "
                             f"{game.config.action_mode!r}")
        self.game, self.base, self.name = game, base, base.name
        self._env: ProgramChoiceEnv | None = None

    def joint(self) -> Any:
        """The bound feature set's `JointTurn`."""
        return self.base.joint()

    def for_game(self, game: Any) -> ProgramViewFeatures:
        """These features where `game` is theirs, else new ones bound to `game`."""
        return self if game is self.game else ProgramViewFeatures(game, self.base)

    def env(self) -> ProgramChoiceEnv:
        """The one-table env the views are observed on (built on first use)."""
        if self._env is None:
            from envs.core.vector import RANDOM

            options = dataclasses.asdict(self.game.config)
            self._env = ProgramChoiceEnv(1, candidates=CANDIDATES, per_end=PER_END, seed=0, joint=self.joint(),
                                         opponents=[RANDOM] * (self.game.num_players - 1), **options)
        return self._env

    def __call__(self, view: Any, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(context [C], per_action [num_actions, F], offered [num_actions]) of the robot deciding at `view`:
        each candidate's row at its rules-engine action, `offered` 1 there (the actions the scorer chooses among).

        Raises:
            ValueError: a candidate that `mask` does not allow (the view is not at a program decision)."""
        row, offered, cards = self.env().observe_view(view)
        ctx, per = split_row(row, CANDIDATES, self.per, self.name)
        out = np.zeros((self.game.num_actions, self.per), np.float32)
        offer = np.zeros(self.game.num_actions, np.float32)
        for j in np.flatnonzero(offered):
            a = rules_action(view.hand, cards[j])
            if not mask[a]:
                raise ValueError(f"candidate program {cards[j].tolist()} (action {a}) is not legal for robot "
                                 f"{view.seat}: the {self.name} features read a program decision")
            out[a], offer[a] = per[j], 1.0
        return ctx, out, offer


def rules_action(hand: tuple[int, ...], cards: np.ndarray) -> int:
    """The rules engine's program-mode action of the program `cards` (its free registers' cards, 0 after) from
    `hand`: its hand slots in register order, then the smallest unused slots (`rules.canonical_programs`'s
    filler); PROGRAM_NOOP for no cards."""
    chosen = [int(c) for c in cards if c]
    if not chosen:
        return PROGRAM_NOOP
    return program_action([hand.index(c) for c in chosen])


class JointProgramFeatures(ProgramFeatures):
    """`roborally_program_joint`: each candidate's row goes on with the columns of its joint turn, the other robots
    playing the flag seeker's programs for hands dealt from the unseen cards (`agents.roborally.joint`)."""

    name = "roborally_program_joint"

    def joint(self) -> Any:
        """`agents.roborally.joint.joint_turn()`."""
        from agents.roborally.joint import joint_turn

        return joint_turn()


FEATURES[NAME] = ProgramFeatures()
FEATURES[JointProgramFeatures.name] = JointProgramFeatures()
