"""RoboRally declared for the shared tools (`envs.core.spec.GameSpec`)."""

from __future__ import annotations

from typing import Any

from envs.core.spec import GameSpec
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.rules import Config, RoboRallyGame

BOARDS = ("tiny", "arena", "belts", "crushers", "express", "gears_pushers", "lasers", "pits_edges", "race_medium",
          "race_hard", "repair")


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents)."""
    from envs.roborally import render
    from envs.roborally.cards import card_name

    me = view.seat
    lines = [f"turn {view.turn + 1}, step {view.step}", render.ansi(game.board, view.robots)]
    for s, r in enumerate(view.robots):
        who = "you" if s == me else f"player_{s}"
        lines.append(f"  {who:>8}: damage {r.damage}, lives {r.lives}, next flag {r.next_flag + 1}"
                     f"{', powered down' if r.powered_down else ''}{', out' if r.eliminated else ''}")
    lines.append(f"  your registers: {view.registers}; your hand: {' '.join(card_name(c, game.numbering) for c in view.hand)}")
    return "\n".join(lines)


def write_picture(game: Any, view: Any, path: str) -> None:
    """A PNG of the board and the robots (public) as `view` sees them."""
    from PIL import Image

    from envs.roborally import render

    Image.fromarray(render.rgb_array(game.board, view.robots)).save(path)


SPEC = GameSpec(
    id="roborally",
    title="RoboRally",
    config_class=Config,
    game_class=RoboRallyGame,
    encoder_class=RoboRallyEncoder,
    env_module="envs.roborally_v0",
    simultaneous=True,
    public_moves=False,
    default_lineup=("roborally/greedy", "roborally/random"),
    preset_keys=("rules",),
    reward_options=("reward",),
    fuzz_variants=tuple([{"num_robots": k} for k in (1, 3, 4, 8)] + [{"lives": 1}, {"double_repair_heals": 2}]
                        + [{"board": b} for b in BOARDS]),
    move_help=(
        "register R: CARD puts that program card in register R (M1/M2/M3 move, B back up, L/R turn, "
        "U U-turn; the number is its priority); a whole program lists the cards of every free register; "
        "NOOP: no choice to make; POWER_DOWN: announce a power-down for the next turn."
    ),
    describe_view=describe_view,
    write_picture=write_picture,
    examples=(
        "roborally --agents roborally/greedy,roborally/random --games 200",
        "roborally --option board=race_medium --option num_robots=4 --agents roborally/greedy*4 --games 100",
    ),
    league_deals=20,
    league_skip={"roborally/greedy-plain": "the flag seeker on the plain engine: the same robot as roborally/greedy",
                 "roborally/greedy-teacher": "the flag seeker's register-by-register teacher: ties roborally/greedy, "
                                             "0.502 [0.454, 0.551] over 400 races"},
    agents_module="agents.roborally",
    evaluate_module="evaluate.roborally.boards",
    train_presets="train.presets.roborally",
)
