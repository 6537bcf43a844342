"""RoboRally's Python agents over the lone-robot simulation (`agents.roborally.solo.SoloSimulator`).

Races of `roborally/greedy-plain` (the flag seeker's Python search over `SoloSimulator`) against the compiled
`roborally/greedy` on `race_easy`, 2 robots, alternating seats: the CPU seconds spent inside each agent's
`program(view)` are summed and their ratio printed (plain / compiled, the same decisions in the same process).
Then `roborally/greedy-teacher` (register mode, whose completion values walk `SoloSimulator.register`) labels
every sub-step of a few races. A digest of every move and label is printed, so that two versions of
`SoloSimulator` (say a commit and its parent, each in its own process) can be checked to play the same races
while their times are compared:

    PYTHONPATH=. python benchmarks/bench_roborally_solo.py [--races 300] [--teacher-races 40]

(`PYTHONPATH=.`: a script's own folder, not the working directory, leads `sys.path`, so without it an installed
checkout's code is timed instead of this one's.) Measured on the loaded 2-core machine, 3 alternating runs of
each of two processes, median CPU seconds: a plain-Python copy of the register physics (that of commit 7598555)
2.84 s in greedy-plain's programs over 300 races and 0.467 s for 1,248 teacher labels; `solo_register` behind
`SoloSimulator`'s cache 1.70 s (0.60x) and 0.295 s (0.63x); the same digests.
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np


def _timed(agent, spent: list[float]):
    """Wrap `agent.program` so that its CPU seconds add up in `spent[0]`."""
    inner = agent.program

    def program(view):
        t0 = time.process_time()
        out = inner(view)
        spent[0] += time.process_time() - t0
        return out

    agent.program = program
    return agent


def greedy_races(races: int, seed: int = 0) -> tuple[float, float, str]:
    """(plain program seconds, compiled program seconds, digest of every race's moves)."""
    from agents.base import make
    from envs.core.play import play_game
    from envs.roborally.rules import Config, RoboRallyGame

    game = RoboRallyGame(Config(board="race_easy", num_robots=2, max_turns=60))
    plain_t, fast_t = [0.0], [0.0]
    plain = _timed(make("roborally/greedy-plain", game, np.random.default_rng(seed)), plain_t)
    fast = _timed(make("roborally/greedy", game, np.random.default_rng(seed + 1)), fast_t)
    view = game.view(game.initial_state(np.random.default_rng(seed)), 0)
    for agent in (plain, fast):
        agent.program(view)  # compile / load the caches
    plain_t[0] = fast_t[0] = 0.0
    digest = hashlib.sha256()
    for r in range(races):
        seated = [plain, fast] if r % 2 == 0 else [fast, plain]
        returns, won, moves = play_game(game, seated, game.initial_state(np.random.default_rng(seed + r)))
        digest.update(repr((returns, won, moves)).encode())
    return plain_t[0], fast_t[0], digest.hexdigest()[:16]


def teacher_labels(races: int, seed: int = 0) -> tuple[float, int, str]:
    """(CPU seconds in `CompletionValues.values`, sub-steps labelled, digest of the labels) over races of
    `roborally/greedy` against itself in register mode, every sub-step of seat 0 labelled."""
    from agents.base import make
    from agents.roborally.teacher import CompletionValues
    from envs.roborally.rules import Config, RoboRallyGame

    game = RoboRallyGame(Config(board="race_easy", num_robots=2, max_turns=40, action_mode="register"))
    teacher = CompletionValues(game)
    teacher.values(game.view(game.initial_state(np.random.default_rng(seed)), 0), np.ones(game.num_actions, bool))
    players = [make("roborally/greedy", game, np.random.default_rng(seed + s)) for s in range(2)]
    digest = hashlib.sha256()
    spent, labelled = 0.0, 0
    for r in range(races):
        state = game.initial_state(np.random.default_rng(seed + r))
        for p in players:
            p.reset()
        while not game.is_terminal(state):
            seat = game.current_player(state)
            view = game.view(state, seat)
            mask = game.legal_mask(state)
            if seat == 0:
                t0 = time.process_time()
                values = teacher.values(view, mask)
                spent += time.process_time() - t0
                labelled += 1
                digest.update(np.nan_to_num(values, nan=-1e9).tobytes())
            state = game.apply(state, players[seat].act(view, mask))
    return spent, labelled, digest.hexdigest()[:16]


def main() -> None:
    """Print the greedy races' and the teacher's figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--races", type=int, default=300)
    ap.add_argument("--teacher-races", type=int, default=40)
    args = ap.parse_args()
    plain, fast, digest = greedy_races(args.races)
    print(f"greedy: {args.races} races, plain program {plain:.3f} s, compiled program {fast:.3f} s, "
          f"plain/compiled {plain / fast:.2f}, digest {digest}")
    spent, labelled, digest = teacher_labels(args.teacher_races)
    print(f"teacher: {labelled} sub-steps labelled in {spent:.3f} s ({1e3 * spent / max(labelled, 1):.3f} ms each), "
          f"digest {digest}")


if __name__ == "__main__":
    main()
