"""RoboRally observations: a robot's view as one flat float32 vector.

Fields (`RoboRallyEncoder.layout` names them; H×W planes are row-major, row 0 north):

| field | size | content |
|---|---|---|
| `floor` | 8·H·W | one-hot floor code (floor, pit, belt, express, gear cw, gear ccw, wrench, double wrench) |
| `belt_dir` | 4·H·W | one-hot direction a (express) belt moves toward |
| `rotating` | H·W | rotating belt squares |
| `walls` | 4·H·W | a wall on the N / E / S / W side |
| `lasers` | 4·H·W | board laser mounts by firing direction, beams / 3 |
| `pushers` | 4·H·W | pushers by pushing direction, (registers active) / 5 |
| `crushers` | H·W | crushers, (registers active) / 5 |
| `flags` | H·W | flag k as k / K |
| `own_robot`, `other_robots` | 2·H·W | robots on the board |
| `facing` | 4·H·W | one-hot facing of every robot on the board |
| `own_next_flag`, `own_archive` | 2·H·W | the own robot's next flag and archive square |
| `hand` | 9·9 | per slot (cards ascending): kind one-hot (7), card / 84, already placed |
| `registers` | 5·8 | the own registers so far: kind one-hot, card / 84 |
| `locked` | R·5·8 | every robot's locked registers (own first, then the next seats in order) |
| `robots` | R·14 | per robot (own first), the 14 values below |
| `round` | 6 | one-hot programming round (registers 1–5, the power round) |
| `turn` | 1 | turns played / max_turns (0 without a cap) |

A robot's 14 `robots` values: damage / 10, lives / L, flags claimed / K, on board, powered down, announced,
stay down, eliminated, x / W, y / H, facing one-hot (4). Every robot of a configuration sees the same space.
"""

from __future__ import annotations

import numpy as np

from envs.core.encoding import Field, Layout
from envs.roborally.board import check_race
from envs.roborally.cards import KINDS, NUM_CARDS
from envs.roborally.rules import HAND, REGISTERS, RoboRallyGame, Robot, View

KIND_COUNT = 7
CARD = KIND_COUNT + 1


class RoboRallyEncoder:
    """Encodes a `View` of `game` (see the module docstring for the fields)."""

    def __init__(self, game: RoboRallyGame):
        if not game.board.flags or game.config.max_turns is None:  # every env, training run and learned agent
            check_race(game.board)  # reads a race through an encoder: none on a board that holds none
        self.game = game
        b = game.board
        self.h, self.w = h, w = b.height, b.width
        hw = h * w
        n = game.num_players
        self.layout = Layout([
            Field("floor", 8 * hw), Field("belt_dir", 4 * hw), Field("rotating", hw), Field("walls", 4 * hw),
            Field("lasers", 4 * hw), Field("pushers", 4 * hw), Field("crushers", hw), Field("flags", hw),
            Field("own_robot", hw), Field("other_robots", hw), Field("facing", 4 * hw),
            Field("own_next_flag", hw), Field("own_archive", hw),
            Field("hand", HAND * (CARD + 1)), Field("registers", REGISTERS * CARD),
            Field("locked", n * REGISTERS * CARD), Field("robots", n * 14),
            Field("round", REGISTERS + 1), Field("turn", 1),
        ])
        self.observation_space = self.layout.space
        self._kinds = KINDS[game.numbering]
        # The static part, built once.
        static = self.layout.zeros()
        lay = self.layout
        codes = np.arange(8)[:, None, None]
        static[lay["floor"]] = (b.floor == codes).reshape(-1)
        static[lay["belt_dir"]] = (b.belt_dir == codes[:4]).reshape(-1)
        static[lay["rotating"]] = b.rotating.reshape(-1)
        static[lay["walls"]] = ((b.walls >> codes[:4]) & 1).reshape(-1)
        lasers = static[lay["lasers"]].reshape(4, h, w)
        for las in b.lasers:
            lasers[las.direction, las.y, las.x] = las.beams / 3
        pushers = static[lay["pushers"]].reshape(4, h, w)
        for p in b.pushers:
            pushers[p.direction, p.y, p.x] = len(p.registers) / REGISTERS
        crushers = static[lay["crushers"]].reshape(h, w)
        if game.config.crushers:
            for c in b.crushers:
                crushers[c.y, c.x] = len(c.registers) / REGISTERS
        flags = static[lay["flags"]].reshape(h, w)
        k = len(b.flags)
        for i, (x, y) in enumerate(b.flags):
            flags[y, x] = (i + 1) / k
        self._static = static
        self._s = lay.slices

    def _card(self, out: np.ndarray, at: int, card: int) -> None:
        out[at + self._kinds[card]] = 1.0
        out[at + KIND_COUNT] = card / NUM_CARDS

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view` (a new array)."""
        game = self.game
        h, w = self.h, self.w
        n = game.num_players
        obs = self._static.copy()
        s = self._s
        own = obs[s["own_robot"]]
        others = obs[s["other_robots"]]
        facing = obs[s["facing"]]
        hw = h * w
        seat = view.seat
        flags = game.board.flags
        nflags = len(flags)
        for i, r in enumerate(view.robots):
            if not r.on_board:
                continue
            sq = r.y * w + r.x
            (own if i == seat else others)[sq] = 1.0
            facing[r.facing * hw + sq] = 1.0
        me = view.robots[seat]
        if me.next_flag < nflags:
            fx, fy = flags[me.next_flag]
            obs[s["own_next_flag"]][fy * w + fx] = 1.0
        if me.archive_x >= 0:
            obs[s["own_archive"]][me.archive_y * w + me.archive_x] = 1.0
        hand = obs[s["hand"]]
        for slot, card in enumerate(view.hand):
            self._card(hand, slot * (CARD + 1), card)
            hand[slot * (CARD + 1) + CARD] = float(view.used >> slot & 1)
        regs = obs[s["registers"]]
        for j, card in enumerate(view.registers):
            if card:
                self._card(regs, j * CARD, card)
        locked = obs[s["locked"]]
        robots = obs[s["robots"]]
        lives = max(game.lives, 1)
        for rel in range(n):
            i = (seat + rel) % n
            for j, card in enumerate(view.locked[i]):
                if card:
                    self._card(locked, (rel * REGISTERS + j) * CARD, card)
            r = view.robots[i]
            base = rel * 14
            robots[base:base + 10] = (
                min(r.damage, 10) / 10, min(r.lives, lives) / lives, r.next_flag / nflags, r.on_board,
                r.powered_down, r.announced, r.stay_down, r.eliminated,
                min(max(r.x, 0), w - 1) / max(w - 1, 1), min(max(r.y, 0), h - 1) / max(h - 1, 1),
            )
            robots[base + 10 + r.facing] = 1.0
        rounds = obs[s["round"]]
        rnd = min(view.step // n, REGISTERS) if game.config.action_mode == "register" else 0
        rounds[rnd] = 1.0
        cap = game.config.max_turns
        if cap:
            obs[s["turn"]][0] = min(view.turn / cap, 1.0)
        return obs

    def decode(self, obs: np.ndarray) -> View:
        """The `View` an observation was encoded from, as far as the observation holds it (its inverse on what it
        encodes): seat 0 with the robots in relative order (own first), every robot's damage (to 10), lives (to the
        game's), flags, status flags, square (clamped to the board) and facing; the own hand, placed slots and
        registers; every robot's locked registers; the round (`step` = round x players) and the turn. What no
        observation holds comes back empty: the own archive's facing, the other hands' sizes, the winner.

        Raises:
            ValueError: an observation of another length, or a turn to decode without the game's `max_turns`.
        """
        game = self.game
        obs = np.asarray(obs, np.float32).reshape(-1)
        if obs.shape[0] != self.layout.size:
            raise ValueError(f"a RoboRally observation of this game has {self.layout.size} values, got {obs.shape[0]}")
        cap = game.config.max_turns
        if not cap:
            raise ValueError("decoding a RoboRally observation needs the game's max_turns (the turn is encoded as "
                             "turns played / max_turns)")
        s, n, w, h = self._s, game.num_players, self.w, self.h
        nflags, lives = len(game.board.flags), max(game.lives, 1)

        def card(block: np.ndarray, at: int) -> int:  # exact: card / NUM_CARDS round-trips through float32
            return int(round(float(block[at + KIND_COUNT]) * NUM_CARDS))

        hand_block, regs_block, locked_block = obs[s["hand"]], obs[s["registers"]], obs[s["locked"]]
        hand, used = [], 0
        for slot in range(HAND):
            c = card(hand_block, slot * (CARD + 1))
            if c:
                hand.append(c)
                used |= int(hand_block[slot * (CARD + 1) + CARD] > 0.5) << slot
        registers = tuple(card(regs_block, j * CARD) for j in range(REGISTERS))
        locked = tuple(tuple(card(locked_block, (rel * REGISTERS + j) * CARD) for j in range(REGISTERS))
                       for rel in range(n))
        own_archive = np.flatnonzero(obs[s["own_archive"]] > 0.5)
        robots = []
        for rel in range(n):
            v = obs[s["robots"]][rel * 14:(rel + 1) * 14]
            ax, ay = (int(own_archive[0] % w), int(own_archive[0] // w)) if rel == 0 and own_archive.size else (-1, -1)
            robots.append(Robot(
                x=int(round(float(v[8]) * max(w - 1, 1))), y=int(round(float(v[9]) * max(h - 1, 1))),
                facing=int(np.argmax(v[10:14])), damage=int(round(float(v[0]) * 10)),
                lives=int(round(float(v[1]) * lives)), next_flag=int(round(float(v[2]) * nflags)),
                on_board=bool(v[3] > 0.5), powered_down=bool(v[4] > 0.5), eliminated=bool(v[7] > 0.5),
                archive_x=ax, archive_y=ay, announced=bool(v[5] > 0.5), stay_down=bool(v[6] > 0.5)))
        rnd = int(np.argmax(obs[s["round"]])) if game.config.action_mode == "register" else 0
        return View(seat=0, turn=int(round(float(obs[s["turn"]][0]) * cap)), step=rnd * n, robots=tuple(robots),
                    hand=tuple(hand), used=used, registers=registers, locked=locked, hand_sizes=(), winner=-1,
                    over=False)

