"""The Game (Benndorf): rules engine, observation encoder and PettingZoo binding."""

from envs.the_game.rules import Config, State, TheGame, View

__all__ = ["Config", "State", "TheGame", "View"]
