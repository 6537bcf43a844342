"""Tic-tac-toe, added to tabletop-rl through its public extension points only (docs/architecture.md,
"Add a game"): a rules engine (`rules`), an encoder (`encoding`), the PettingZoo binding (`env`), an
agent (`agents`) and the `GameSpec` that declares them (`spec`). Nothing in `envs/`, `agents/`,
`evaluate/` or `train/` names it; `envs.register(SPEC)` (or `TABLETOP_RL_GAMES=examples.tictactoe.spec:SPEC`
for the command lines) makes every shared tool play it."""
