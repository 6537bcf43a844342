"""`agents.vector_env`: a game's batched compiled environment with opponents given as agent ids, mapped to
kernels through `agents.part(game).kernels` (the env layer never imports `agents`)."""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

import numpy as np

import envs
from agents.games import part


def has_vector_env(game: str) -> bool:
    """Whether `game` has a batched compiled env (`GameSpec.vector`) and its agents compiled opponent kernels for it
    (`agents.part(game).kernels`). An unknown game: ValueError naming the games."""
    return bool(envs.spec(game).vector and part(game).kernels)


def vector_games() -> tuple[str, ...]:
    """The games with a batched compiled env and opponent kernels."""
    return tuple(g for g in envs.available_games() if has_vector_env(g))


def _hook(game: str) -> tuple[str, str]:
    """(the module of the game's vector env, the module of its opponent kernels)."""
    if not has_vector_env(game):  # an unknown game: ValueError naming the games
        raise ValueError(f"no vector env for game {game!r}; games with one: {', '.join(vector_games())}")
    return envs.spec(game).env_module, part(game).kernels


def resolve_opponents(game: str, opponents: Any, options: dict[str, Any] | None = None) -> Any:
    """The opponents with every agent id replaced by its `OpponentKernel` under the game's `options` (ValueError
    naming the allowed ids for an id without one): a line-up (a list), or a `Pool` of line-ups; `OpponentKernel`
    and `BatchPolicy` objects pass through."""
    from envs.core.vector import BatchPolicy, OpponentKernel, Pool

    if isinstance(opponents, Pool):
        return Pool([resolve_opponents(game, up, options) for up in opponents.line_ups], opponents.weights)
    if isinstance(opponents, str):
        raise ValueError(f"opponents must be a list of agent ids, got the string {opponents!r}")
    mod = importlib.import_module(_hook(game)[1])
    out = []
    for agent_id in opponents:
        if isinstance(agent_id, (OpponentKernel, BatchPolicy)):
            out.append(agent_id)
            continue
        kernel = mod.opponent_kernel(agent_id, options or {}) if isinstance(agent_id, str) else None
        if kernel is None:
            raise ValueError(f"opponent {agent_id!r} has no compiled kernel for {game}'s vector env; "
                             f"allowed: {', '.join(mod.KERNEL_IDS)}, or a BatchPolicy")
        out.append(kernel)
    return out


def vector_env(game: str | envs.Variant, num_envs: int = 1024, *, opponents: Any, seed: int | None = None,
               **options: Any):
    """`envs.<game>_v0.vector_env(num_envs, opponents=<kernels>, seed=seed, **options)` with `opponents` given as
    agent ids (e.g. `["lama/first"] * 3`), batch policies (`envs.core.vector.BatchPolicy`, e.g. `batch_policy`
    of a saved model) or a `Pool` of such line-ups; `options` are the env's (control, seat, strict, copy,
    illegal_reward, max_turns) and the game's options. `game` is an id or an `envs.Variant` (whose options
    `options` update)."""
    game, options = envs.resolve(game, options)
    kernels = resolve_opponents(game, opponents, options)
    env_mod = importlib.import_module(_hook(game)[0])
    return env_mod.vector_env(num_envs, opponents=kernels, seed=seed, **options)


def batch_policy(source: Any, *, play: str | None = None, name: str | None = None, game: Any = None) -> Any:
    """A `BatchPolicy` that plays a policy network over many tables at once (one forward per call).

    Args:
        source: a saved policy folder or a shipped one's id (`"lama/ppo"`), an `agents.learned.Student`, or an SB3
            maskable policy object; an `action_scorer` needs a feature set with `from_observation`.
        game: the engine of the env it will play in (default the student's own).
        play: "sample" (Gumbel-max with the env's generator) or "greedy" (lowest id among ties); default the saved
            policy's own ("sample" for an SB3 policy).
        name: the policy's name in messages (default: the folder, or "policy").
    """
    from agents.learned import load_student
    from envs.core.vector import BatchPolicy

    if isinstance(source, str) or hasattr(source, "__fspath__"):
        import os

        from agents.pretrained import checkpoints

        label = name or str(source)
        folder = str(source)
        if not os.path.isdir(folder):
            shipped = checkpoints()
            if folder not in shipped:
                raise ValueError(f"batch_policy: {folder!r} is no policy folder and no shipped policy; shipped: "
                                 f"{', '.join(sorted(shipped))}")
            folder = shipped[folder]
        source = load_student(folder)
    else:
        label = name or "policy"
    logits_of, default = _network(source, game)
    play = default if play is None else play
    if play not in ("sample", "greedy"):
        raise ValueError(f"play must be 'sample' or 'greedy', got {play!r}")

    def fn(obs: np.ndarray, mask: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        logits = masked_logits(logits_of, obs, mask)
        if play == "sample":
            logits = logits + rng.gumbel(size=logits.shape)
        return logits.argmax(axis=1).astype(np.int64)

    return BatchPolicy(fn, label)


def _network(source: Any, game: Any = None) -> tuple[Any, str]:
    """(`logits_of(obs, mask)`: torch logits of a batch of observations and bool masks (torch tensors), the way
    the policy plays by default: "sample" or "greedy") of a `Student` or an SB3 maskable policy object."""
    import torch

    from agents.learned import Student

    if isinstance(source, Student) and source.kind == "action_scorer":
        from agents.learned import bound_features, observation_features

        feats = bound_features(source.features, game if game is not None else source.game)
        if not hasattr(feats, "from_observation"):
            raise ValueError(f"batch_policy takes a masked_policy student or an action scorer whose features read "
                             f"observations; feature set {source.features!r} reads views only (no from_observation)")
        net = source.net

        def logits_of(obs: Any, mask: Any) -> Any:
            ctx, per = observation_features(feats, obs.numpy(), mask.numpy())
            return net(torch.from_numpy(ctx), torch.from_numpy(per), mask.float())[0]
    elif isinstance(source, Student):  # a masked_policy student (`KINDS`: the other is the action scorer above)
        net = source.net

        def logits_of(obs: Any, mask: Any, keys: Any = None) -> Any:
            return net(obs, mask.float(), None if keys is None else torch.from_numpy(keys))[0]
    elif hasattr(source, "get_distribution"):
        net = source
        return (lambda obs, mask: net.get_distribution(obs, action_masks=mask.numpy()).distribution.logits), "sample"
    else:
        raise ValueError(f"batch_policy takes a saved policy folder, a Student or an SB3 policy, got {source!r}")
    return logits_of, "sample" if source.play == "sample" else "greedy"


def masked_logits(logits_of: Any, obs: Any, mask: Any, keys: Any = None) -> Any:
    """float64 (k, A) logits of `logits_of` over observations `obs` (k, D), -inf where `mask` (k, A)
    is False; `keys`: the observations' action keys where a compiled loop gives them (read by an action table)."""
    import torch

    with torch.inference_mode():
        m = torch.from_numpy(np.ascontiguousarray(mask))
        o = torch.from_numpy(np.ascontiguousarray(obs))
        logits = (logits_of(o, m) if keys is None else logits_of(o, m, keys)).double().numpy()
    return np.where(mask, logits, -np.inf)


class SeatPolicy(NamedTuple):
    """A saved policy as the player of some seats of a compiled game loop (`play_paused`):
    `logits(obs, mask[, keys])` gives float64 (k, A) masked logits, `sample` whether it draws from them (Gumbel-max)
    or takes their argmax; with `tables`, `logits(obs, mask, at=(tables, rows, seats))` reads the loop's table state
    (`from_tables`); `features`: an action scorer's feature set (None for a network over the observation)."""

    name: str
    logits: Any
    sample: bool
    tables: bool = False
    features: str | None = None


def seat_policy(agent: Any, name: str = "policy") -> SeatPolicy | None:
    """The network of a built agent as a `SeatPolicy`, playing as the agent does (greedy or sampled):
    a learned student's or an SB3 policy's; None for any other agent (heuristics, searches, mixtures, an action
    scorer over views only)."""
    from agents.learned import LearnedAgent, feature_set
    from agents.policy import TorchPolicyAgent

    if isinstance(agent, LearnedAgent) and agent.student.kind == "action_scorer":
        registered = feature_set(agent.student.features)
        if not hasattr(registered, "from_observation"):
            return _table_policy(agent, name) if hasattr(registered, "from_tables") else None
        source, sample = agent.student, bool(agent.sample)
    elif isinstance(agent, LearnedAgent) and agent.student.kind == "masked_policy":
        source, sample = agent.student, bool(agent.sample)
    elif isinstance(agent, TorchPolicyAgent):
        source, sample = agent.policy, not agent.deterministic
    else:
        return None
    logits_of, _ = _network(source)
    features = getattr(source, "features", None) if isinstance(agent, LearnedAgent) else None
    keyed = isinstance(agent, LearnedAgent) and getattr(source.net, "action_keys", None) is not None
    return SeatPolicy(name, lambda obs, mask, keys=None: masked_logits(logits_of, obs, mask, keys if keyed else None),
                      sample, features=features)


def _table_policy(agent: Any, name: str) -> SeatPolicy:
    """A learned action scorer's agent whose features read a compiled loop's tables (`from_tables`) as a `tables`
    `SeatPolicy`: its features are bound to the student's game, its logits are `masked_logits` of its network."""
    import torch

    from agents.learned import bound_features

    student = agent.student
    feats, net = bound_features(student.features, student.game), student.net

    def logits(obs: Any, mask: Any, keys: Any = None, at: Any = None) -> Any:
        if at is None:
            raise ValueError(f"{name}: its features read the compiled tables' state (from_tables); this loop gives "
                             "no tables")
        ctx, per = feats.from_tables(*at, mask)
        return masked_logits(lambda o, m: net(torch.from_numpy(ctx), torch.from_numpy(per), m.float())[0], obs, mask)

    return SeatPolicy(name, logits, bool(agent.sample), tables=True)


def gumbel_noise(keys: Any, counts: Any, num_actions: int) -> Any:
    """(k, A) standard Gumbel noise of draw `counts[i]` of the SplitMix64 streams `keys[i]` (uint64): A uniforms
    a draw, each from its own counter value, so draw t of a stream is the same whatever else was drawn."""
    from envs.core.vector import np_mix64

    a = np.arange(num_actions, dtype=np.uint64)[None, :]
    z = np_mix64(keys[:, None] + np.uint64(0x9E3779B97F4A7C15) * (counts[:, None] * np.uint64(num_actions) + a
                                                                   + np.uint64(1)))
    u = ((z >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0**-53  # in (0, 1)
    return -np.log(-np.log(u))


def play_paused(advance: Any, inputs: Any, to_move: Any, players: Any, policies: list[SeatPolicy | None],
                streams: Any = None, tables: Any = None) -> None:
    """Play tables of a compiled game loop that pauses where a policy is to move, to the end of every game: each
    round, one forward of each policy over every table where it is to move, then one call of the loop that goes
    on at all of them.

    Args:
        advance: `advance(rows, firsts) -> paused`: play tables `rows` on (firsts[k] >= 0: the move of its seat to
            move; -1 at the first call: from where they are) until a policy's seat is to move or the game ended;
            bool per row, True where it paused at a policy's seat.
        inputs: `inputs(rows, seats) -> (obs, bool masks[, action keys])` of the seats to move (the encoder's
            observation; a game whose networks may read an action table can give its keys, `masked_logits`).
        to_move: `to_move(rows) -> seats` to move.
        players: int (N, n): at table r, seat s is played by `policies[players[r, s]]` (-1: the loop's kernels).
        policies: the `SeatPolicy` objects.
        streams: uint64 (N, n) keys of each table's seats' noise (`gumbel_noise`), needed where a policy samples.
        tables: the loop's table state as its game's feature sets read it (`from_tables(tables, rows, seats,
            masks)`), needed where a policy is a `tables` one.

    Raises:
        ValueError: a sampling policy without `streams`, a `tables` policy without `tables`.
    """
    import torch

    counts = np.zeros(players.shape, np.uint64)
    if streams is None and any(p is not None and p.sample for p in policies):
        raise ValueError("a sampling policy needs streams (one key per table and seat)")
    if tables is None and any(p is not None and p.tables for p in policies):
        raise ValueError("a policy whose features read the tables (SeatPolicy.tables) needs the loop's tables")
    threads = torch.get_num_threads()
    # measured: a 2,000-row forward of a 256x256 MLP took 5.7 ms of CPU on one thread, 13 on two
    torch.set_num_threads(1)
    try:
        _play_rounds(advance, inputs, to_move, players, policies, streams, counts, tables)
    finally:
        torch.set_num_threads(threads)


def _play_rounds(advance: Any, inputs: Any, to_move: Any, players: Any, policies: list[SeatPolicy | None],
                 streams: Any, counts: Any, tables: Any = None) -> None:
    num = players.shape[0]
    # the first index of each policy object: seats of one policy (entrants of one id) share its forward
    same = np.array([next(i for i, q in enumerate(policies) if q is p) for p in policies], np.int64)
    rows = np.arange(num, dtype=np.int64)
    rows = rows[advance(rows, np.full(num, -1, np.int64))]
    while rows.size:
        seats = to_move(rows)
        got = inputs(rows, seats)
        obs, mask, keys = got if len(got) == 3 else (*got, None)
        who = same[players[rows, seats]]
        acts = np.full(rows.size, -1, np.int64)
        for j in np.unique(who):
            sel = np.flatnonzero(who == j)
            policy = policies[int(j)]
            if policy.tables:
                logits = policy.logits(obs[sel], mask[sel], at=(tables, rows[sel], seats[sel]))
            elif keys is None:
                logits = policy.logits(obs[sel], mask[sel])
            else:
                logits = policy.logits(obs[sel], mask[sel], keys[sel])
            if policy.sample:
                r, s = rows[sel], seats[sel]
                logits = logits + gumbel_noise(streams[r, s], counts[r, s], logits.shape[1])
                counts[r, s] += np.uint64(1)
            acts[sel] = logits.argmax(axis=1)
        rows = rows[advance(rows, acts)]


class FeatureVectorEnv:
    """A vector env whose observations are an `ActionScorer`'s inputs, flattened as
    `[context (C), per_action (A x F) row-major]` from the wrapped env's observation and mask (`features`, a
    registered set with `from_observation`); `feature_dims` is `(C, F)`. Everything else is the wrapped env's;
    `info["final_obs"]` is converted too, with an empty mask.

    Raises:
        ValueError: an unknown feature set, or one that cannot read observations.
    """

    def __init__(self, venv: Any, features: str):
        import gymnasium as gym

        from agents.learned import bound_features

        fn = bound_features(features, venv.game)
        if not hasattr(fn, "from_observation"):
            raise ValueError(f"feature set {features!r} reads views only (no from_observation); it cannot run on a "
                             "batched env's observations")
        self.venv, self.features, self._fn = venv, features, fn
        self._a = int(venv.single_action_space.n)
        # The sizes, from a blank observation with no legal action (the context and A empty rows).
        ctx, per = fn.from_observation(np.zeros(venv.single_observation_space.shape, np.float32),
                                       np.zeros(self._a, bool))
        self.feature_dims = (int(np.asarray(ctx).shape[0]), int(np.asarray(per).shape[1]))
        c, f = self.feature_dims
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (c + self._a * f,), np.float32)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, venv.num_envs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.venv, name)

    def convert(self, obs: Any, masks: Any) -> Any:
        """Feature rows `(len(obs), C + A x F)` of encoder observations `obs` with bool masks `masks`."""
        from agents.learned import observation_features

        ctx, per = observation_features(self._fn, np.asarray(obs), masks)
        return np.concatenate([ctx, per.reshape(len(ctx), -1)], axis=1)

    def _final(self, info: dict[str, Any]) -> dict[str, Any]:
        if "final_obs" in info:
            final = np.array(info["final_obs"], dtype=object)
            empty = np.zeros((1, self._a), bool)
            for i in np.flatnonzero(info.get("_final_obs", np.zeros(final.shape[0], bool))):
                final[i] = self.convert(np.asarray(final[i])[None], empty)[0]
            info = {**info, "final_obs": final}
        return info

    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
        obs, info = self.venv.reset(seed=seed, options=options)
        return self.convert(obs, self.venv.action_masks()), info

    def step(self, actions: Any) -> tuple[Any, ...]:
        obs, reward, term, trunc, info = self.venv.step(actions)
        return self.convert(obs, self.venv.action_masks()), reward, term, trunc, self._final(info)


#: `agents.feature_vector_env(venv, features)`: `venv` with action-scorer inputs as observations.
feature_vector_env = FeatureVectorEnv


class MultiVectorEnv:
    """Several vector envs of one observation and action space stepped as one (the tables of
    `venvs[0]`, then `venvs[1]`, ...); `info` merged key by key (a key some envs lack filled with zeros/False/None).
    Attributes other than the spaces and `num_envs` are the first env's.

    Raises:
        ValueError: fewer than one env, or envs whose single observation or action spaces differ.
    """

    def __init__(self, venvs: list[Any]):
        import gymnasium as gym

        if not venvs:
            raise ValueError("MultiVectorEnv needs at least one vector env")
        first = venvs[0]
        for v in venvs[1:]:
            if (v.single_observation_space.shape != first.single_observation_space.shape
                    or v.single_action_space != first.single_action_space):
                raise ValueError(f"MultiVectorEnv's envs must share their spaces: {v.single_observation_space.shape} "
                                 f"and {v.single_action_space} against {first.single_observation_space.shape} and "
                                 f"{first.single_action_space}")
        self.venvs = list(venvs)
        self.sizes = [int(v.num_envs) for v in venvs]
        self.num_envs = sum(self.sizes)
        self.single_observation_space = first.single_observation_space
        self.single_action_space = first.single_action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.venvs[0], name)

    def _merge(self, infos: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in dict.fromkeys(k for info in infos for k in info):
            parts = [info.get(key) for info in infos]
            like = next(p for p in parts if p is not None)
            if isinstance(like, dict):
                out[key] = self._merge([p if p is not None else {} for p in parts])
                continue
            like = np.asarray(like)
            filled = []
            for p, n in zip(parts, self.sizes):
                if p is None:
                    p = (np.full(n, None, object) if like.dtype == object else
                         np.zeros((n, *like.shape[1:]), like.dtype))
                filled.append(np.asarray(p))
            if any(f.dtype == object for f in filled):
                merged = np.empty(self.num_envs, object)
                for i, x in enumerate(x for f in filled for x in f):
                    merged[i] = x
                out[key] = merged
            else:
                out[key] = np.concatenate(filled)
        return out

    def _split(self, actions: Any) -> list[Any]:
        return np.split(np.asarray(actions), np.cumsum(self.sizes)[:-1])

    def action_masks(self) -> Any:
        return np.concatenate([v.action_masks() for v in self.venvs])

    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
        outs = [v.reset(seed=None if seed is None else seed + i, options=options) for i, v in enumerate(self.venvs)]
        return np.concatenate([o for o, _ in outs]), self._merge([i for _, i in outs])

    def step(self, actions: Any) -> tuple[Any, ...]:
        outs = [v.step(a) for v, a in zip(self.venvs, self._split(actions))]
        return (*(np.concatenate([o[k] for o in outs]) for k in range(4)), self._merge([o[4] for o in outs]))


__all__ = ["FeatureVectorEnv", "MultiVectorEnv", "SeatPolicy", "batch_policy", "gumbel_noise", "masked_logits",
           "play_paused", "seat_policy", "feature_vector_env", "resolve_opponents", "vector_env",
           "vector_games"]
