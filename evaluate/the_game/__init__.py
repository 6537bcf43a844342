"""The Game's evaluation jobs: the seed's Monte Carlo table and the official-rules baselines (`reproduce`)."""
