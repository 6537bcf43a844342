"""Evaluation: tournaments with seat rotation and duplicate deals, exact analysis,
paper reproductions and plots (`python -m evaluate`). Each game's own package
(`evaluate/<game>/`) declares its jobs and how to describe it to a person (`evaluate.games.part(game)`)."""

from evaluate import games  # noqa: F401  (the evaluate layer's parts of the games)
