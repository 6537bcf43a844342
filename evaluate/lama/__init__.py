"""L.A.M.A.'s evaluation jobs: the seed's tables reproduced and strategy 3 re-tuned (`reproduce`)."""
