"""Fuzzing the environments: random legal episodes of `raw_env` with invariants checked.

    python -m evaluate.fuzz lama --episodes 10000                 # every variant, round robin
    python -m evaluate.fuzz the_game --episodes 500 --option num_players=3
    python -m evaluate.fuzz simple_poker --episodes 1 --seed 1234 --option n=10   # a reproducer

Every episode plays uniformly random legal actions from a deal seeded by the
episode's seed and checks, at every step: the action mask equals the rules'
`legal_actions`; only the seat to act has a non-zero mask; the observation lies
in its space; a legal action never raises; an illegal action (or one outside the
action space) raises `IllegalActionError` and changes nothing. At the end: the
episode ended (a terminal state within `MAX_STEPS`), a zero-sum game's returns
sum to 0, and the same seed replays the same episode both on `raw_env` and on
`env()` (PettingZoo's standard wrappers agree with the raw env on legal play).

Without `--option` the episodes go round robin over `variants(game)`: the
default options, every value of each option with a finite domain (each rules
preset combined with each of them), every player count, and a few sizes. Each
failure is printed with the command that replays it alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import types
import typing
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import envs
from envs.core.game import IllegalActionError
from envs.core.options import parse_options

#: An episode longer than this many moves counts as one that does not end.
MAX_STEPS = 20_000


class InvariantError(Exception):
    """A broken invariant (`check` names which)."""

    def __init__(self, check: str, message: str):
        super().__init__(message)
        self.check = check


@dataclass
class Failure:
    """One broken invariant, with what replays it."""

    options: dict[str, Any]
    seed: int
    check: str
    message: str

    def reproducer(self, game: str) -> str:
        """The command that plays this episode alone."""
        opts = "".join(f" --option {k}={v}" for k, v in self.options.items())
        return f"python -m evaluate.fuzz {game} --episodes 1 --seed {self.seed}{opts}"


@dataclass
class FuzzReport:
    """What a fuzzing run played and found."""

    game: str
    episodes: int = 0
    steps: int = 0
    seconds: float = 0.0
    variants: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    def summary(self) -> str:
        """One line: episodes, steps, failures, speed."""
        rate = self.episodes / self.seconds if self.seconds > 0 else float("inf")
        return (f"{self.game}: {self.episodes} episodes over {len(self.variants)} variants, {self.steps} steps, "
                f"{len(self.failures)} failures ({self.seconds:.1f} s, {rate:.0f} episodes/s)")


def _finite_domain(hint: Any) -> list[Any] | None:
    """The values of a Literal or bool option (also inside `X | None`), else None."""
    if hint is bool:
        return [False, True]
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return list(typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        inner = [v for a in typing.get_args(hint) if a is not type(None) for v in (_finite_domain(a) or [])]
        return inner or None
    return None


def variants(game: str) -> list[dict[str, Any]]:
    """Option sets covering the game's variants (each one valid and distinct)."""
    config_class = envs.config_class(game)
    hints = typing.get_type_hints(config_class)
    fields = [f for f in dataclasses.fields(config_class) if f.init]
    singles: list[dict[str, Any]] = [{}]
    for f in fields:
        if f.name == "num_players":
            singles += [{"num_players": k} for k in range(1, 9)]
            continue
        for value in _finite_domain(hints.get(f.name, str)) or []:
            singles.append({f.name: value})
    singles += [dict(v) for v in envs.spec(game).fuzz_variants]  # options with an open domain
    presets = [{}]
    for key in envs.spec(game).preset_keys:  # every other option is tried under each rules preset
        if key in hints:
            presets = [{key: v} for v in _finite_domain(hints[key]) or []]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for preset in presets:
        for single in singles:
            options = {**preset, **single}
            try:
                config = envs.make_game(game, **options).config
            except ValueError:
                continue  # an option that does not apply under this preset
            key = repr(config)
            if key not in seen:
                seen.add(key)
                out.append(options)
    return out


def _trace_episode(env: Any, seed: int, check: bool, zero_sum: bool) -> tuple[int, list[tuple]]:
    """Play one random legal episode; return its number of moves and what each step showed."""
    env.reset(seed=seed)
    raw = env.unwrapped
    game = raw.game
    pick = np.random.default_rng([seed, 1])  # the legal actions (the same in every replay)
    probe = np.random.default_rng([seed, 2])  # the illegal probes (raw run only)
    agents = list(raw.possible_agents)
    num_actions = game.num_actions
    trace: list[tuple] = []
    moves = 0
    for agent in env.agent_iter(max_iter=2 * MAX_STEPS):
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        if term or trunc:
            env.step(None)
            continue
        mask_legal = np.flatnonzero(obs["action_mask"])
        if check:
            state = raw.game_state
            legal = list(game.legal_actions(state))
            if mask_legal.tolist() != legal:
                raise InvariantError("mask", f"move {moves}: {agent}'s mask allows {mask_legal.tolist()}, the rules {legal}")
            if not raw.observation_space(agent).contains(obs):
                raise InvariantError("space", f"move {moves}: {agent}'s observation is outside its space")
            for other in agents:
                if other != agent and raw.observe(other)["action_mask"].any():
                    raise InvariantError("mask", f"move {moves}: {other} has a non-zero mask while {agent} is to act")
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            bad = int(illegal[probe.integers(len(illegal))]) if len(illegal) else num_actions
            before = (state, raw.agent_selection, dict(raw._cumulative_rewards))
            try:
                raw.step(bad)
            except IllegalActionError:
                pass
            else:
                raise InvariantError("illegal", f"move {moves}: illegal action {bad} of {agent} was accepted")
            if (raw.game_state, raw.agent_selection, dict(raw._cumulative_rewards)) != before:
                raise InvariantError("illegal", f"move {moves}: refused action {bad} of {agent} changed the env")
        if not len(mask_legal):
            raise InvariantError("mask", f"move {moves}: {agent} is to act with no legal action")
        action = int(mask_legal[pick.integers(len(mask_legal))])
        try:
            env.step(action)
        except Exception as e:
            raise InvariantError("legal", f"move {moves}: legal action {action} of {agent} raised {type(e).__name__}: {e}") from None
        moves += 1
        if moves > MAX_STEPS:
            raise InvariantError("end", f"no end after {MAX_STEPS} moves")
    if check:
        if not game.is_terminal(raw.game_state):
            raise InvariantError("end", f"the episode stopped after {moves} moves in a non-terminal state")
        returns = game.returns(raw.game_state)
        if zero_sum and abs(sum(returns)) > 1e-9:
            raise InvariantError("zero-sum", f"final returns {tuple(returns)} sum to {sum(returns)}")
    return moves, trace


def fuzz(game: str, episodes: int, seed: int = 0, options: dict[str, Any] | None = None, replays: bool = True) -> FuzzReport:
    """Play `episodes` random legal episodes of `game` and check the invariants.

    Args:
        game: a game id.
        episodes: how many episodes (round robin over `variants(game)` unless
            `options` names one variant).
        seed: episode `i` is dealt from seed `seed + i` (its reproducer seed).
        options: one variant's options instead of every variant.
        replays: also replay each episode on `raw_env` and `env()` with the same
            seed and compare (triples the cost).

    Returns:
        A `FuzzReport` (episodes, steps, failures with reproducer seeds).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be a positive integer, got {episodes!r}")
    mod = envs.load(game)
    todo = [dict(options)] if options is not None else variants(game)
    report = FuzzReport(game, variants=todo)
    envs_of = [(mod.raw_env(**o), mod.raw_env(**o), mod.env(**o)) for o in todo]
    zero_sum = envs.spec(game).zero_sum
    t0 = time.perf_counter()
    for i in range(episodes):
        k = i % len(todo)
        checked, replay_raw, replay_env = envs_of[k]
        s = seed + i
        try:
            moves, trace = _trace_episode(checked, s, True, zero_sum)
            if replays:
                if _trace_episode(replay_raw, s, False, zero_sum)[1] != trace:
                    raise InvariantError("replay", "the same seed and actions gave another episode on raw_env")
                if _trace_episode(replay_env, s, False, zero_sum)[1] != trace:
                    raise InvariantError("env", "env() and raw_env() differ on the same legal play")
            report.steps += moves
        except InvariantError as v:
            report.failures.append(Failure(todo[k], s, v.check, str(v)))
        except Exception as e:  # a crash anywhere is a finding too
            report.failures.append(Failure(todo[k], s, "crash", f"{type(e).__name__}: {e}"))
        report.episodes += 1
    report.seconds = time.perf_counter() - t0
    return report


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    """`python -m evaluate.fuzz GAME --episodes N [--seed S] [--option k=v ...]`; exit 1 on failures."""
    p = _Parser(prog="python -m evaluate.fuzz", description="Fuzz a game's environment with random legal episodes.")
    p.add_argument("game", help=f"one of: {', '.join(envs.available_games())}")
    p.add_argument("--episodes", type=_positive, default=1000, help="episodes to play (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="episode i is dealt from seed + i (default 0)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="one variant instead of all (repeatable)")
    p.add_argument("--no-replays", action="store_true", help="skip the same-seed raw_env and env() replays")
    p.add_argument("--max-failures", type=_positive, default=20, help="failures printed (default 20)")
    args = p.parse_args(argv)
    if args.game not in envs.available_games():
        p.error(f"unknown game {args.game!r}; games: {', '.join(envs.available_games())}")
    try:
        options = parse_options(envs.config_class(args.game), args.option) if args.option else None
        if options is not None:
            envs.make_game(args.game, **options)
    except ValueError as e:
        p.error(str(e))
    report = fuzz(args.game, args.episodes, args.seed, options, replays=not args.no_replays)
    for f in report.failures[: args.max_failures]:
        print(f"FAIL [{f.check}] {f.options or 'defaults'} seed {f.seed}: {f.message}\n  reproduce: {f.reproducer(args.game)}")
    print(report.summary())
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
