"""RLlib: every game as a turn-based `MultiAgentEnv` (`RLlibEnv`, over the game's PettingZoo `raw_env`), and
multi-agent PPO with action masking (`ppo_config`); PPO on the compiled vector env is `train.rllib_vector`
(`python -m train.rllib GAME --vector`). Needs `pip install -e ".[rllib]"` in a virtual environment of its own
(`.ci/setup-rllib`: RLlib pins an older gymnasium). docs/integrations.md, "RLlib", gives an example, the
observations RLlib's `ActionMaskingTorchRLModule` reads, and how each seat's rewards add up to its return.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import envs
from envs.core.game import IllegalActionError
from train.rllib_vector import masked_space

#: What a seat gets for an unmasked illegal action (PettingZoo's `env()` penalty); the game ends.
ILLEGAL_REWARD = -1.0
#: `ppo_config`'s defaults for `PPOConfig.training` (its keyword arguments replace them).
TRAINING = {"train_batch_size_per_learner": 4000, "minibatch_size": 256, "num_epochs": 10, "lr": 3e-4}


class RLlibEnv(MultiAgentEnv):
    """A game as an RLlib turn-based multi-agent env. `config`: `{"game": id, "options": {...},
    "max_turns": int | None}` (RLlib passes its `env_config`)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = set(config) - {"game", "options", "max_turns"}
        if unknown or "game" not in config:
            raise ValueError(f"env_config needs 'game' and may have 'options', 'max_turns'; got {sorted(config)}")
        self.game_id = config["game"]
        self._aec = envs.load(self.game_id).raw_env(max_turns=config.get("max_turns"),
                                                    **dict(config.get("options") or {}))
        self.possible_agents = list(self._aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: masked_space(self._aec.observation_space(a)["observation"],
                                                   self._aec.action_space(a).n) for a in self.possible_agents}
        self.action_spaces = {a: self._aec.action_space(a) for a in self.possible_agents}
        self._pending: dict[str, float] = {}
        self._seen: set[str] = set()
        self._closing: list[str] = []
        self._illegal = False

    def _obs(self, agent: str, only_first: bool = False) -> dict[str, np.ndarray]:
        """The seat's observation in RLlib's keys (`only_first`: a mask allowing action 0 only)."""
        o = self._aec.observe(agent)
        mask = np.zeros(self.action_spaces[agent].n, dtype=np.float32)
        if only_first:
            mask[0] = 1.0
        else:
            mask[:] = o["action_mask"]
        self._seen.add(agent)
        return {"observations": np.asarray(o["observation"], dtype=np.float32), "action_mask": mask}

    def _collect(self) -> None:
        """Add the AEC env's last step rewards to every seat's outstanding reward."""
        for a in self.possible_agents:
            self._pending[a] += float(self._aec.rewards.get(a, 0.0))

    def _take(self, agent: str) -> float:
        r, self._pending[agent] = self._pending[agent], 0.0
        return r

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new episode (`seed` as in the PettingZoo env); the seat to act observes."""
        self._aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._seen = set()
        self._closing = []
        self._illegal = False
        self._collect()
        a = self._aec.agent_selection
        return {a: self._obs(a)}, {a: {}}

    def step(self, action_dict: dict[str, Any]):
        """Play the acting seat's action; return the next seat's observation and reward, or end the
        episode for every seat with its outstanding reward."""
        if self._closing:
            missing = set(self._closing) - set(action_dict)
            if missing:
                raise ValueError(f"closing turn: expected actions of {sorted(self._closing)}, "
                                 f"got {sorted(action_dict)}")
            return self._finish()
        actor = self._aec.agent_selection
        if set(action_dict) != {actor}:
            raise ValueError(f"{actor} is to act; got actions for {sorted(action_dict)}")
        try:
            self._aec.step(int(action_dict[actor]))
            self._collect()
        except IllegalActionError:
            self._illegal = True
            self._pending[actor] += ILLEGAL_REWARD
        if self._illegal or any(self._aec.terminations.values()) or any(self._aec.truncations.values()):
            self._closing = [a for a in self.possible_agents if a not in self._seen]
            if self._closing:
                obs = {a: self._obs(a, only_first=True) for a in self._closing}
                return (obs, dict.fromkeys(self._closing, 0.0), {"__all__": False}, {"__all__": False},
                        {a: {"closing_turn": True} for a in self._closing})
            return self._finish()
        a = self._aec.agent_selection
        # RLlib sets aside a reward that comes with a seat's first observation (no transition
        # to attach it to): that seat keeps it outstanding until its next observation.
        r = self._take(a) if a in self._seen else 0.0
        return {a: self._obs(a)}, {a: r}, {"__all__": False}, {"__all__": False}, {a: {}}

    def _finish(self):
        """Every seat's last observation and outstanding reward; the episode is over."""
        truncated = (not self._illegal and any(self._aec.truncations.values())
                     and not any(self._aec.terminations.values()))
        agents = self.possible_agents
        obs = {a: self._obs(a) for a in agents}
        rewards = {a: self._take(a) for a in agents}
        self._closing = []
        self.agents = []
        terms = {**dict.fromkeys(agents, not truncated), "__all__": not truncated}
        truncs = {**dict.fromkeys(agents, truncated), "__all__": truncated}
        return obs, rewards, terms, truncs, {a: {} for a in agents}


def ppo_config(game: Any, options: dict[str, Any] | None = None, *, max_turns: int | None = None,
               hidden: tuple[int, ...] = (64, 64), num_env_runners: int = 0, seed: int | None = 0, **training: Any):
    """Multi-agent PPO on `game`: one action-masking policy per seat (`policy_mapping_fn`: the
    seat's name), so each seat's return is reported on its own. `num_env_runners` > 0 samples in
    Ray workers (on a cluster when Ray is started with an address). `game` is an id or an `envs.Variant` (whose
    options `options` update); `training`: `PPOConfig.training` keywords over `TRAINING`."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    game, options = envs.resolve(game, options)
    env_config = {"game": game, "options": options, "max_turns": max_turns}
    seats = RLlibEnv(env_config).possible_agents
    spec = MultiRLModuleSpec(rl_module_specs={
        s: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": list(hidden)})
        for s in seats
    })
    return (
        PPOConfig()
        .environment(RLlibEnv, env_config=env_config)
        .multi_agent(policies=set(seats), policy_mapping_fn=_seat_policy)
        .rl_module(rl_module_spec=spec)
        .env_runners(num_env_runners=num_env_runners)
        .training(**{**TRAINING, **training})
        .debugging(seed=seed)
    )


def _seat_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Each seat its own policy (the seat's name)."""
    return agent_id


def _parser() -> Any:
    import argparse

    p = argparse.ArgumentParser(prog="python -m train.rllib", description="PPO with action masking (RLlib): one policy "
                                "per seat on the turn-based env, or with --vector one seat's policy on the compiled "
                                "vector env against opponents, sampled by --env-runners Ray actors.")
    p.add_argument("game", choices=envs.available_games())
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="env option, repeatable")
    p.add_argument("--iterations", type=int, default=20, help="training iterations (default 20)")
    p.add_argument("--batch", type=int, default=None,
                   help="env steps per iteration (default 4000; with --vector learner decisions, default 8192)")
    p.add_argument("--env-runners", type=int, default=0, help="sampling workers (Ray actors; default 0: in the driver)")
    p.add_argument("--vector", action="store_true", help="the compiled vector env (train.rllib_vector): one seat's "
                   "policy against --opponents, --num-envs tables per env runner")
    p.add_argument("--opponents", type=str, default=None, help="with --vector: opponent agent ids with compiled "
                   "kernels (comma-separated, NAME*K repeats, one id fills every other seat; default the game's "
                   "default line-up)")
    p.add_argument("--num-envs", type=int, default=64, help="with --vector: tables per env runner (default 64)")
    p.add_argument("--address", type=str, default=None,
                   help="a running Ray cluster (HOST:6379 or auto); default a local instance")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray instance (default all)")
    p.add_argument("--seed", type=int, default=0)
    return p


def main(argv: list[str] | None = None) -> int:
    """`python -m train.rllib GAME [--option K=V] [--iterations N] [--env-runners K] [--address ...]`: multi-agent
    PPO with action masking, printing each iteration's per-seat mean returns; with `--vector [--opponents IDS]
    [--num-envs N]`, PPO with action masking on the compiled vector env, printing each iteration's mean return
    and steps/s."""
    import ray

    from envs.core.options import parse_options

    p = _parser()
    args = p.parse_args(argv)
    batch = args.batch if args.batch is not None else (8192 if args.vector else 4000)
    if args.iterations < 1 or batch < 1 or args.num_envs < 1:
        p.error("--iterations, --batch and --num-envs must be >= 1")
    if args.opponents is not None and not args.vector:
        p.error("--opponents needs --vector (the turn-based env gives every seat its own policy)")
    try:
        options = parse_options(envs.config_class(args.game), args.option)
        envs.make_game(args.game, **options)
        if args.vector:
            from train.rllib_vector import vector_ppo_config

            config = vector_ppo_config(args.game, args.opponents, options, num_envs=args.num_envs,
                                       num_env_runners=args.env_runners, train_batch_size_per_learner=batch,
                                       minibatch_size=min(2048, batch), seed=args.seed)
        else:
            config = ppo_config(args.game, options, train_batch_size_per_learner=batch,
                                minibatch_size=min(256, batch), num_env_runners=args.env_runners, seed=args.seed)
        config.validate()  # RLlib's own checks, as a usage error before Ray starts
    except ValueError as e:
        p.error(str(e))
    ray.init(address=args.address, num_cpus=args.num_cpus if args.address is None else None, include_dashboard=False)
    try:
        algo = config.build_algo()
        try:
            (_vector_loop if args.vector else _seat_loop)(algo, args.iterations)
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    return 0


def _seat_loop(algo: Any, iterations: int) -> None:
    """Train, printing each iteration's per-seat mean returns."""
    for it in range(1, iterations + 1):
        r = algo.train()["env_runners"]
        seats = dict(sorted(r["agent_episode_returns_mean"].items()))
        print(f"iteration {it}: episodes {r['num_episodes']}, mean return per seat "
              + ", ".join(f"{a} {v:+.3f}" for a, v in seats.items()) + f" (sum {sum(seats.values()):+.3f})", flush=True)


def _vector_loop(algo: Any, iterations: int) -> None:
    """Train, printing each iteration's episodes, mean return and steps/s (sampling and update together)."""
    import time

    for it in range(1, iterations + 1):
        start = time.perf_counter()
        r = algo.train()["env_runners"]
        steps, rate = r["num_env_steps_sampled"], r["num_env_steps_sampled"] / (time.perf_counter() - start)
        print(f"iteration {it}: steps {steps}, episodes {r['num_episodes']}, mean return "
              f"{r.get('episode_return_mean', float('nan')):+.3f}, {rate:,.0f} steps/s", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
