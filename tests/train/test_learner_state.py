"""The default learner's whole state (`train.checkpoint.learner_state`, `PPO.state`): written as a checkpoint after
an update and read into a freshly built run, the run goes on bit for bit as the run left alone; a state of another
run's shape is refused in one line. And the seats' side of a rollout step (`train.seats`): the all_seats rewards and
the values of truncated episodes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from train.checkpoint import pack_arrays, read_checkpoint, unpack_arrays, write_checkpoint
from train.cleanrl_ppo import PPO, Settings
from train.seats import seat_rewards, truncated_values

torch.set_num_threads(1)

#: Columns of an update's history entry that measure the clock, not the run.
CLOCK = ("wall_s", "steps_per_s", "collect_s", "learn_s")
SMALL = dict(n_steps=7, minibatch=16, epochs=2, hidden=(16,), seed=3)  # odd: a rollout ends on the other seat


def _venv(game="lama"):
    import agents

    if game == "primi_composti":  # self-play: the seat to move at each table is part of the state
        return agents.vector_env(game, 4, opponents=[], seed=3, control="all_seats", copy=False)
    return agents.vector_env("lama", 4, opponents=["lama/first"] * 3, seed=3, reward="dense", copy=False)


def _figures(entries):
    """The entries' figures but the clock's, as exact text (a NaN, no episode ended, equals itself)."""
    return [{k: repr(v) for k, v in e.items() if k not in CLOCK} for e in entries]


@pytest.mark.parametrize("game", ["lama", "primi_composti"])
def test_a_run_read_back_from_its_checkpoint_goes_on_as_the_run_left_alone(game, tmp_path):
    settings = Settings(total_steps=84, **SMALL)  # 3 updates of 4 tables x 7 steps
    alone = PPO(_venv(game), settings)
    left_alone = [alone.update() for _ in range(3)]
    stopped = PPO(_venv(game), settings)
    stopped.update()
    state = stopped.state()
    layout, arrays = pack_arrays(state["arrays"])
    write_checkpoint(str(tmp_path), stopped.steps, {"numbers": state["numbers"], "arrays": layout},
                     {**state["tensors"], "arrays": arrays})
    numbers, tensors = read_checkpoint(str(tmp_path))  # JSON and plain tensors, as a resumed run reads them
    resumed = PPO(_venv(game), settings)
    resumed.load_state({"numbers": numbers["numbers"], "tensors": tensors,
                        "arrays": unpack_arrays(numbers["arrays"], tensors["arrays"])})
    assert resumed.steps == 28 and not resumed.done
    went_on = [resumed.update() for _ in range(2)]
    assert resumed.done and _figures(went_on) == _figures(left_alone[1:])
    for name, w in alone.policy.state_dict().items():
        assert torch.equal(w, resumed.policy.state_dict()[name]), name


def test_a_state_of_another_runs_shape_is_refused_in_one_line():
    run = PPO(_venv(), Settings(total_steps=84, **SMALL))
    run.update()
    state = run.state()
    other = PPO(_venv(), Settings(total_steps=84, **(SMALL | {"n_steps": 4})))
    with pytest.raises(ValueError, match=r"the checkpoint says 28 steps in 1 updates; this run makes 16 steps an "
                                         r"update, 6 updates in all"):
        other.load_state(state)
    wider = PPO(_venv(), Settings(total_steps=84, **(SMALL | {"hidden": (8,)})))
    with pytest.raises(ValueError, match="the checkpoint does not fit its run"):
        wider.load_state(state)


class _Env:
    """A stand-in vector env, only its name is read."""


def test_all_seats_rewards_name_the_keys_a_step_lacks():
    info = {"rewards": [[1, -1], [0.5, -0.5]], "current_player": np.array([0, 1])}
    got = seat_rewards(_Env(), info)
    assert got.dtype == np.float32 and got.tolist() == [[1.0, -1.0], [0.5, -0.5]]
    with pytest.raises(NotImplementedError, match=r"gave current_player no value"):
        seat_rewards(_Env(), {"rewards": info["rewards"]})
    with pytest.raises(NotImplementedError, match=r"gave rewards, current_player no value"):
        seat_rewards(_Env(), {})


def test_truncated_values_by_mode():
    values = np.array([0.5, -2.0], np.float32)  # the critic's values of tables 1 and 3's last observations
    cut, players = np.array([1, 3]), np.array([0, 1, 0, 1])  # the seats that took the truncating step
    info = {"final_info": {"current_player": np.array([9, 1, 9, 0])}}  # table 1: the same seat; table 3: the other
    assert truncated_values(values.copy(), info, cut, players, "one").tolist() == [0.5, -2.0]
    assert truncated_values(values.copy(), info, cut, players, "flip").tolist() == [0.5, 2.0]
    assert truncated_values(values.copy(), info, cut, players, "seats").tolist() == [0.0, 0.0]
    with pytest.raises(NotImplementedError, match=r'info\["final_info"\]\["current_player"\]'):
        truncated_values(values.copy(), {}, cut, players, "flip")
