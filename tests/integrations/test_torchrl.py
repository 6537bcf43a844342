"""torchrl's own PettingZoo wrapper on our envs: with its defaults (`use_mask=True`, which torchrl requires of an AEC
env) and its `check_env_specs` on every game, `PettingZooWrapper(return_state=True, use_mask=True)` on an AEC env and
on RoboRally's Parallel env, a masked policy's whole episodes, and the two torchrl limits the docs name.

Skipped where torchrl is not installed (it is not a dependency; see docs/integrations.md for the versions run)."""

from __future__ import annotations

import pytest

torchrl = pytest.importorskip("torchrl")
torch = pytest.importorskip("torch")

from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import envs  # noqa: E402
from envs import lama_v0, roborally_v0, simple_poker_v0  # noqa: E402


def _wrap(pz_env):
    return PettingZooWrapper(pz_env, return_state=True, use_mask=True, categorical_actions=True)


def _masked_policy(groups, generator):
    """Each group's action drawn among its legal ones (torchrl hands every group an action; only the seat to
    act is read)."""

    def policy(td):
        for g in groups:
            mask = td[g, "action_mask"]
            weights = mask.float() + (~mask.any(-1, keepdim=True)).float()  # a seat not to act: any action
            td[g, "action"] = torch.multinomial(weights, 1, generator=generator).squeeze(-1)
        return td

    return policy


@pytest.mark.parametrize("make", [lambda: lama_v0.env(), lambda: roborally_v0.parallel_env(board="tiny", num_robots=2)],
                         ids=["lama env()", "roborally parallel_env()"])
def test_check_env_specs_and_global_state(make):
    pz = make()
    env = _wrap(pz)
    check_env_specs(env, seed=0)
    td = env.reset(seed=0)
    assert td["state"].shape == pz.state_space.shape


@pytest.mark.parametrize("make", [lambda: simple_poker_v0.env(), lambda: lama_v0.env(),
                                  lambda: roborally_v0.parallel_env(board="tiny", num_robots=2, max_turns=5)],
                         ids=["simple_poker", "lama", "roborally parallel"])
def test_masked_policy_plays_whole_episodes_without_an_illegal_move(make):
    pz = make()
    env = _wrap(pz)
    groups = list(env.group_map)
    policy = _masked_policy(groups, torch.Generator().manual_seed(0))
    for seed in range(3):
        env.set_seed(seed)
        rollout = env.rollout(2000, policy=policy, break_when_any_done=True)
        final = rollout[-1]["next"]
        assert bool(final["done"].all()), "the episode did not end"
        # each seat's rewards add up to its return at the game's end: an illegal move (the game cut short, -1 for
        # the offender) or a lost reward would break this
        returns = pz.unwrapped.game.returns(pz.unwrapped.game_state)
        for seat, g in enumerate(groups):
            assert float(rollout["next", g, "reward"].sum()) == pytest.approx(returns[seat], abs=1e-6)


# --- torchrl's defaults on every game -------------------------------------------------------------------------------

GAMES = envs.available_games()
SMALL = {"roborally": {"board": "tiny", "num_robots": 2}}
#: What each game's `env()` needs beyond torchrl's defaults for `check_env_specs`, and the torchrl reason.
TORCHRL_NEEDS = {
    # torchrl 0.14 drops "action_mask" from its info spec but, when the observation carries the mask too, not from
    # the info it copies: a game with more in its info (The Game's cards left) then writes into a missing entry
    "the_game": {"mask_in": "obs"},
}


def _defaults(pz_env):
    """torchrl's wrapper as its docs write it: every default, but `use_mask=True`, which torchrl requires of an AEC
    env (it refuses one without) and sets itself on a Parallel env that needs it."""
    from pettingzoo import AECEnv

    return PettingZooWrapper(pz_env, use_mask=True) if isinstance(pz_env, AECEnv) else PettingZooWrapper(pz_env)


@pytest.mark.parametrize("game", GAMES)
def test_defaults_pass_check_env_specs_and_play_random_episodes(game):
    """torchrl's `check_env_specs` (three seeds) and its own random rollouts, 300 steps across episode ends (reset
    by torchrl), on `env()` with torchrl's defaults; simple poker's probe always ends a hand (next test)."""
    mod = envs.load(game)
    env = _defaults(mod.env(**SMALL.get(game, {}), **TORCHRL_NEEDS.get(game, {})))
    if game != "simple_poker":
        for seed in range(3):
            check_env_specs(env, seed=seed)
    env.set_seed(0)
    rollout = env.rollout(300, break_when_any_done=False)
    assert rollout.batch_size == (300,) and bool(rollout["next", "done"].any())  # whole episodes, reset by torchrl
    for group in env.group_map:  # every action taken was legal (the acting seat's mask held it)
        acting = rollout[group, "mask"]
        chosen = rollout[group, "action"][acting]
        assert bool(rollout[group, "action_mask"][acting].gather(-1, chosen.unsqueeze(-1)).all())


def test_roborally_parallel_env_with_every_default():
    env = _defaults(envs.load("roborally").parallel_env(**SMALL["roborally"]))
    for seed in range(3):
        check_env_specs(env, seed=seed)


def test_torchrl_limits_named_in_the_docs_still_hold():
    """The two torchrl 0.14 limits docs/integrations.md names, pinned so that a torchrl that lifts them shows
    here: (1) `check_env_specs` draws an action at its 3-step probe's last step; a poker hand always ends
    within it, where no seat has a legal action (PettingZoo's all-zero mask at the end), and torchrl's masked
    specs cannot draw from an all-False mask; (2) The Game's default `mask_in="both"` with more in its info."""
    env = _defaults(envs.load("simple_poker").env())
    with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        check_env_specs(env, seed=0)
    with pytest.raises(TypeError, match="'NoneType' object does not support item assignment"):
        _defaults(envs.load("the_game").env()).reset(seed=0)
