"""RoboRally (classic priority-card edition): the pure rules engine.

Rules: the 2005 Avalon Hill rulebook (the project's RoboRally specification, its 2005 review deciding where older
summaries differ); the action space follows the seed report on a Monte-Carlo strategy for RoboRally, §1.1. The turn,
the actions and every simplification are described in docs/roborally.md ("Rules as implemented", "Actions").
Every shuffle comes from `State.seed` and the turn number, so `apply` is a pure function.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import permutations
from operator import attrgetter
from typing import Literal, NamedTuple

import numpy as np

from envs.core.game import IllegalActionError, check_move_limit, unchecked_constructor
from envs.roborally.board import DX, DY, EXPRESS, GEAR_CCW, GEAR_CW, PIT, REPAIR, REPAIR2, Board, check_race, load_board
from envs.roborally.cards import KINDS, NUM_CARDS, STEPS, TURN, card_name
from envs.roborally.programs import equivalence_classes, program_cards, reduced_programs

REGISTERS = 5
HAND = 9
MAX_DAMAGE = 10  # 10 damage destroys
REENTRY_DAMAGE = 2
#: Neighbour order for re-entry onto a taken archive: N, E, S, W, NE, SE, SW, NW.
REENTRY_OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1))

#: Register mode: action i < 9 plays hand slot i; then NOOP and POWER_DOWN.
NOOP = HAND
POWER_DOWN = HAND + 1
#: Program mode: the ordered 5-tuples of distinct hand slots 0..8 (15,120), in
#: lexicographic order; action p plays tuple p, p + 15120 plays it and announces
#: a power down, then PROGRAM_NOOP and PROGRAM_POWER_DOWN.
PROGRAM_TUPLES: tuple[tuple[int, ...], ...] = tuple(permutations(range(HAND), REGISTERS))
PROGRAM_INDEX = {t: i for i, t in enumerate(PROGRAM_TUPLES)}
NUM_PROGRAMS = len(PROGRAM_TUPLES)
PROGRAM_NOOP = 2 * NUM_PROGRAMS
PROGRAM_POWER_DOWN = 2 * NUM_PROGRAMS + 1

RULES = ("classic", "seed")
#: Options filled from the `rules` preset when left as None. "seed": the seed's
#: decision problem is a program only (no power down); flags repair as in the
#: older rule summaries.
PRESETS = {
    "classic": {"card_numbering": "classic", "flags_repair": False, "power_down": True},
    "seed": {"card_numbering": "classic", "flags_repair": True, "power_down": False},
}


@lru_cache(maxsize=64)
def _load(spec: str) -> Board:
    return load_board(spec)


@dataclass(frozen=True)
class Config:
    """Options of RoboRally (defaults: the 2005 rules).

    Attributes:
        board: a shipped board name, a path to a `.rrb` file or "random:<seed>[:WxH]".
        num_robots: 2..8, at most the board's start squares.
        lives: lives per robot (None: the board's `lives:` line, else 3).
        rules: "classic" (2005) or "seed" (programs only, flags repair); fills the options left as None.
        card_numbering: "classic" or "roborace".
        flags_repair: flags repair 1 damage in cleanup like wrenches.
        crushers: crushers are active.
        power_down: robots may power down (adds the power round / POWER_DOWN actions).
        double_repair_heals: damage a double wrench repairs (1 or 2).
        action_mode: "register" (one card per sub-step) or "program" (a whole program per sub-step).
        card_classes: the seed's card classes: the mask offers one card of each class of interchangeable cards
            (True, the seed's reduced programs); False offers every card (every ordered program).
        reward: "win" (+1 to the winner) or "progress" (plus potential-based shaping, see `potential`).
        max_turns: game turns after which the game stops without a winner (None: never).
    """

    board: str = "race_easy"
    num_robots: int = 2
    lives: int | None = None
    rules: Literal["classic", "seed"] = "classic"
    card_numbering: Literal["classic", "roborace"] | None = None
    flags_repair: bool | None = None
    crushers: bool = False
    power_down: bool | None = None
    double_repair_heals: int = 1
    action_mode: Literal["register", "program"] = "register"
    card_classes: bool = True
    reward: Literal["win", "progress"] = "win"
    max_turns: int | None = 100

    def __post_init__(self) -> None:
        if self.rules not in PRESETS:
            raise ValueError(f"rules must be one of {list(RULES)}, got {self.rules!r}")
        for key, default in PRESETS[self.rules].items():
            if getattr(self, key) is None:
                object.__setattr__(self, key, default)
        choices = {
            "card_numbering": ("classic", "roborace"),
            "action_mode": ("register", "program"),
            "reward": ("win", "progress"),
        }
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise ValueError(f"{key} must be one of {list(allowed)}, got {getattr(self, key)!r}")
        for key in ("flags_repair", "crushers", "power_down", "card_classes"):
            v = getattr(self, key)
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{key} must be True or False, got {v!r}")
            object.__setattr__(self, key, bool(v))
        if self.double_repair_heals not in (1, 2) or isinstance(self.double_repair_heals, bool):
            raise ValueError(f"double_repair_heals must be one of [1, 2], got {self.double_repair_heals!r}")
        if not isinstance(self.board, str):
            raise ValueError(f"board must be a shipped board name, a .rrb path or 'random:<seed>', got {self.board!r}")
        board = _load(self.board)  # ValueError naming the shipped boards
        n = self.num_robots
        hi = min(8, len(board.starts))
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= hi:
            raise ValueError(f"num_robots must be an integer in 2..{hi} (board {board.name!r} has "
                             f"{len(board.starts)} start squares), got {n!r}")
        object.__setattr__(self, "num_robots", int(n))
        lives = self.lives
        if lives is not None and (isinstance(lives, bool) or not isinstance(lives, (int, np.integer)) or lives < 1):
            raise ValueError(f"lives must be a positive integer or None (the board's, else 3), got {lives!r}")
        check_move_limit(self.max_turns)

    @property
    def board_obj(self) -> Board:
        """The resolved board (loaded once per spec)."""
        return _load(self.board)


@dataclass(frozen=True, slots=True)
class Robot:
    """One robot: `next_flag` the 0-based flag to touch next (the flag count after the last), `on_board` False
    while destroyed and once eliminated, `archive_x/y/facing` where it re-enters (-1: unset), `announced` powers down
    next turn, `stay_down` a powered-down robot staying down."""

    x: int
    y: int
    facing: int
    damage: int = 0
    lives: int = 3
    next_flag: int = 0
    on_board: bool = True
    powered_down: bool = False
    eliminated: bool = False
    archive_x: int = -1
    archive_y: int = -1
    archive_facing: int = 0
    announced: bool = False
    stay_down: bool = False


_robot = unchecked_constructor(Robot)


class Shot(NamedTuple):
    """One traced laser beam from (x0, y0) to (x1, y1); `robot` = the shooter, None for a board laser."""

    x0: int
    y0: int
    x1: int
    y1: int
    robot: int | None


class Frame(NamedTuple):
    """The robots after register phase `register` (1..5) of the last executed turn, its shots, and `cards[i]`: the
    card robot i ran in that register (0: none, as a powered-down or destroyed robot)."""

    register: int
    robots: tuple[Robot, ...]
    shots: tuple[Shot, ...]
    cards: tuple[int, ...] = ()


class State(NamedTuple):
    """The whole truth: `step` the programming sub-step of the turn (seat = step mod n, round = step div n),
    `hands[i]` robot i's hand as dealt (sorted), `used[i]` a bit mask of its placed slots, `registers[i]` 5 cards
    (0 = empty), the deck in draw order, `winner` (-1: none yet), `turn` the executed turns."""

    seed: int
    turn: int
    step: int
    robots: tuple[Robot, ...]
    hands: tuple[tuple[int, ...], ...]
    used: tuple[int, ...]
    registers: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    winner: int
    frames: tuple[Frame, ...]


class View(NamedTuple):
    """What one robot's player knows: everything public, its own hand and registers,
    everyone's locked registers, the other hands' sizes."""

    seat: int
    turn: int
    step: int
    robots: tuple[Robot, ...]
    hand: tuple[int, ...]
    used: int
    registers: tuple[int, ...]
    locked: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    winner: int
    over: bool


def locked_count(damage: int) -> int:
    """Registers locked at `damage` (registers 10 − d .. 5 for d >= 5)."""
    return min(REGISTERS, max(0, damage - 4))


def free_registers(damage: int) -> int:
    """Registers a robot with `damage` fills this turn."""
    return REGISTERS - locked_count(damage)


def public_state(view: View) -> State:
    """The turn start `view` shows: its robots, the seat's registers and the others' locked ones; no hands, no deck."""
    n = len(view.robots)
    registers = tuple(tuple(view.registers) if i == view.seat else view.locked[i] for i in range(n))
    return State(0, view.turn, 0, view.robots, ((),) * n, (0,) * n, registers, (), (), view.winner, ())


@lru_cache(maxsize=4096)
def _slot_classes(hand: tuple[int, ...], numbering: str, card_classes: bool = True) -> tuple[int, ...]:
    """Class index of each slot of a sorted hand."""
    of = {c: j for j, cl in enumerate(equivalence_classes(hand, numbering, card_classes)) for c in cl}
    return tuple(of[c] for c in hand)


@lru_cache(maxsize=4096)
def canonical_programs(hand: tuple[int, ...], k: int, numbering: str, card_classes: bool = True) -> tuple[int, ...]:
    """Program-mode indices (into PROGRAM_TUPLES) of the reduced programs of `hand` with k free
    registers (`card_classes=False`: of every program); positions k..4 hold the smallest unused slots (a filler)."""
    classes = equivalence_classes(hand, numbering, card_classes)
    slot_of = {c: i for i, c in enumerate(hand)}
    return tuple(sorted(program_action([slot_of[c] for c in program_cards(classes, prog)])
                        for prog in reduced_programs([len(c) for c in classes], k)))


def program_action(slots: Sequence[int]) -> int:
    """The program-mode action (into PROGRAM_TUPLES) playing hand `slots` in register order, then the smallest
    unused slots (the filler)."""
    rest = [s for s in range(HAND) if s not in slots]
    return PROGRAM_INDEX[tuple(slots) + tuple(rest[:REGISTERS - len(slots)])]


def potential(board: Board, robot: Robot) -> float:
    """The shaping potential Φ of one robot (reward="progress"): (f + 1 − min(d, D)/D) / K with f flags
    claimed, K flags, d BFS steps from the robot (its archive while off the board) to its next flag, D = width + height;
    0 for an eliminated robot and after the last flag."""
    k = len(board.flags)
    if robot.eliminated or robot.next_flag >= k:
        return 0.0
    x, y = (robot.x, robot.y) if robot.on_board else (robot.archive_x, robot.archive_y)
    big = board.width + board.height
    d = int(board.distances(board.flags[robot.next_flag])[y, x])
    if d < 0:
        d = big
    return (robot.next_flag + 1 - min(d, big) / big) / k


class RoboRallyGame:
    """RoboRally over immutable `State`s; programming rounds are simultaneous (`simultaneous_rounds`,
    `seat_mask`): the Parallel adapter plays a round per step."""

    simultaneous_rounds = True

    def __init__(self, config: Config | None = None):
        self.config = config if config is not None else Config()
        c = self.config
        self.board = c.board_obj
        self.num_players = c.num_robots
        self.lives = c.lives if c.lives is not None else (self.board.lives or 3)
        self.numbering = c.card_numbering
        self._kinds = KINDS[c.card_numbering]
        if c.action_mode == "register":
            self.num_actions = HAND + 1 + (1 if c.power_down else 0)
            self.rounds = REGISTERS + (1 if c.power_down else 0)
            self.noop = NOOP
        else:
            self.num_actions = PROGRAM_POWER_DOWN + 1 if c.power_down else PROGRAM_NOOP + 1
            self.rounds = 1
            self.noop = PROGRAM_NOOP
        self.steps_per_turn = self.rounds * self.num_players
        b = self.board
        self._w, self._h = b.width, b.height
        self._floor = b.floor.tolist()
        self._belt = b.belt_dir.tolist()
        self._rot = b.rotating.tolist()
        self._walls = b.walls.tolist()
        self._flags = b.flags
        self._flag_at = {xy: i for i, xy in enumerate(b.flags)}
        self._pushers = [tuple(p for p in b.pushers if r in p.registers) for r in range(1, REGISTERS + 1)]
        self._crushers = [tuple(p for p in b.crushers if r in p.registers) if c.crushers else ()
                          for r in range(1, REGISTERS + 1)]
        self._gears = [(x, y, 1 if self._floor[y][x] == GEAR_CW else 3)
                       for y in range(self._h) for x in range(self._w) if self._floor[y][x] in (GEAR_CW, GEAR_CCW)]
        self._repair = {(x, y): (1 if self._floor[y][x] == REPAIR else c.double_repair_heals)
                        for y in range(self._h) for x in range(self._w) if self._floor[y][x] in (REPAIR, REPAIR2)}
        if c.flags_repair:
            for xy in b.flags:
                self._repair.setdefault(xy, 1)
        self._archives = set(self._repair) | set(b.flags)
        self._phi0 = None

    # ------------------------------------------------------------------ setup
    def initial_state(self, rng: np.random.Generator) -> State:
        """Robots on their start squares, the first deal drawn from a seed taken from `rng`."""
        return self.deal(int(rng.integers(2**63 - 1)))

    def deal(self, seed: int) -> State:
        """The game of deal seed `seed`: robots on their start squares, turn t's cards shuffled from (seed, t)
        (a vector env's `info["deal_seed"]` replays here; `envs.roborally.fast.deal_seeded` deals the same).

        Raises:
            BoardError: the board can hold no race (no flag, a flag out of a start's reach) and no move cap
                (`max_turns`) ends the game."""
        if self.config.max_turns is None:
            check_race(self.board)
        return self._deal(seed, 0, self.initial_robots(), ((0,) * REGISTERS,) * self.num_players, ())

    def setup(self, robots: list[Robot], seed: int = 0, registers=None, turn: int = 0) -> State:
        """A state at the start of a turn with the given robots (unset archives: their squares;
        locked registers may be given in `registers`, 5 cards a robot)."""
        if len(robots) != self.num_players:
            raise ValueError(f"expected {self.num_players} robots, got {len(robots)}")
        fixed = tuple(r if r.archive_x >= 0 else replace(r, archive_x=r.x, archive_y=r.y, archive_facing=r.facing)
                      for r in robots)
        regs = tuple(tuple(r) for r in registers) if registers is not None else ((0,) * REGISTERS,) * len(robots)
        return self._deal(seed, turn, fixed, regs, ())

    def _deal(self, seed, turn, robots, registers, frames) -> State:
        """Start a turn: powered-down robots discard their damage, all unlocked cards are shuffled, hands dealt.
        Twins: `envs.roborally.fast._start_next_turn` (the damage and the registers), `fast.deal_seeded`."""
        robots = list(robots)
        registers = [list(r) for r in registers]
        for i, r in enumerate(robots):
            if r.powered_down and r.damage:
                robots[i] = replace(r, damage=0)
            nl = locked_count(robots[i].damage) if robots[i].on_board else 0
            for j in range(REGISTERS - nl):
                registers[i][j] = 0
        held = {c for regs in registers for c in regs if c}
        deck = [c for c in range(1, NUM_CARDS + 1) if c not in held]
        np.random.default_rng((seed, turn)).shuffle(deck)
        hands = []
        pos = 0
        for r in robots:
            if r.on_board and not r.powered_down:
                n = HAND - r.damage
                hands.append(tuple(sorted(deck[pos:pos + n])))
                pos += n
            else:
                hands.append(())
        return State(seed, turn, 0, tuple(robots), tuple(hands), (0,) * len(robots),
                     tuple(tuple(r) for r in registers), tuple(deck[pos:]), (), -1, frames)

    # ------------------------------------------------------------------ protocol
    def current_player(self, state: State) -> int:
        """The seat whose sub-step it is."""
        return state.step % self.num_players

    def is_terminal(self, state: State) -> bool:
        """A robot won, every robot is eliminated, or `max_turns` turns were played."""
        return self.over_reason(state) is not None

    def over_reason(self, state: State) -> str | None:
        """"win", "eliminated", "max_turns", or None while the game goes on."""
        if state.winner >= 0:
            return "win"
        if all(r.eliminated for r in state.robots):
            return "eliminated"
        if self.config.max_turns is not None and state.turn >= self.config.max_turns:
            return "max_turns"
        return None

    def truncated(self, state: State) -> bool:
        """The game stopped at `max_turns`, not by its rules (environments show it as truncation)."""
        return self.over_reason(state) == "max_turns"

    def winners(self, state: State) -> tuple[int, ...]:
        """The winning robot, if any."""
        return (state.winner,) if state.winner >= 0 else ()

    def returns(self, state: State) -> tuple[float, ...]:
        """+1 for the winner; with reward="progress" plus Φ(s) − Φ(s0) (Φ = 0 once a robot won or all are out)."""
        n = self.num_players
        win = [1.0 if i == state.winner else 0.0 for i in range(n)]
        if self.config.reward == "win":
            return tuple(win)
        if self._phi0 is None:
            self._phi0 = tuple(potential(self.board, r) for r in self.initial_robots())
        ended = state.winner >= 0 or all(r.eliminated for r in state.robots)
        return tuple(
            win[i] + (0.0 if ended else potential(self.board, r)) - self._phi0[i]
            for i, r in enumerate(state.robots)
        )

    def initial_robots(self) -> tuple[Robot, ...]:
        """The robots on their start squares."""
        return tuple(
            _robot(s.x, s.y, s.facing, 0, self.lives, 0, True, False, False, s.x, s.y, s.facing, False, False)
            for s in self.board.starts[: self.num_players]
        )

    def legal_actions(self, state: State) -> list[int]:
        """Legal action ids of the seat to act (empty iff terminal)."""
        if self.is_terminal(state):
            return []
        return self._legal(state, self.current_player(state))

    def seat_mask(self, state: State, seat: int) -> np.ndarray:
        """`seat`'s mask in the current round (its legal moves do not depend on the others' in the round)."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not self.is_terminal(state):
            mask[self._legal(state, seat)] = 1
        return mask

    def legal_mask(self, state: State) -> np.ndarray:
        """The int8 mask of the seat to act."""
        return self.seat_mask(state, self.current_player(state))

    def _legal(self, state: State, seat: int) -> list[int]:
        r = state.robots[seat]
        rnd = state.step // self.num_players
        if self.config.action_mode == "program":
            return self._legal_program(state, seat)
        if rnd < REGISTERS:
            hand = state.hands[seat]
            if not hand or rnd >= min(free_registers(r.damage), len(hand)):
                return [NOOP]
            used = state.used[seat]
            classes = _slot_classes(hand, self.numbering, self.config.card_classes)
            seen = set()
            out = []
            for i, cl in enumerate(classes):
                if not used >> i & 1 and cl not in seen:
                    seen.add(cl)
                    out.append(i)
            return out
        return [NOOP, POWER_DOWN] if self._may_power(r) else [NOOP]

    def _may_power(self, r: Robot) -> bool:
        if not r.on_board or r.eliminated:
            return False
        if r.powered_down:
            return True  # stay down next turn
        return r.damage >= 1 and not r.announced

    def _legal_program(self, state: State, seat: int) -> list[int]:
        r = state.robots[seat]
        hand = state.hands[seat]
        power = self.config.power_down and self._may_power(r)
        if not hand:
            return [PROGRAM_NOOP, PROGRAM_POWER_DOWN] if power else [PROGRAM_NOOP]
        k = min(free_registers(r.damage), len(hand))
        progs = list(canonical_programs(hand, k, self.numbering, self.config.card_classes))
        if power:
            progs += [p + NUM_PROGRAMS for p in progs]
        return progs

    def apply(self, state: State, action: int) -> State:
        """The state after the current seat's sub-step (the turn executes after the last one)."""
        if self.is_terminal(state):
            raise IllegalActionError(action, self.current_player(state), "the game is over")
        seat = self.current_player(state)
        legal = self._legal(state, seat)
        if action not in legal:
            raise IllegalActionError(action, seat, "not legal in this sub-step", legal=legal)
        robots, used, registers = self._place(state, seat, action)
        step = state.step + 1
        new = state._replace(step=step, robots=robots, used=used, registers=registers)
        if step == self.steps_per_turn:
            return self._execute(new)
        return new

    def _place(self, state: State, seat: int, action: int):
        """(robots, used, registers) after `seat` plays the legal `action` in the current round."""
        rnd = state.step // self.num_players
        robots, used, registers = state.robots, state.used, state.registers
        if self.config.action_mode == "register":
            if rnd < REGISTERS:
                if action != NOOP:
                    regs = list(registers[seat])
                    regs[rnd] = state.hands[seat][action]
                    registers = registers[:seat] + (tuple(regs),) + registers[seat + 1:]
                    used = used[:seat] + (used[seat] | 1 << action,) + used[seat + 1:]
            elif action == POWER_DOWN:
                robots = self._power_choice(robots, seat)
        elif action != PROGRAM_NOOP:
            if action == PROGRAM_POWER_DOWN or action >= NUM_PROGRAMS:
                robots = self._power_choice(robots, seat)
            if action < PROGRAM_NOOP:
                slots = PROGRAM_TUPLES[action % NUM_PROGRAMS]
                hand = state.hands[seat]
                k = min(free_registers(robots[seat].damage), len(hand))
                regs = list(registers[seat])
                mask = 0
                for j in range(k):
                    regs[j] = hand[slots[j]]
                    mask |= 1 << slots[j]
                registers = registers[:seat] + (tuple(regs),) + registers[seat + 1:]
                used = used[:seat] + (mask,) + used[seat + 1:]
        return robots, used, registers

    def _power_choice(self, robots, seat):
        r = robots[seat]
        r = replace(r, stay_down=True) if r.powered_down else replace(r, announced=True)
        return robots[:seat] + (r,) + robots[seat + 1:]

    # ------------------------------------------------------------------ the turn
    def execute_turn(self, state: State, programs) -> State:
        """Run one turn with the given programs (`programs[i]`: robot i's cards for
        registers 1.., 0 = empty; locked registers keep theirs; the cards are taken from wherever they are)."""
        regs = []
        for i, prog in enumerate(programs):
            r = state.robots[i]
            nl = locked_count(r.damage) if r.on_board else 0
            cur = list(state.registers[i])
            for j in range(REGISTERS - nl):
                cur[j] = int(prog[j]) if j < len(prog) else 0
            regs.append(tuple(cur))
        placed = [c for reg in regs for c in reg if c]
        if len(set(placed)) != len(placed) or not all(1 <= c <= NUM_CARDS for c in placed):
            raise ValueError(f"programs must use distinct cards 1..{NUM_CARDS}, got {regs}")
        taken = set(placed)
        deck = tuple(c for c in state.deck if c not in taken)
        rest = tuple(sorted(set(range(1, NUM_CARDS + 1)) - taken - set(deck)))
        n = self.num_players
        st = state._replace(step=self.steps_per_turn, hands=((),) * n, used=(0,) * n, registers=tuple(regs),
                            deck=deck, discard=rest)
        return self._execute(st)

    def _execute(self, state: State) -> State:
        """Execute the programmed turn: five register phases (§4.4: `move_robots`,
        `board_elements`, `fire_lasers`, `touch_checkpoints`), then the end of turn (§4.5). Twin: `fast.turn_kernel`."""
        turn = _Turn(self, state)
        move_robots, board_elements, fire_lasers, touch_checkpoints, freeze = (
            turn.move_robots, turn.board_elements, turn.fire_lasers, turn.touch_checkpoints, turn.robots)
        frames = []
        for ri in range(REGISTERS):
            cards = move_robots(ri)
            board_elements(ri)
            shots = fire_lasers()
            touch_checkpoints()
            robots = freeze()
            frames.append(Frame(ri + 1, robots, shots, cards))
            if turn.winner >= 0:
                n = self.num_players
                return State(state.seed, state.turn + 1, 0, robots, ((),) * n, (0,) * n,
                             tuple(tuple(r) for r in turn.regs), tuple(turn.deck), tuple(turn.discard), turn.winner,
                             tuple(frames))
        turn.repair()
        turn.power_down_bookkeeping()
        turn.reenter()
        return self._deal(state.seed, state.turn + 1, turn.robots(), turn.regs, tuple(frames))

    # ------------------------------------------------------------------ information
    def view(self, state: State, seat: int) -> View:
        """Seat's information set: public robots, own hand and registers, everyone's locked registers."""
        locked = []
        for i, r in enumerate(state.robots):
            nl = locked_count(r.damage) if r.on_board else 0
            regs = state.registers[i]
            locked.append(tuple(regs[j] if j >= REGISTERS - nl else 0 for j in range(REGISTERS)))
        return View(seat, state.turn, state.step, state.robots, state.hands[seat], state.used[seat],
                    state.registers[seat], tuple(locked), tuple(len(h) for h in state.hands), state.winner,
                    self.is_terminal(state))

    def sample_state(self, view: View, rng: np.random.Generator) -> State:
        """A state consistent with `view`: the other hands dealt from the unseen cards, placed cards chosen
        at random among each other robot's legal placements, and a fresh seed for future shuffles."""
        seat = view.seat
        n = self.num_players
        seen = set(view.hand) | {c for c in view.registers if c} | {c for lk in view.locked for c in lk if c}
        unseen = [c for c in range(1, NUM_CARDS + 1) if c not in seen]
        rng.shuffle(unseen)
        hands, registers, used = [], [], []
        pos = 0
        for i in range(n):
            if i == seat:
                hands.append(view.hand)
                registers.append(view.registers)
                used.append(view.used)
                continue
            size = view.hand_sizes[i]
            hands.append(tuple(sorted(unseen[pos:pos + size])))
            pos += size
            registers.append(view.locked[i])
            used.append(0)
        deck = tuple(unseen[pos:])
        state = State(int(rng.integers(2**63 - 1)), view.turn, 0, view.robots, tuple(hands), tuple(used),
                      tuple(registers), deck, (), view.winner, ())
        if not view.over:
            # The other seats' sub-steps of this turn so far, replayed with uniformly random legal placements
            # (their power choices are public in the robots already).
            for step in range(view.step):
                s = step % n
                if s == seat:
                    continue
                st = state._replace(step=step)
                legal = [a for a in self._legal(st, s) if a < self.noop]
                if legal:
                    _, u, regs = self._place(st, s, int(legal[rng.integers(len(legal))]))
                    state = state._replace(used=u, registers=regs)
        return state._replace(step=view.step)

    # ------------------------------------------------------------------ text
    def action_to_string(self, state: State, action: int) -> str:
        """E.g. "register 2: M2/700", "NOOP", "POWER_DOWN", or a whole program."""
        seat = self.current_player(state)
        hand = state.hands[seat]
        if action == self.noop:
            return "NOOP"
        if action == self.noop + 1:  # POWER_DOWN or PROGRAM_POWER_DOWN
            return "POWER_DOWN"
        if self.config.action_mode == "register":
            rnd = state.step // self.num_players
            if 0 <= action < len(hand):
                return f"register {rnd + 1}: {card_name(hand[action], self.numbering)}"
            return f"slot {action}"
        slots = PROGRAM_TUPLES[action % NUM_PROGRAMS]
        k = min(free_registers(state.robots[seat].damage), len(hand))
        text = " ".join(card_name(hand[s], self.numbering) for s in slots[:k] if s < len(hand))
        return text + (" + POWER_DOWN" if action >= NUM_PROGRAMS else "")

    def render(self, state: State) -> str:
        """The board with its coordinates and the robots (`render.ansi`), the turn and the winner."""
        from envs.roborally.render import ansi

        text = ansi(self.board, state.robots, coords=True)
        head = f"RoboRally on {self.board.name!r}, turn {state.turn + 1}, sub-step {state.step}"
        reason = self.over_reason(state)
        if reason == "win":
            head += f"; robot {state.winner + 1} won"  # robots are numbered from 1 everywhere
        elif reason:
            head += f"; over ({reason})"
        return head + "\n" + text


#: `_Turn`'s working lists, one per `Robot` field, in field order (read and written at C speed by `attrgetter`).
_COLUMNS = ("px", "py", "fc", "dmg", "lives", "nf", "on", "pd", "elim", "ax", "ay", "af", "ann", "stay")
_FIELDS_OF, _COLUMNS_OF = attrgetter(*Robot.__slots__), attrgetter(*_COLUMNS)


class _Turn:
    """One executing turn: a mutable working copy of the robots (one list per `Robot` field) and cards, with
    the rulebook's steps of a register phase (§4.4) and of the end of turn (§4.5) as methods, each paired with the
    kernel of the same name (leading underscore) in `envs.roborally.fast`."""

    __slots__ = ("game", "n", *_COLUMNS, "regs", "deck", "discard", "occ", "destroyed", "winner")

    def __init__(self, game: RoboRallyGame, state: State):
        self.game = game
        rb = state.robots
        n = self.n = len(rb)
        for column, values in zip(_COLUMNS, zip(*map(_FIELDS_OF, rb))):
            setattr(self, column, list(values))
        px, py, on = self.px, self.py, self.on
        self.regs = [list(r) for r in state.registers]
        self.deck = list(state.deck)
        discard = self.discard = list(state.discard)
        # Unplayed hand cards are discarded when the turn executes.
        for i in range(n):
            u = state.used[i]
            discard.extend(c for s, c in enumerate(state.hands[i]) if not u >> s & 1)
        self.occ = {(px[i], py[i]): i for i in range(n) if on[i]}
        self.destroyed: list[int] = []
        self.winner = -1

    def robots(self) -> tuple[Robot, ...]:
        """The robots of the working copy, frozen."""
        return tuple(map(_robot, *_COLUMNS_OF(self)))

    # ------------------------------------------------------------------ what any step may do to a robot
    def destroy(self, i: int) -> None:
        """Robot i is destroyed (rulebook §6): off the board, a life lost (eliminated at none), its registers'
        cards discarded, power down and any announcement cancelled. Twin: `fast._destroy`."""
        on = self.on
        if not on[i]:
            return
        on[i] = False
        occ = self.occ
        xy = (self.px[i], self.py[i])
        if occ.get(xy) == i:
            del occ[xy]
        self.lives[i] -= 1
        if self.lives[i] <= 0:
            self.elim[i] = True
        self.destroyed.append(i)
        reg, discard = self.regs[i], self.discard
        for j in range(REGISTERS):
            if reg[j]:
                discard.append(reg[j])
                reg[j] = 0
        self.pd[i] = self.ann[i] = self.stay[i] = False

    def push_step(self, i: int, d: int) -> bool:
        """Robot i steps toward d, pushing the chain of robots ahead (rulebook §5, "Pushing"); False if a wall
        anywhere in the chain stops it (nobody moves). A robot pushed or stepping into a pit or off the board is
        destroyed. Twin: `fast._push_step` (with `fast._place`)."""
        px, py, occ = self.px, self.py, self.occ
        g = self.game
        W, H, walls = g._w, g._h, g._walls
        chain = [i]
        x, y = px[i], py[i]
        while True:
            if walls[y][x] >> d & 1:
                return False
            x, y = x + DX[d], y + DY[d]
            if not (0 <= x < W and 0 <= y < H):
                break
            j = occ.get((x, y))
            if j is None:
                break
            chain.append(j)
        floor, dx, dy = g._floor, DX[d], DY[d]
        for j in reversed(chain):
            xy = (px[j], py[j])
            if occ.get(xy) == j:
                del occ[xy]
            x, y = xy[0] + dx, xy[1] + dy
            px[j], py[j] = x, y
            if not (0 <= x < W and 0 <= y < H) or floor[y][x] == PIT:
                self.destroy(j)
            else:
                occ[(x, y)] = j
        return True

    def damage(self, i: int, amount: int) -> None:
        """Robot i takes `amount` damage (rulebook §6, §7): destroyed at 10; a powered-down robot's newly locked
        register takes the deck's top card. Twin: `fast._damage`."""
        if not self.on[i] or amount <= 0:
            return
        dmg = self.dmg
        before = locked_count(dmg[i])
        dmg[i] += amount
        if dmg[i] >= MAX_DAMAGE:
            self.destroy(i)
            return
        if self.pd[i]:
            reg, deck = self.regs[i], self.deck
            for j in range(REGISTERS - locked_count(dmg[i]), REGISTERS - before):
                if not reg[j] and deck:
                    reg[j] = deck.pop(0)

    # ------------------------------------------------------------------ a register phase (rulebook §4.4)
    def move_robots(self, ri: int) -> tuple[int, ...]:
        """Register phase, steps 1-2, "reveal" and "robots move" (rulebook §4.4.1-2, §5): every robot on the
        board and not powered down runs the card in register `ri` (0-based), in descending card order, each
        finishing its card (step by step, `push_step`) before the next starts; rotations turn in place.
        Returns the card each robot ran (0: none). Twin: `fast._move_robots`."""
        on, pd, fc, regs = self.on, self.pd, self.fc, self.regs
        kinds = self.game._kinds
        order = sorted((regs[i][ri], i) for i in range(self.n) if on[i] and not pd[i] and regs[i][ri])
        ran = [0] * self.n
        for card, i in order:
            ran[i] = card
        push_step = self.push_step
        for card, i in reversed(order):
            if not on[i]:
                continue
            kind = kinds[card]
            steps = STEPS[kind]
            if steps == 0:
                fc[i] = (fc[i] + TURN[kind]) % 4
                continue
            d = fc[i] if steps > 0 else (fc[i] + 2) % 4
            for _ in range(abs(steps)):
                if not push_step(i, d) or not on[i]:
                    break
        return tuple(ran)

    def board_elements(self, ri: int) -> None:
        """Register phase, step 3, "board elements move" (rulebook §4.4.3), in order: a. express belts, b. express
        and normal belts (`convey`), c. the pushers active in register `ri` push, d. gears rotate, e. the crushers
        active in `ri` crush (option `crushers`). Twin: `fast._board_elements`."""
        g, occ, fc = self.game, self.occ, self.fc
        self.convey(True)
        self.convey(False)
        for p in g._pushers[ri]:
            i = occ.get((p.x, p.y))
            if i is not None:
                self.push_step(i, p.direction)
        for x, y, t in g._gears:
            i = occ.get((x, y))
            if i is not None:
                fc[i] = (fc[i] + t) % 4
        for p in g._crushers[ri]:
            i = occ.get((p.x, p.y))
            if i is not None:
                self.destroy(i)

    def convey(self, express_only: bool) -> None:
        """Register phase, step 3a (`express_only`) or 3b: the belts move the robots on them one square, all at
        once (rulebook §4.4.3, belt conflicts): robots converging on one square, swapping or in a cycle stay, a
        robot blocked by one that does not move stays, carried robots never push; a robot carried onto a
        rotating belt square turns with the belt. Twin: `fast._convey`."""
        g = self.game
        floor, belt, walls = g._floor, g._belt, g._walls
        px, py, on = self.px, self.py, self.on
        movers = {}
        for i in range(self.n):
            if not on[i]:
                continue
            x, y = px[i], py[i]
            d = belt[y][x]
            if d < 0 or (express_only and floor[y][x] != EXPRESS):
                continue
            if walls[y][x] >> d & 1:
                continue
            movers[i] = (x + DX[d], y + DY[d], d)
        if not movers:
            return
        occ = self.occ
        counts: dict[tuple[int, int], int] = {}
        for tx, ty, _ in movers.values():
            counts[(tx, ty)] = counts.get((tx, ty), 0) + 1
        moving = {i for i, (tx, ty, _) in movers.items() if counts[(tx, ty)] == 1}
        changed = True
        while changed:
            changed = False
            for i in list(moving):
                tx, ty, _ = movers[i]
                j = occ.get((tx, ty))
                if j is not None and j not in moving:
                    moving.discard(i)
                    changed = True
            if not changed:
                # Cycles (a swap is a cycle of two): nobody in one moves.
                for i in list(moving):
                    seen = [i]
                    j = occ.get(movers[i][:2])
                    while j is not None and j in moving and j not in seen:
                        seen.append(j)
                        j = occ.get(movers[j][:2])
                    if j is not None and j == i:
                        for s in seen:
                            moving.discard(s)
                        changed = True
                        break
        order = sorted(moving)
        W, H, rot, fc = g._w, g._h, g._rot, self.fc
        for i in order:
            if occ.get((px[i], py[i])) == i:
                del occ[(px[i], py[i])]
        for i in order:
            tx, ty, d = movers[i]
            px[i], py[i] = tx, ty
            if not (0 <= tx < W and 0 <= ty < H) or floor[ty][tx] == PIT:
                self.destroy(i)
                continue
            occ[(tx, ty)] = i
            nd = belt[ty][tx]
            if nd >= 0 and rot[ty][tx]:
                turn = (nd - d) % 4
                if turn in (1, 3):
                    fc[i] = (fc[i] + turn) % 4

    def fire_lasers(self) -> tuple[Shot, ...]:
        """Register phase, step 4, "lasers fire" (rulebook §4.4.4): every board laser and every robot on the board
        and not powered down fire from the positions after the board elements; a beam stops at a wall and at the
        first robot, which takes one damage per beam once all beams are traced (`damage`). Returns the traced
        beams. Twin: `fast._fire_lasers`."""
        g = self.game
        W, H, walls = g._w, g._h, g._walls
        px, py, fc, on, pd, occ = self.px, self.py, self.fc, self.on, self.pd, self.occ
        n = self.n
        hits = [0] * n
        shots = []
        for las in g.board.lasers:
            x, y, d = las.x, las.y, las.direction
            while True:
                j = occ.get((x, y))
                if j is not None:
                    hits[j] += las.beams
                    break
                if walls[y][x] >> d & 1:
                    break
                nx, ny = x + DX[d], y + DY[d]
                if not (0 <= nx < W and 0 <= ny < H):
                    break
                x, y = nx, ny
            shots.append(Shot(las.x, las.y, x, y, None))
        for i in range(n):
            if not on[i] or pd[i]:
                continue
            x, y, d = px[i], py[i], fc[i]
            while not walls[y][x] >> d & 1:
                nx, ny = x + DX[d], y + DY[d]
                if not (0 <= nx < W and 0 <= ny < H):
                    break
                x, y = nx, ny
                j = occ.get((x, y))
                if j is not None:
                    hits[j] += 1
                    break
            if (x, y) != (px[i], py[i]):
                shots.append(Shot(px[i], py[i], x, y, i))
        for i in range(n):
            if hits[i]:
                self.damage(i, hits[i])
        return tuple(shots)

    def touch_checkpoints(self) -> None:
        """Register phase, step 5, "touch checkpoints" (rulebook §4.4.5): a robot on a repair site or flag sets its
        archive there (facing its way); a robot on its next flag claims it, and the first to claim the last flag
        is the `winner`. Twin: `fast._touch_checkpoints`."""
        g = self.game
        archives, flag_at, nflags = g._archives, g._flag_at, len(g._flags)
        px, py, fc, on, nf = self.px, self.py, self.fc, self.on, self.nf
        ax, ay, af = self.ax, self.ay, self.af
        for i in range(self.n):
            if not on[i]:
                continue
            xy = (px[i], py[i])
            if xy in archives:
                ax[i], ay[i], af[i] = px[i], py[i], fc[i]
            f = flag_at.get(xy)
            if f is not None and f == nf[i]:
                nf[i] += 1
                if nf[i] == nflags and self.winner < 0:
                    self.winner = i

    # ------------------------------------------------------------------ the end of the turn (rulebook §4.5)
    def repair(self) -> None:
        """End of turn, step 1, "repairs" (rulebook §4.5.1): a robot on a wrench (or a flag, option `flags_repair`)
        removes 1 damage, on a double wrench `double_repair_heals`. Twin: `fast._repair`."""
        repairs, px, py, on, dmg = self.game._repair, self.px, self.py, self.on, self.dmg
        for i in range(self.n):
            if on[i]:
                heal = repairs.get((px[i], py[i]))
                if heal:
                    dmg[i] = max(0, dmg[i] - heal)

    def power_down_bookkeeping(self) -> None:
        """End of turn, step 3, "power-down bookkeeping" (rulebook §4.5.3, §7): a powered-down robot stays down only
        if it said so; an announced power down takes effect. Twin: `fast._power_down_bookkeeping`."""
        on, pd, ann, stay = self.on, self.pd, self.ann, self.stay
        for i in range(self.n):
            if not on[i]:
                continue
            if pd[i]:
                pd[i] = stay[i]
                stay[i] = False
            if ann[i]:
                pd[i] = True
                ann[i] = False

    def reenter(self) -> None:
        """End of turn, step 4, "re-entry" (rulebook §4.5.4, §6): robots still waiting from an earlier turn (no free
        square then), then this turn's destroyed robots in destruction order, re-enter with 2 damage on their
        archive facing its way, or on its first free on-board non-pit neighbour (`REENTRY_OFFSETS`); with every
        square taken a robot waits for the next turn. Twin: `fast._reenter`."""
        g = self.game
        W, H, floor = g._w, g._h, g._floor
        px, py, fc, dmg, on, elim, ax, ay, af = (self.px, self.py, self.fc, self.dmg, self.on, self.elim, self.ax,
                                                 self.ay, self.af)
        occ, destroyed = self.occ, self.destroyed
        waiting = [i for i in range(self.n) if not on[i] and not elim[i] and i not in destroyed]
        for i in waiting + destroyed:
            if elim[i] or on[i]:
                continue
            spot = None
            if (ax[i], ay[i]) not in occ:
                spot = (ax[i], ay[i])
            else:
                for ox, oy in REENTRY_OFFSETS:
                    x, y = ax[i] + ox, ay[i] + oy
                    if 0 <= x < W and 0 <= y < H and floor[y][x] != PIT and (x, y) not in occ:
                        spot = (x, y)
                        break
            if spot is None:
                continue  # every square taken: it waits for the next turn
            px[i], py[i] = spot
            fc[i] = af[i]
            on[i] = True
            dmg[i] = REENTRY_DAMAGE
            occ[spot] = i
