"""Evaluation: tournaments with seat rotation and duplicate deals, exact analysis,
paper reproductions and plots (`python -m evaluate`)."""
