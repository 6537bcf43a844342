"""Tic-tac-toe, added to tabletop-rl through its public extension points only (docs/architecture.md,
"Add a game"): a rules engine (`rules`), an encoder (`encoding`), the PettingZoo binding (`env`), an
agent and its default line-up (`agents`), how to describe it to a person (`evaluate`) and the `GameSpec` of what
the engine layer knows (`spec`). Nothing in `envs/`, `agents/`, `evaluate/` or `train/` names it;
`envs.register("tictactoe", "examples.tictactoe.spec:SPEC")` (or `TABLETOP_RL_GAMES=examples.tictactoe.spec:SPEC`
for the command lines) makes every shared tool play it, each layer finding its part in this package."""
