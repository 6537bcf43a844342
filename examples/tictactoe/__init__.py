"""Tic-tac-toe, added to tabletop-rl by files alone, through its public extension points (docs/architecture.md,
"Add a game", walks through these files): nothing in `envs/`, `agents/`, `evaluate/` or `train/` names it, and
`envs.register("tictactoe", "examples.tictactoe.spec:SPEC")` makes every shared tool play it."""
