"""Observation helpers: a flat tensor made of named slices, and the encoder protocol.

An encoder turns a seat's *view* into a fixed-shape numpy *observation*. Games
describe their observation once as a `Layout` of named fields; the layout gives
the Gymnasium `Box` (bounds included) and addresses each field by name, so the
encoding documents itself and tests can check slices by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import gymnasium
import numpy as np


class Encoder(Protocol):
    """Turns a view into an observation of a fixed `observation_space`."""

    observation_space: gymnasium.spaces.Box

    def encode(self, view: Any) -> np.ndarray:
        """The observation of `view` (a new array, inside `observation_space`)."""


@dataclass(frozen=True)
class Field:
    """One named slice of a flat observation."""

    name: str
    size: int
    low: float = 0.0
    high: float = 1.0


class Layout:
    """A flat observation vector built from named fields.

    Example:
        >>> lay = Layout([Field("card", 3), Field("role", 2)])
        >>> buf = lay.zeros(); buf[lay["card"]][1] = 1; buf.tolist()
        [0.0, 1.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, fields: list[Field], dtype: Any = np.float32):
        self.fields = tuple(fields)
        self.dtype = np.dtype(dtype)
        self.slices: dict[str, slice] = {}
        lows, highs = [], []
        start = 0
        for f in self.fields:
            if f.name in self.slices:
                raise ValueError(f"duplicate field name {f.name!r}")
            self.slices[f.name] = slice(start, start + f.size)
            start += f.size
            lows += [f.low] * f.size
            highs += [f.high] * f.size
        self.size = start
        self.space = gymnasium.spaces.Box(
            low=np.array(lows, dtype=self.dtype), high=np.array(highs, dtype=self.dtype), dtype=self.dtype
        )

    def __getitem__(self, name: str) -> slice:
        return self.slices[name]

    def zeros(self) -> np.ndarray:
        """A new all-zero observation buffer."""
        return np.zeros(self.size, dtype=self.dtype)

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The observation cut into its named fields (for tests and debugging)."""
        return {name: obs[s] for name, s in self.slices.items()}
