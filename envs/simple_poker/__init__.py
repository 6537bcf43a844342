"""Simple poker: cards 1..n, ante A, one bet B (Grothmann's "Most Simple Poker Game")."""

from envs.simple_poker.rules import BET, PASS, Config, SimplePokerGame, State, View

__all__ = ["BET", "PASS", "Config", "SimplePokerGame", "State", "View"]
