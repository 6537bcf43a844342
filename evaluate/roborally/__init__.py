"""RoboRally's evaluation jobs: boards listed and pictured, races recorded (`boards`), and the race studies (`study`).
Importing the package declares the game's part of the evaluate layer (`evaluate.games`): its jobs, how to describe
it to a person (terminal play), its league and examples."""

from __future__ import annotations

from typing import Any

from evaluate.games import declare


def seat_label(seat: int) -> str:
    """Robots are numbered from 1 (their start squares), in text and pictures alike."""
    return f"robot {seat + 1}"


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents): the board with
    coordinates and a legend, each robot, your registers and the cards left in your hand by name and priority,
    and which cards wait behind an interchangeable one (the seed's card classes, unless `card_classes=False`)."""
    from envs.roborally import render
    from envs.roborally.cards import card_name
    from envs.roborally.programs import equivalence_classes
    from envs.roborally.rules import REGISTERS

    me = view.seat
    n = len(view.robots)
    rnd = view.step // n + 1 if n else 1
    if rnd <= REGISTERS:
        head = f"turn {view.turn + 1}, programming register {rnd} of {REGISTERS}"
    elif view.robots[me].powered_down:
        head = f"turn {view.turn + 1}, you are powered down: NOOP powers up for the next turn, POWER_DOWN stays down"
    else:
        head = (f"turn {view.turn + 1}, your {REGISTERS} registers are set: NOOP runs the turn, POWER_DOWN also "
                "announces a power-down for the next turn")
    labels = ["you" if s == me else "" for s in range(n)]
    lines = [head,
             render.ansi(game.board, view.robots, labels=labels, coords=True), render.LEGEND]
    regs = ", ".join(f"{k + 1} {card_name(c, game.numbering) if c else '-'}" for k, c in enumerate(view.registers))
    left = [c for j, c in enumerate(view.hand) if not view.used >> j & 1]
    lines.append(f"your registers: {regs}")
    lines.append("your hand (kind/priority; M1-M3 move, B back up, R/L turn right/left, U U-turn): "
                 + (" ".join(card_name(c, game.numbering) for c in left) or "empty"))
    waiting = [cl for cl in equivalence_classes(left, game.numbering, game.config.card_classes) if len(cl) > 1]
    if waiting:
        behind = "; ".join(f"{card_name(cl[0], game.numbering)} before "
                           + ", ".join(card_name(c, game.numbering) for c in cl[1:]) for cl in waiting)
        example = card_name(waiting[0][1], game.numbering)
        lines.append(
            f"cards of one class are offered lowest first ({behind}): the seed counts every rotation card "
            "of one kind, and moves of one kind with consecutive numbers, as one card (the same effect this "
            "turn), so a program differs only in its classes (`--option card_classes=false` lists every card); "
            f"you may also type any card of your hand by name (e.g. {example}): it goes in as the lowest of "
            "its class"
        )
    return "\n".join(lines)


def _robot_change(before: Any, after: Any, flags: int) -> str:
    """How one robot changed over a register phase (or the cleanup), in words; "" when it did not."""
    if after.eliminated and not before.eliminated:
        return "eliminated"
    if not after.on_board:
        return "destroyed" if before.on_board else ""
    parts = []
    if (after.x, after.y, after.facing) != (before.x, before.y, before.facing) or not before.on_board:
        parts.append(f"{'back ' if not before.on_board else ''}at ({after.x},{after.y}) facing {'NESW'[after.facing]}")
    if after.damage != before.damage:
        parts.append(f"damage {before.damage} -> {after.damage}")
    if after.next_flag > before.next_flag:
        parts.append("touched its last flag" if after.next_flag >= flags else f"touched flag {after.next_flag}")
    return ", ".join(parts)


def round_summary(game: Any, before: Any, after: Any, names: list[str]) -> str | None:
    """When a move ran a turn: each register as it ran (the cards by priority, then what changed for each robot:
    where it ended, its damage, flags touched, destruction), then the cleanup;
    None otherwise. Hidden while programmed, the cards are public once run."""
    from envs.roborally.cards import card_name

    if after.turn == before.turn or not after.frames:
        return None
    flags = len(game.board.flags)
    lines = [f"turn {after.turn} ran, register by register (cards in priority order):"]
    prev = before.robots
    for frame in after.frames:
        played = sorted(((c, i) for i, c in enumerate(frame.cards) if c), reverse=True)
        cards = ", ".join(f"{names[i]} {card_name(c, game.numbering)}" for c, i in played) or "no cards"
        moved = [f"{names[i]} {t}" for i, (a, b) in enumerate(zip(prev, frame.robots))
                 if (t := _robot_change(a, b, flags))]
        lines.append(f"  register {frame.register}: {cards} -> " + ("; ".join(moved) or "nothing changed"))
        prev = frame.robots
    if after.winner >= 0:
        lines.append(f"  {names[after.winner]} touched the last flag and won")
        return "\n".join(lines)
    cleanup = [
        f"{names[i]} {t}" for i, (a, b) in enumerate(zip(prev, after.robots)) if (t := _robot_change(a, b, flags))
    ]
    if cleanup:
        lines.append("  cleanup (repairs, destroyed robots back at their archive): " + "; ".join(cleanup))
    return "\n".join(lines)


def write_picture(game: Any, view: Any, path: str, labels: Any = None) -> None:
    """A PNG of the board and the robots (public) as `view` sees them; `labels[i]` (who drives robot i: "you",
    an agent id) goes in a strip below, beside the robot's colour."""
    from PIL import Image

    from envs.roborally import render

    picture = render.rgb_array(game.board, view.robots)
    if labels is not None:
        picture = render.with_legend(picture, labels)
    Image.fromarray(picture).save(path)


declare(
    "roborally",
    jobs="evaluate.roborally.boards",
    goal=("be the first robot to touch every flag in order (F1, then F2, ...); each turn you program five "
          "registers with cards from your hand, and the robots move register by register, by card priority."),
    move_help=(
        "register R: CARD puts that program card in register R (M1/M2/M3 move, B back up, L/R turn, "
        "U U-turn; the number is its priority); a whole program lists the cards of every free register; "
        "instead of a listed move you may type any card of your hand (M1/560, or /560), or in program mode a whole "
        "program as its cards in register order; "
        "NOOP: no choice to make; POWER_DOWN: announce a power-down for the next turn."
    ),
    describe_view=describe_view,
    round_summary=round_summary,
    write_picture=write_picture,
    seat_label=seat_label,
    read_move="evaluate.roborally.person:read_move",
    examples=(
        "roborally --agents roborally/greedy,roborally/random --games 200",
        "roborally --option board=race_medium --option num_robots=4 --agents roborally/greedy*4 --games 100",
    ),
    league_deals=600,
    league_skip={"roborally/greedy-plain": "the flag seeker on the plain engine: the same robot as roborally/greedy",
                 "roborally/greedy-teacher": "the flag seeker's register-by-register teacher: ties roborally/greedy, "
                                             "0.502 [0.454, 0.551] over 400 races"},
    warm_up=("roborally --agents roborally/mc?budget=10,roborally/greedy --games 1",
             "roborally --agents roborally/ppo-program,roborally/greedy --games 1 --option action_mode=program "
             "--option rules=seed"),
)
