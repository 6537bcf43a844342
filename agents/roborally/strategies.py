"""RoboRally agents: `roborally/random` (one uniform reduced program a turn, the seed report's playout policy, §1.1)
and `roborally/greedy` (the flag seeker: the reduced program whose lone-robot end is best, a pure function of the
view). Both choose a whole program at their first decision of a turn (`agents.roborally.solo.ProgramPlanner`) and
never power down; docs/roborally.md ("Agents") describes them.
"""

from __future__ import annotations

import numpy as np

from agents.base import register
from agents.roborally.mc import MC_PARAMS, MonteCarloProgram, mc_factory
from agents.roborally.solo import ProgramPlanner, Solo, SoloSimulator, greedy_program, solo_of
from envs.roborally.programs import count_programs, equivalence_classes, program_cards, unrank
from envs.roborally.rules import RoboRallyGame, View, free_registers, public_state


class RandomProgram(ProgramPlanner):
    """Uniform over reduced programs, drawn once per turn from the view (see the module docstring)."""

    name = "roborally/random"

    def program(self, view: View) -> tuple[int, ...]:
        """A uniformly drawn reduced program of the view's hand, as hand slots in register order."""
        hand = view.hand
        k = min(free_registers(view.robots[view.seat].damage), len(hand))
        classes = equivalence_classes(hand, self.game.numbering)
        mults = [len(c) for c in classes]
        prog = unrank(mults, k, int(self.rng.integers(count_programs(mults, k))))
        return tuple(hand.index(c) for c in program_cards(classes, prog))


class GreedyProgram(ProgramPlanner):
    """The flag seeker (see the module docstring): deterministic, uses its rng only off-plan.

    `engine="fast"` (the registered agent) runs the compiled flag seeker of `agents.roborally.fast`;
    `engine="plain"` runs `greedy_program` over `SoloSimulator`, the readable search the compiled one is tested
    against (both step the robot with the compiled `envs.roborally.fast.solo_register`).
    """

    name = "roborally/greedy"

    def __init__(self, game: RoboRallyGame, rng: np.random.Generator | None = None, engine: str = "fast"):
        super().__init__(game, rng)
        if engine not in ("fast", "plain"):
            raise ValueError(f"engine must be one of ['fast', 'plain'], got {engine!r}")
        self.sim = SoloSimulator(game)
        self.engine = engine
        self._fast = None
        if engine == "fast":
            from agents.roborally.fast import FastPlayouts
            from envs.roborally.fast import FastEngine

            self._fast = FastPlayouts(FastEngine(game))

    def program(self, view: View) -> tuple[int, ...]:
        """The best program of the view's hand by its own solo simulation, as hand slots."""
        hand = view.hand
        robot = view.robots[view.seat]
        if self._fast is None:
            cards = greedy_program(self.sim, hand, robot, view.registers, self.game.numbering)
        else:
            k = min(free_registers(robot.damage), len(hand))
            fs = self._fast.engine.pack(public_state(view))
            cards = tuple(int(c) for c in self._fast.greedy(fs, view.seat, hand)[:k])
        return tuple(hand.index(c) for c in cards)


register("roborally/random", RandomProgram)
register("roborally/greedy", GreedyProgram)
register("roborally/greedy-plain", lambda game, rng: GreedyProgram(game, rng, engine="plain"),
         doc="roborally/greedy on the readable engine (a check of the compiled one; slower).")
register("roborally/mc", mc_factory, params=MC_PARAMS,
         doc="The seed's Monte-Carlo robot (playouts of candidate programs; "
             "?budget=&depth=&policy=&eval=&top=&engine=).")
register("roborally/greedy-teacher", "agents.roborally.teacher:GreedyTeacher")

__all__ = ["GreedyProgram", "MonteCarloProgram", "ProgramPlanner", "RandomProgram", "Solo", "SoloSimulator",
           "greedy_program", "solo_of"]
