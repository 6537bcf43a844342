"""What every game shares: the engine protocol, errors, adapters and helpers."""

from envs.core.aec import GameAECEnv, UnknownAgentError, make_env_fn, standard_wrappers
from envs.core.encoding import Encoder, Field, Layout
from envs.core.game import Game, IllegalActionError, legal_mask, winners
from envs.core.options import make_config, parse_options
from envs.core.play import play_game, play_out, reseed_agent
from envs.core.single_agent import OpponentEnv

__all__ = [
    "Encoder",
    "Field",
    "Game",
    "GameAECEnv",
    "IllegalActionError",
    "Layout",
    "OpponentEnv",
    "UnknownAgentError",
    "legal_mask",
    "make_config",
    "make_env_fn",
    "parse_options",
    "play_game",
    "play_out",
    "reseed_agent",
    "standard_wrappers",
    "winners",
]
