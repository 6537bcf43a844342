"""The readable engine's turn is the rulebook's phases, one `_Turn` method each, each naming its compiled twin."""

import re

from envs.roborally import fast
from envs.roborally.rules import _Turn

REGISTER_PHASE = ("move_robots", "board_elements", "fire_lasers", "touch_checkpoints")
END_OF_TURN = ("repair", "power_down_bookkeeping", "reenter")
HELPERS = ("destroy", "push_step", "damage", "convey")


def test_every_phase_names_its_rulebook_step_and_an_existing_twin():
    for name in REGISTER_PHASE + END_OF_TURN + HELPERS:
        doc = getattr(_Turn, name).__doc__
        assert doc and "rulebook §" in doc, name
        twins = re.findall(r"`fast\.(\w+)`", doc)
        assert twins, f"{name} names no twin in envs.roborally.fast"
        for twin in twins:
            assert callable(getattr(fast, twin, None)), f"{name}: fast.{twin} does not exist"


def test_phase_blocks_named_in_turn_kernel_exist():
    """A phase paired with a commented block of `turn_kernel` names a block that is there."""
    import inspect

    source = inspect.getsource(fast.turn_kernel.py_func)
    for name in REGISTER_PHASE + END_OF_TURN:
        blocks = re.findall(r'block "([^"]+)"', getattr(_Turn, name).__doc__)
        assert blocks, f"{name} names no block of turn_kernel"
        for block in blocks:
            assert f"# {block}" in source, f"{name}: no block {block!r} in turn_kernel"
