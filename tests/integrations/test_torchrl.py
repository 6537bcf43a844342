"""torchrl's own PettingZoo wrapper on our envs: `PettingZooWrapper(return_state=True, use_mask=True)` and its
`check_env_specs`, on an AEC env and on RoboRally's Parallel env, and a masked policy's whole episodes.

Skipped where torchrl is not installed (it is not a dependency; see docs/integrations.md for the versions run)."""

from __future__ import annotations

import pytest

torchrl = pytest.importorskip("torchrl")
torch = pytest.importorskip("torch")

from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

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
