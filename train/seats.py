"""How the default learner sees a vector env's seats: one learner seat (opponents live in the env), one team
policy in a cooperative game, or every seat (`control="all_seats"` self-play, with per-seat `gae_seats`).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def gae_seats(rewards: np.ndarray, players: np.ndarray, values: np.ndarray, last_values: np.ndarray,
              dones: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-seat GAE (float32 `(T, N)` advantages and returns) of an `all_seats` rollout in which every seat has its
    own return: seat p's decision at step t earns all seat p receives (`rewards` `(T, N, P)`) up to its next
    decision, valued there (`last_values` `(N, P)` after the last step); an episode's end closes every seat's
    trajectory (a truncated one valued 0), and the discount applies once per own decision."""
    T, N, P = rewards.shape
    rows = np.arange(N)
    adv = np.zeros((T, N), np.float32)
    next_value = last_values.astype(np.float32).copy()
    next_adv = np.zeros((N, P), np.float32)
    acc = np.zeros((N, P), np.float32)  # each seat's rewards from the step being looked at to its next decision
    for t in range(T - 1, -1, -1):
        d = dones[t]
        next_value[d] = 0.0
        next_adv[d] = 0.0
        acc[d] = 0.0
        acc += rewards[t]
        p = players[t]
        delta = acc[rows, p] + gamma * next_value[rows, p] - values[t]
        a = (delta + gamma * lam * next_adv[rows, p]).astype(np.float32)
        adv[t] = a
        next_value[rows, p] = values[t]
        next_adv[rows, p] = a
        acc[rows, p] = 0.0
    return adv, adv + values


# --- the vector env's side ------------------------------------------------------------------------------
def masks(venv: Any, info: dict[str, Any]) -> np.ndarray:
    """The learner's legal actions, bool `(N, A)`: `action_masks()`, else `info["action_mask"]`, else all legal."""
    if hasattr(venv, "action_masks"):
        return venv.action_masks()
    if "action_mask" in info:
        return np.asarray(info["action_mask"]).astype(bool)
    return np.ones((venv.num_envs, venv.single_action_space.n), bool)


def cooperative(venv: Any) -> bool:
    """Whether `venv`'s game is cooperative (its `GameSpec` says so; every seat shares the team's return): then
    `control="all_seats"` is one team policy with the team's reward at every step, and no sign flips."""
    return bool(_spec_says(venv, "cooperative"))


def _spec_says(venv: Any, flag: str) -> bool | None:
    """Whether the `GameSpec` of `venv`'s game sets `flag` (`cooperative`, `zero_sum`); None for a vector env of no
    registered game (a user's own: its word is taken)."""
    from envs.core.spec import registered, spec

    game = getattr(venv, "game", None)
    specs = [spec(g) for g in registered() if game is not None and isinstance(game, spec(g).game_class)]
    return bool(getattr(specs[0], flag)) if specs else None


ALL_SEATS_KEYS = ('info["current_player"] (N,)', 'info["rewards"] (N, 2)',
                  'info["final_info"]["current_player"] for truncated tables')


def self_play_mode(venv: Any) -> str:
    """How `train` plays `venv`: "one" (one seat, or one team policy in a cooperative game), "flip" (`all_seats` in a
    two-player zero-sum game: sign-flipped advantages) or "seats" (`all_seats` with more seats, or seats with returns
    of their own: per-seat advantages, `gae_seats`). A vector env of no registered game is taken at its word: two
    seats are zero-sum."""
    if getattr(venv, "control", "one_seat") != "all_seats" or cooperative(venv):
        return "one"
    if getattr(venv, "num_players", None) == 2 and _spec_says(venv, "zero_sum") is not False:
        return "flip"
    return "seats"


def check_all_seats(venv: Any, info: dict[str, Any], mode: str = "flip") -> None:
    """Raise NotImplementedError naming what an `all_seats` vector env lacks for self-play (`info`: its reset's)."""
    missing = [] if "current_player" in info else [ALL_SEATS_KEYS[0] + " from reset and step"]
    players = getattr(venv, "num_players", None)
    if mode == "flip" and players != 2:
        missing.append(f"num_players == 2 (got {players!r}; the sign flip is for two-player zero-sum games)")
    if mode == "seats" and not callable(getattr(venv, "observe", None)):
        missing.append("observe(rows, seats) (each seat's value at a rollout's end)")
    if missing:
        raise NotImplementedError(f"control='all_seats' self-play needs a vector env that gives {', '.join(missing)}; "
                                  f"{type(venv).__name__} does not")


def check_venv(venv: Any) -> None:
    """Raise ValueError unless `venv` is a vector env this learner runs on: Discrete actions, flat observations,
    same-step autoreset."""
    obs_space, act_space = venv.single_observation_space, venv.single_action_space
    if getattr(act_space, "n", None) is None:
        raise ValueError(f"the vector env's action space must be Discrete, got {act_space}")
    if len(obs_space.shape) != 1:
        raise ValueError(f"the vector env's observations must be flat vectors, got shape {obs_space.shape}")
    mode = venv.metadata.get("autoreset_mode")
    if getattr(mode, "value", mode) != "SameStep":
        raise ValueError(f"this learner needs same-step autoreset (a finished table's next obs is the new episode), "
                         f"got autoreset_mode={mode!r}")


def seat_rewards(venv: Any, info: dict[str, Any]) -> np.ndarray:
    """`all_seats`: every seat's reward of a step, float32 `(N, P)`, from the step's `info`.

    Raises:
        NotImplementedError: naming the keys the step's `info` lacks."""
    if "rewards" not in info or "current_player" not in info:
        raise NotImplementedError(f"control='all_seats' self-play needs {ALL_SEATS_KEYS[0]} and "
                                  f"{ALL_SEATS_KEYS[1]} from every step; {type(venv).__name__} gave "
                                  f"{', '.join(k for k in ('rewards', 'current_player') if k not in info)} "
                                  "no value")
    return np.asarray(info["rewards"], np.float32)


def truncated_values(values: np.ndarray, info: dict[str, Any], cut: np.ndarray, players: np.ndarray,
                     mode: str) -> np.ndarray:
    """The bootstrap of the tables `cut` a step truncated, from the critic's `values` of their last observations
    for the seats `players` that took the step: as they are ("one"), 0 ("seats"), negated where the other seat is
    to move ("flip").

    Raises:
        NotImplementedError: "flip" with no `info["final_info"]["current_player"]`."""
    if mode == "seats":
        values[:] = 0.0
    elif mode == "flip":
        fin = info.get("final_info", {})
        if "current_player" not in fin:
            raise NotImplementedError(f"control='all_seats' self-play needs {ALL_SEATS_KEYS[2]}")
        values = np.where(np.asarray(fin["current_player"])[cut] == players[cut], values, -values)
    return values
