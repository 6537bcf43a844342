"""Every scenario of test_scenarios.py again, with each executed turn also run on the fast path and compared.

The plain engine's turn (`RoboRallyGame._execute`, behind both `apply` and `execute_turn`) is wrapped: the state
going in is packed, run through `FastEngine.execute_turn`, and the result must equal the plain one in robots
(positions, facings, damage, lives, flags, archives, power down), registers, winner and turn, and after every
executed register phase (the plain `frames`).
"""

import numpy as np
import pytest
import test_scenarios as scenarios

from envs.roborally.fast import NFIELDS, FastEngine
from envs.roborally.rules import REGISTERS, RoboRallyGame

make = scenarios.make
globals().update({name: getattr(scenarios, name) for name in dir(scenarios) if name.startswith("test_")})

#: Scenarios that check programming only and execute no turn.
NO_TURN = {"test_undamaged_robot_may_not_announce"}


@pytest.fixture(autouse=True)
def differential(request, monkeypatch):
    """Check the fast path against every turn the plain engine executes during the test."""
    plain = RoboRallyGame._execute
    engines: dict[int, FastEngine] = {}
    checked = []

    def checked_execute(self, state):
        after = plain(self, state)
        fe = engines.setdefault(id(self), FastEngine(self))
        trace = np.zeros((REGISTERS, self.num_players, NFIELDS), np.int32)
        fast = fe.execute_turn(fe.pack(state), np.array(state.registers), trace=trace)
        assert fe.differences(fast, after) == []
        for frame in after.frames:
            got = fe.robots_of(type(fast)(trace[frame.register - 1], fast.registers, fast.deck, fast.meta))
            assert got == frame.robots, f"register {frame.register}"
        checked.append(state.turn)
        return after

    monkeypatch.setattr(RoboRallyGame, "_execute", checked_execute)
    yield
    if request.node.originalname not in NO_TURN:
        assert checked, "the scenario executed no turn"
