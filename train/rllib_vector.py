"""RLlib on the compiled vector env: PPO with action masking (`vector_ppo_config`), many tables per env runner, as
many runners as a Ray cluster has CPUs. Each env runner builds one `agents.vector_env` of `num_envs` tables through
RLlib's vector-env hook; `MaskedVectorEnv` puts the masks in the observation RLlib's `ActionMaskingTorchRLModule`
reads, and `SameStepAutoreset` (a callback) keeps each episode whole under the compiled env's same-step autoreset
(docs/integrations.md, "RLlib", gives an example).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import VectorWrapper
from gymnasium.vector.utils import batch_space
from ray.rllib.callbacks.callbacks import RLlibCallback

#: The name `vector_ppo_config` registers `make_vector_env` under (`ray.tune.registry.register_env`).
ENV_ID = "tabletop_vector"
#: The keys `make_vector_env` reads from RLlib's env config (`num_envs` is RLlib's, from `num_envs_per_env_runner`).
ENV_CONFIG_KEYS = ("game", "opponents", "options", "num_envs", "max_turns", "strict")
#: `vector_ppo_config`'s defaults for `PPOConfig.training` (its keyword arguments replace them).
TRAINING = {"train_batch_size_per_learner": 8192, "minibatch_size": 2048, "num_epochs": 2, "lr": 3e-4,
            "entropy_coeff": 0.01, "gamma": 1.0}


def masked_space(inner: gymnasium.spaces.Box, n: int) -> gymnasium.spaces.Dict:
    """The observation space RLlib's `ActionMaskingTorchRLModule` reads: `inner` as float32 beside an (n,) mask."""
    return gymnasium.spaces.Dict({
        "observations": gymnasium.spaces.Box(inner.low.astype(np.float32), inner.high.astype(np.float32),
                                             dtype=np.float32),
        "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
    })


class MaskedVectorEnv(VectorWrapper):
    """A compiled vector env with its masks in a Dict observation: `{"observations": float32 (N, obs),
    "action_mask": float32 (N, A)}`; `info` carries only, for the tables that finished, `final_obs` (the last
    observation, in the same Dict form, mask all 0: no action follows it) and `tabletop_episode` (`r` the return,
    `l` the learner's decisions), with their `_` flags. Rewards, terminations and the same-step autoreset are the
    wrapped env's."""

    def __init__(self, env: gymnasium.vector.VectorEnv):
        super().__init__(env)
        self.single_observation_space = masked_space(env.single_observation_space, int(env.single_action_space.n))
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def _dict_obs(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {"observations": np.array(obs, dtype=np.float32),
                "action_mask": self.env.action_masks().astype(np.float32)}

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Deal every table anew (`seed`: the compiled env's, one int for all tables)."""
        if isinstance(seed, list):  # gymnasium's per-env seeds: the compiled env keys its tables from one seed
            seed = seed[0]
        obs, _ = self.env.reset(seed=seed, options=options)
        return self._dict_obs(obs), {}

    def step(self, actions: Any):
        """Step every table; a finished table's next episode is dealt in the same step (its last observation in
        `info["final_obs"]`)."""
        obs, reward, terminated, truncated, info = self.env.step(np.asarray(actions, dtype=np.int64))
        out: dict[str, Any] = {}
        ended = info.get("_final_obs")
        if ended is not None and ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            no_action = np.zeros(self.single_action_space.n, dtype=np.float32)
            for i in np.flatnonzero(ended):
                final[i] = {"observations": np.array(info["final_obs"][i], dtype=np.float32), "action_mask": no_action}
            out = {"final_obs": final, "_final_obs": np.array(ended, dtype=bool),
                   "tabletop_episode": info["tabletop_episode"], "_tabletop_episode": info["_tabletop_episode"]}
        return self._dict_obs(obs), np.asarray(reward, dtype=np.float32), terminated, truncated, out


def make_vector_env(config: dict[str, Any]) -> MaskedVectorEnv:
    """RLlib's env creator: `agents.vector_env(config["game"], config["num_envs"], opponents=config["opponents"],
    max_turns=..., strict=..., **config["options"])`, masked (`MaskedVectorEnv`). `opponents` are agent ids
    (`"lama/first*3"` or a list; one id fills every other seat; None: the game's default line-up) or what
    `agents.vector_env` takes."""
    import agents
    import envs
    from envs.gymnasium_registry import default_opponents

    config = dict(config)
    unknown = set(config) - set(ENV_CONFIG_KEYS)
    if unknown or "game" not in config:
        raise ValueError(f"env_config needs 'game' and may have {', '.join(ENV_CONFIG_KEYS[1:])}; got {sorted(config)}")
    game, options = config["game"], dict(config.get("options") or {})
    seats = envs.make_game(game, **options).num_players
    opponents = config.get("opponents")
    if opponents is None:
        opponents = default_opponents(game, seats)
    elif isinstance(opponents, str) or all(isinstance(o, str) for o in opponents):
        opponents = agents.expand_agent_ids(opponents)
        if len(opponents) == 1 and seats > 2:  # one id fills every other seat
            opponents = opponents * (seats - 1)
    if config.get("max_turns") is not None:  # not every game's vector env has the option (simple poker's hands end)
        options["max_turns"] = config["max_turns"]
    env = agents.vector_env(game, int(config.get("num_envs", 1)), opponents=opponents, copy=False,
                            strict=bool(config.get("strict", False)), **options)
    return MaskedVectorEnv(env)


class SameStepAutoreset(RLlibCallback):
    """Keeps RLlib's episodes whole on a same-step-autoreset vector env (see the module docstring): at an
    episode's end, its last observation becomes `info["final_obs"]`, and the observation the env returned there
    (the next episode's first) becomes the next episode's reset observation."""

    def __init__(self) -> None:
        super().__init__()
        self._first: dict[int, Any] = {}

    def on_episode_end(self, *, episode: Any, env_index: int, **kwargs: Any) -> None:
        """Swap in the real last observation; keep the next episode's first for `on_episode_created`."""
        infos = episode.get_infos(-1)
        if "final_obs" in infos:
            self._first[env_index] = episode.get_observations(-1)
            episode.set_observations(new_data=infos["final_obs"], at_indices=-1)

    def on_episode_created(self, *, episode: Any, env_index: int, **kwargs: Any) -> None:
        """Start the new episode at the observation the env dealt in the step that ended the previous one."""
        first = self._first.pop(env_index, None)
        if first is not None:
            episode.add_env_reset(observation=first, infos={})


def vector_ppo_config(game: Any, opponents: Any = None, options: dict[str, Any] | None = None, *,
                      num_envs: int = 64, num_env_runners: int = 0, max_turns: int | None = None,
                      strict: bool = False, hidden: tuple[int, ...] = (64, 64), seed: int | None = 0,
                      **training: Any):
    """PPO (RLlib's new API stack) with RLlib's `ActionMaskingTorchRLModule` on `game`'s compiled vector env:
    `num_env_runners` Ray actors (0: sample in the driver), each stepping `num_envs` tables against `opponents`
    (agent ids with kernels; None: the game's default line-up); `training`: `PPOConfig.training` keywords over
    `TRAINING` (a batch is `train_batch_size_per_learner` learner decisions). `strict=True` makes a masked action
    an error (`IllegalActionError`) instead of a lost episode. `game` is an id or an `envs.Variant` (whose options
    `options` update)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    import envs

    register_env(ENV_ID, make_vector_env)  # RLlib takes a creator by registered name (its workers look it up)
    game, options = envs.resolve(game, options)
    env_config = {"game": game, "opponents": opponents, "options": options, "max_turns": max_turns, "strict": strict}
    make_vector_env({**env_config, "num_envs": 1}).close()  # a bad game, option or opponent fails here, not in a worker
    model = {"fcnet_hiddens": list(hidden), "head_fcnet_hiddens": []}
    return (
        PPOConfig()
        .environment(ENV_ID, env_config=env_config)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs,
                     gym_env_vectorize_mode="vector_entry_point")
        .callbacks(SameStepAutoreset)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model))
        .training(**{**TRAINING, **training})
        .debugging(seed=seed)
    )
