"""Fuzzing the environments: random legal episodes of `raw_env` (and `raw_parallel_env`) with invariants checked.

    python -m evaluate.fuzz lama --episodes 10000                 # every variant, round robin
    python -m evaluate.fuzz simple_poker --episodes 1 --seed 1234 --option n=10   # a reproducer
    python -m evaluate.fuzz roborally --episodes 200 --form parallel               # one env form only

The invariants of each form are listed in docs/integrations.md ("Fuzzing"). Without `--option` the episodes go
round robin over `variants(game)`; each failure is printed with the command that replays it alone.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import envs
from envs.core.game import IllegalActionError
from envs.core.options import parse_options
from envs.core.spec import FUZZ_FORMS
from evaluate.cli import Parser, check_games, positive_int

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
    form: str = "aec"

    def reproducer(self, game: str) -> str:
        """The command that plays this episode alone (in its form only, where the game has several)."""
        opts = "".join(f" --option {k}={v}" for k, v in self.options.items())
        form = f" --form {self.form}" if len(envs.spec(game).fuzz_forms) > 1 else ""
        return f"python -m evaluate.fuzz {game} --episodes 1 --seed {self.seed}{form}{opts}"


@dataclass
class FuzzReport:
    """What a fuzzing run played and found."""

    game: str
    form: str = "aec"
    episodes: int = 0
    steps: int = 0
    seconds: float = 0.0
    variants: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    def summary(self) -> str:
        """One line: episodes, steps (moves: a Parallel round counts each live agent's action), failures, speed."""
        rate = self.episodes / self.seconds if self.seconds > 0 else float("inf")
        name = (
            self.game
            if self.form == "aec" and envs.spec(self.game).fuzz_forms == ("aec",)
            else f"{self.game} ({self.form})"
        )
        return (f"{name}: {self.episodes} episodes over {len(self.variants)} variants, {self.steps} steps, "
                f"{len(self.failures)} failures ({self.seconds:.1f} s, {rate:.0f} episodes/s)")


def variants(game: str) -> list[dict[str, Any]]:
    """Option sets covering the game's variants (each one valid and distinct)."""
    declared = {o.name: o for o in envs.spec(game).options()}

    def domain(option: Any) -> list[Any]:  # the values of a Literal or bool option (also inside `X | None`)
        return list(option.choices) if option.choices else [False, True] if option.type == "bool" else []

    singles: list[dict[str, Any]] = [{}]
    for name, option in declared.items():
        singles += [{name: v} for v in (range(1, 9) if name == "num_players" else domain(option))]
    singles += [dict(v) for v in envs.spec(game).fuzz_variants]  # options with an open domain
    presets = [{}]
    for key in envs.spec(game).preset_keys:  # every other option is tried under each rules preset
        if key in declared:
            presets = [{key: v} for v in domain(declared[key])]
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
                raise InvariantError(
                    "mask", f"move {moves}: {agent}'s mask allows {mask_legal.tolist()}, the rules {legal}"
                )
            if not raw.observation_space(agent).contains(obs):
                raise InvariantError("space", f"move {moves}: {agent}'s observation is outside its space")
            for other in agents:
                if other != agent and raw.observe(other)["action_mask"].any():
                    raise InvariantError("mask", f"move {moves}: {other} has a non-zero mask while {agent} is to act")
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            bad = int(illegal[probe.integers(len(illegal))]) if len(illegal) else num_actions
            _refused(raw, bad, IllegalActionError, "illegal",
                     f"move {moves}: illegal action {bad} of {agent} was accepted",
                     f"move {moves}: refused action {bad} of {agent} changed the env")
        if not len(mask_legal):
            raise InvariantError("mask", f"move {moves}: {agent} is to act with no legal action")
        action = int(mask_legal[pick.integers(len(mask_legal))])
        try:
            env.step(action)
        except Exception as e:
            raise InvariantError(
                "legal", f"move {moves}: legal action {action} of {agent} raised {type(e).__name__}: {e}"
            ) from None
        moves += 1
        if moves > MAX_STEPS:
            raise InvariantError("end", f"no end after {MAX_STEPS} moves")
    if check:
        _check_end(raw, game, f"{moves} moves", zero_sum)
    return moves, trace


def _mask_of(obs: Any, info: dict[str, Any]) -> np.ndarray:
    """An agent's mask: from its observation Dict, else (`mask_in="info"`) from its info."""
    return obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]


def _trace_parallel(env: Any, seed: int, check: bool, zero_sum: bool) -> tuple[int, list[tuple]]:
    """Play one random legal episode of a Parallel env; return its number of moves and what each round showed."""
    obs, infos = env.reset(seed=seed)
    raw = env.unwrapped
    game = raw.game
    pick = np.random.default_rng([seed, 1])  # the legal actions (the same in every replay)
    probe = np.random.default_rng([seed, 2])  # the illegal probes (strict run only)
    agents = list(raw.possible_agents)
    start_returns = np.array(game.returns(raw.game_state), dtype=float)
    totals = dict.fromkeys(agents, 0.0)
    trace: list[tuple] = []
    moves = rounds = 0
    if check and (list(env.agents) != agents or set(obs) != set(agents) or set(infos) != set(agents)):
        raise InvariantError("agents", f"reset: agents {env.agents}, observations of {sorted(obs)}, "
                             f"infos of {sorted(infos)}; expected every one of {agents}")
    if check and not raw.state_space.contains(raw.state()):
        raise InvariantError("space", "reset: state() is outside state_space")
    while env.agents:
        live = list(env.agents)
        masks = {a: _mask_of(obs[a], infos[a]) for a in live}
        legal = {a: np.flatnonzero(masks[a]) for a in live}
        if check:
            _check_shown(raw, rounds, live, obs, infos, masks, legal)
        actions = {a: int(legal[a][pick.integers(len(legal[a]))]) if len(legal[a]) else 0 for a in live}
        if check:
            expected = _round_on_engine(game, agents, raw.game_state, rounds, masks, legal, actions)
            _probe_round(raw, probe, rounds, live, masks, actions)
        try:
            obs, rewards, terms, truncs, infos = env.step(actions)
        except Exception as e:
            raise InvariantError(
                "legal", f"round {rounds}: legal actions {actions} raised {type(e).__name__}: {e}"
            ) from None
        moves += len(live)
        rounds += 1
        seen = tuple((a, _obs_bytes(obs[a]), _obs_bytes(infos[a].get("action_mask", ()))) for a in sorted(obs))
        trace.append((tuple(sorted(actions.items())), seen, tuple(sorted(rewards.items())),
                      tuple(sorted(terms.items())), tuple(sorted(truncs.items()))))
        if check:
            _check_round(raw, game, rounds, live, expected, rewards, terms, truncs)
            if not env.agents and any(_mask_of(obs[a], infos[a]).any() for a in live):
                raise InvariantError("mask", f"round {rounds - 1}: a mask allows a move after the game ended")
        for a, r in rewards.items():
            totals[a] += r
        if rounds > MAX_STEPS:
            raise InvariantError("end", f"no end after {MAX_STEPS} rounds")
    if check:
        _check_end(raw, game, f"{rounds} rounds", zero_sum, np.array([totals[a] for a in agents]), start_returns)
    return moves, trace


def _check_shown(raw: Any, rounds: int, live: list[str], obs: dict, infos: dict, masks: dict, legal: dict) -> None:
    """What a round shows each live agent: observations inside their spaces, an info mask (where there is one)
    equal to the observation's and of int8, and at least one legal action."""
    for a in live:
        if not raw.observation_space(a).contains(obs[a]):
            raise InvariantError("space", f"round {rounds}: {a}'s observation is outside its space")
        info_mask = infos[a].get("action_mask")
        if info_mask is not None and (info_mask.dtype != np.int8 or not np.array_equal(info_mask, masks[a])):
            raise InvariantError("mask", f"round {rounds}: {a}'s info mask differs from its observation's")
        if not len(legal[a]):
            raise InvariantError("mask", f"round {rounds}: {a} is live with no legal action")


def _round_on_engine(
    game: Any, agents: list[str], state: Any, rounds: int, masks: dict, legal: dict, actions: dict
) -> Any:
    """The round on the engine, seat by seat in the game's order: each seat's mask (shown before the round) must
    be the rules' legal actions when its turn comes, whatever the others played before it. Returns the state
    the round must leave."""
    expected = state
    for _ in range(game.num_players):
        if game.is_terminal(expected):
            break
        a = agents[game.current_player(expected)]
        rules = list(game.legal_actions(expected))
        if a not in masks or legal[a].tolist() != rules:
            shown = legal[a].tolist() if a in legal else "no mask (not live)"
            raise InvariantError("mask", f"round {rounds}: {a}'s mask allows {shown}, the rules {rules}")
        expected = game.apply(expected, actions[a])
    return expected


def _probe_round(raw: Any, probe: np.random.Generator, rounds: int, live: list[str], masks: dict,
                 actions: dict) -> None:
    """Two rounds the strict env must refuse without a change: one with an illegal action of a drawn live agent,
    one without that agent's action."""
    victim = live[int(probe.integers(len(live)))]
    illegal = np.flatnonzero(masks[victim] == 0)
    bad = int(illegal[probe.integers(len(illegal))]) if len(illegal) else raw.game.num_actions
    _refused(raw, {**actions, victim: bad}, IllegalActionError, "illegal",
             f"round {rounds}: illegal action {bad} of {victim} was accepted",
             f"round {rounds}: refused action {bad} of {victim} changed the env")
    _refused(raw, {a: act for a, act in actions.items() if a != victim}, ValueError, "all-act",
             f"round {rounds}: a round without {victim}'s action was played",
             f"round {rounds}: a refused round without {victim} changed the env")


def _refused(raw: Any, actions: Any, error: type[Exception], kind: str, accepted: str, changed: str) -> None:
    """`raw.step(actions)` must raise `error` and leave the env as it was (else InvariantError `kind`): its state,
    live agents, and the AEC form's agent to act and rewards so far or the Parallel form's round."""
    def snapshot() -> tuple:
        return (raw.game_state, list(raw.agents), getattr(raw, "agent_selection", None),
                dict(getattr(raw, "_cumulative_rewards", {})), getattr(raw, "num_rounds", None))

    before = snapshot()
    try:
        raw.step(actions)
    except error:
        pass
    else:
        raise InvariantError(kind, accepted)
    if snapshot() != before:
        raise InvariantError(kind, changed)


def _check_end(raw: Any, game: Any, played: str, zero_sum: bool, summed: np.ndarray | None = None,
               start_returns: np.ndarray | None = None) -> None:
    """At an episode's end (after `played`, "40 moves"): a terminal state and zero-sum returns where the game is; in
    the Parallel form (rewards `summed` per seat) also rewards adding up to the change of the returns and the state
    inside its space."""
    final = raw.game_state
    if not game.is_terminal(final):
        raise InvariantError("end", f"the episode stopped after {played} in a non-terminal state")
    returns = game.returns(final)
    if summed is not None:
        change = np.array(returns, dtype=float) - start_returns
        if not np.allclose(summed, change, atol=1e-9):
            raise InvariantError(
                "reward", f"rewards add up to {summed.tolist()}, the returns changed by {change.tolist()}"
            )
    if zero_sum and abs(sum(returns)) > 1e-9:
        raise InvariantError("zero-sum", f"final returns {tuple(returns)} sum to {sum(returns)}")
    if summed is not None and not raw.state_space.contains(raw.state()):
        raise InvariantError("space", "end: state() is outside state_space")


def _obs_bytes(obs: Any) -> tuple[bytes, ...]:
    """An observation as bytes (a Dict's entries in order, or the plain Box)."""
    if isinstance(obs, dict):
        return tuple(np.asarray(obs[k]).tobytes() for k in sorted(obs))
    return (np.asarray(obs).tobytes(),)


def _check_round(raw: Any, game: Any, rounds: int, live: list[str], expected: Any, rewards: dict, terms: dict,
                 truncs: dict) -> None:
    """The Parallel API's bookkeeping after one round (see the module docstring)."""
    state = raw.game_state
    if state != expected:
        raise InvariantError("round", f"round {rounds - 1}: the env's state differs from the engine's after the round")
    if not set(live) <= set(rewards) or set(terms) != set(live) or set(truncs) != set(live):
        raise InvariantError("agents", f"round {rounds - 1}: rewards of {sorted(rewards)}, terminations of "
                             f"{sorted(terms)}, truncations of {sorted(truncs)}; live agents {live}")
    done = game.is_terminal(state)
    cut = done and bool(getattr(game, "truncated", lambda s: False)(state))
    if set(terms.values()) != {done and not cut} or set(truncs.values()) != {cut}:
        raise InvariantError("done", f"round {rounds - 1}: terminations {terms}, truncations {truncs} for a game "
                             f"{'stopped at its cap' if cut else 'over' if done else 'going on'}")
    if list(raw.agents) != ([] if done else live):
        raise InvariantError("agents", f"round {rounds - 1}: agents {raw.agents} after a round of {live} "
                             f"({'game over' if done else 'game on'})")


_TRACERS = {"aec": _trace_episode, "parallel": _trace_parallel}


def fuzz(
    game: str | envs.Variant,
    episodes: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    replays: bool = True,
    form: str = "aec",
) -> FuzzReport:
    """Play `episodes` random legal episodes of `game` (an id, or an `envs.Variant`) in one env form and check
    the invariants; episode `i` is dealt from seed `seed + i`, round robin over `variants(game)` unless `options`
    names one variant.

    Args:
        replays: also replay each episode on the strict env and on PettingZoo's form with the same seed (triples
            the cost).
        form: "aec" (`raw_env`) or "parallel" (`raw_parallel_env`), one of the game's `fuzz_forms`.
    """
    if episodes < 1:
        raise ValueError(f"episodes must be a positive integer, got {episodes!r}")
    if isinstance(game, envs.Variant):
        game, options = envs.resolve(game, options)
    forms = envs.spec(game).fuzz_forms
    if form not in forms:
        raise ValueError(f"form must be one of {list(forms)} for {game}, got {form!r}")
    mod = envs.load(game)
    todo = [dict(options)] if options is not None else variants(game)
    report = FuzzReport(game, form, variants=todo)
    raw, wrapped = (mod.raw_parallel_env, mod.parallel_env) if form == "parallel" else (mod.raw_env, mod.env)
    envs_of = [(raw(**o), raw(**o), wrapped(**o)) for o in todo]  # checked, strict replay, PettingZoo form replay
    trace_episode = _TRACERS[form]
    zero_sum = envs.spec(game).zero_sum
    t0 = time.perf_counter()
    for i in range(episodes):
        k = i % len(todo)
        checked, replay_raw, replay_env = envs_of[k]
        s = seed + i
        try:
            moves, trace = trace_episode(checked, s, True, zero_sum)
            if replays:
                if trace_episode(replay_raw, s, False, zero_sum)[1] != trace:
                    raise InvariantError("replay", "the same seed and actions gave another episode on the strict env")
                if trace_episode(replay_env, s, False, zero_sum)[1] != trace:
                    raise InvariantError("env", "PettingZoo's form and the strict env differ on the same legal play")
            report.steps += moves
        except InvariantError as v:
            report.failures.append(Failure(todo[k], s, v.check, str(v), form))
        except Exception as e:  # a crash anywhere is a finding too
            report.failures.append(Failure(todo[k], s, "crash", f"{type(e).__name__}: {e}", form))
        report.episodes += 1
    report.seconds = time.perf_counter() - t0
    return report



def main(argv: list[str] | None = None) -> int:
    """`python -m evaluate.fuzz GAME --episodes N [--seed S] [--option k=v ...]`; exit 1 on failures."""
    p = Parser(prog="python -m evaluate.fuzz", description="Fuzz a game's environment with random legal episodes.")
    p.add_argument("game", help=f"one of: {', '.join(envs.available_games())}")
    p.add_argument("--episodes", type=positive_int(), default=1000, help="episodes to play (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="episode i is dealt from seed + i (default 0)")
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="one variant instead of all (repeatable)"
    )
    p.add_argument("--form", choices=FUZZ_FORMS, default=None,
                   help="one env form: aec (raw_env) or parallel (raw_parallel_env); default: each of the game's")
    p.add_argument("--no-replays", action="store_true", help="skip the same-seed strict and PettingZoo-form replays")
    p.add_argument("--max-failures", type=positive_int(), default=20, help="failures printed (default 20)")
    args = p.parse_args(argv)
    check_games(p, args.game)
    try:
        options = parse_options(envs.config_class(args.game), args.option) if args.option else None
        if options is not None:
            envs.make_game(args.game, **options)
    except ValueError as e:
        p.error(str(e))
    forms = envs.spec(args.game).fuzz_forms
    if args.form is not None and args.form not in forms:
        p.error(f"{args.game} is fuzzed in the forms {', '.join(forms)}; --form {args.form} is not one of them")
    failed = False
    for form in [args.form] if args.form else forms:
        report = fuzz(args.game, args.episodes, args.seed, options, replays=not args.no_replays, form=form)
        for f in report.failures[: args.max_failures]:
            print(f"FAIL [{f.check}] {f.options or 'defaults'} seed {f.seed}: {f.message}\n"
                  f"  reproduce: {f.reproducer(args.game)}")
        print(report.summary(), flush=True)
        failed = failed or bool(report.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
