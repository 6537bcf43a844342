"""Confidence intervals used by every report (95% unless told otherwise)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as _stats

Z95 = float(_stats.norm.ppf(0.975))


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (good near 0 and 1)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(samples: Sequence[float] | np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation interval `(mean, low, high)` of i.i.d. samples."""
    x = np.asarray(samples, dtype=float)
    n = len(x)
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    m = float(x.mean())
    if n == 1:
        return (m, float("-inf"), float("inf"))
    half = z * float(x.std(ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


def interval_text(low: float, high: float, digits: int = 3) -> str:
    """An interval as the tables print it, `[low, high]` with `digits` decimals; "n/a" where it has no finite
    bound (`mean_interval` of a single sample is `(-inf, inf)`: one deal says nothing about the spread) or none
    at all (NaN, no samples)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return "n/a"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def fixed(x: float, digits: int) -> str:
    """`x` with `digits` decimals, a value that rounds to zero printed without a sign (`0.0000`, never
    `-0.0000`: a payoff of -1e-17 from floating-point sums is an even game, not a loss)."""
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def plural(count: int, word: str) -> str:
    """`count` and `word`, with an s unless the count is one ("1 game", "2,000 games")."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def two_sample_tolerance(p: float, n_ours: int, n_paper: int, z: float = Z95) -> float:
    """Tolerance for the difference of two independent proportion estimates
    (ours over `n_ours` games, the paper's over `n_paper`)."""
    return z * math.sqrt(max(p * (1 - p), 1e-12) * (1 / n_ours + 1 / n_paper))
