"""The vector envs' step and reset kernels compile without numba's reference counting (`envs/core/jit.py`): every
`VectorKernels` of the registered games' engines and agents (`envs.core.vector`'s, or a game's own with more
kernels) says `_nrt=False`."""

import importlib
import sys

import agents.games
import envs


def _vector_kernels() -> dict[str, tuple]:
    for game in envs.registered():
        kernels = agents.games.part(game).kernels
        if kernels:
            importlib.import_module(kernels)
    found = {}
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("envs", "agents"):
            for attr, value in vars(module).items():
                if type(value).__name__ == "VectorKernels":
                    found[f"{name}.{attr}"] = value
    return found


def test_vector_kernels_skip_reference_counting():
    found = _vector_kernels()
    assert {f"{layer}.{game}.fast.{kernels}" for game in ("lama", "the_game", "primi_composti", "roborally")
            for layer, kernels in (("agents", "VECTOR_KERNELS"), ("envs", "RANDOM_KERNELS"))} <= set(found)
    counting = [f"{name}[{i}]" for name, kernels in found.items() for i, kernel in enumerate(kernels)
                if kernel.targetoptions.get("_nrt", True)]
    assert not counting, f"vector kernels compiled with reference counting: {counting}"
