"""The seeded shuffle every card game deals with (Fisher–Yates driven by a SplitMix64 stream), and SplitMix64 itself
in numpy.

One readable home (`shuffled` and `np_mix64`, numpy, for the rules engines and the vector envs' Python side) and one
compiled home (`envs.core.kernels.shuffle`, `envs.core.vector.nb_mix64`, for the kernels): the same seed gives the
same numbers in both, bit for bit. Kept free of numba and Gymnasium, so that importing a rules engine imports neither.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_M64 = (1 << 64) - 1
_U = np.uint64
_U_GOLDEN = _U(0x9E3779B97F4A7C15)
_STEPS = np.arange(1, 128, dtype=np.uint64) * _U_GOLDEN  # a stream's first 127 states, less its key (mod 2**64)
_DIVISORS = np.arange(128, 1, -1, dtype=np.uint64)  # i + 1 for i = 127 .. 1
_S30, _S27, _S31, _M1, _M2 = _U(30), _U(27), _U(31), _U(0xBF58476D1CE4E5B9), _U(0x94D049BB133111EB)


def np_mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function of every element of the uint64 array `z` (numpy's uint64 arithmetic wraps, as
    SplitMix64 needs)."""
    z = z ^ (z >> _S30)  # a new array: the rest works in place
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


def shuffled(cards: Sequence[int], key: int) -> list[int]:
    """`cards` in a uniformly random order drawn from generator state `key` (0 <= key < 2**64).

    Fisher–Yates from the last card down, card i swapped with card `z mod (i + 1)`, z the SplitMix64 draws of the
    stream started at `key` (the modulo bias is below 2^-57 for 100 cards). Mirrored exactly by
    `envs.core.kernels.shuffle`.
    """
    out = list(cards)
    n = len(out)
    steps, divisors = (_STEPS[: max(n - 1, 0)], _DIVISORS[128 - n:]) if n <= 128 else (
        np.arange(1, n, dtype=np.uint64) * _U_GOLDEN, np.arange(n, 1, -1, dtype=np.uint64))
    for i, j in zip(range(n - 1, 0, -1), (np_mix64(steps + _U(int(key) & _M64)) % divisors).tolist()):
        out[i], out[j] = out[j], out[i]
    return out


__all__ = ["np_mix64", "shuffled"]
