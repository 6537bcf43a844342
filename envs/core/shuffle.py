"""The seeded shuffle every card game deals with: Fisher–Yates driven by a SplitMix64 stream.

One readable home (`shuffled`, plain Python, for the rules engines) and one compiled home
(`envs.core.kernels.shuffle`, for the kernels): the same seed gives the same order in both, bit for bit.
Kept free of numba and Gymnasium, so that importing a rules engine imports neither.
"""

from __future__ import annotations

from collections.abc import Sequence

_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def shuffled(cards: Sequence[int], key: int) -> list[int]:
    """`cards` in a uniformly random order drawn from generator state `key` (0 <= key < 2**64).

    Fisher–Yates from the last card down, card i swapped with card `z mod (i + 1)`, z the SplitMix64 draws of the
    stream started at `key` (the modulo bias is below 2^-57 for 100 cards). Mirrored exactly by
    `envs.core.kernels.shuffle`.
    """
    out = list(cards)
    s = int(key) & _M64
    for i in range(len(out) - 1, 0, -1):
        s = (s + _GOLDEN) & _M64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        z ^= z >> 31
        j = z % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


__all__ = ["shuffled"]
