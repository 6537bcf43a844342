"""L.A.M.A. (Knizia 2019): the published game and the seed's 2022 variant in one engine."""

from envs.lama.rules import DRAW, LLAMA, NUM_ACTIONS, QUIT, Config, LamaGame, State, View

__all__ = ["DRAW", "LLAMA", "NUM_ACTIONS", "QUIT", "Config", "LamaGame", "State", "View"]
