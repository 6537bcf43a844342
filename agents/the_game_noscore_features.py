"""The ablation feature set `the_game_noscore` (defined with the full set in `agents.the_game_features`)."""

import agents.the_game_features  # noqa: F401  (registers both feature sets)
