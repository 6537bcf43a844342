"""Students saved and loaded as data (agents.learned): round trip, refusal of pickles, masks, determinism."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest

import agents
import envs
from agents.learned import FEATURES, LearnedAgent, Student, load_student, save_student
from envs.core.game import legal_mask
from envs.core.play import play_game

torch = pytest.importorskip("torch")


class Payload:
    """Pickles into a call that writes a marker file: what a hostile weights.pt would run."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _toy_features(view, mask):
    """Per-action features for a test feature set: the action id and whether it is legal."""
    n = len(mask)
    per = np.stack([np.arange(n) / n, np.asarray(mask, dtype=float)], axis=1)
    return np.array([float(getattr(view, "seat", 0))]), per


FEATURES["toy_test"] = _toy_features


def _students():
    torch.manual_seed(0)
    mp = Student("simple_poker", {}, "masked_policy", [16])
    sc = Student("primi_composti", {"cards_per_player": 4}, "action_scorer", [8, 8], features="toy_test")
    return [mp, sc]


def _decisions(student, n, seed=0):
    """Views and masks met in random games of the student's game."""
    game = student.game
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = game.initial_state(rng)
        while not game.is_terminal(s) and len(out) < n:
            seat = game.current_player(s)
            mask = legal_mask(game, s)
            out.append((game.view(s, seat), mask))
            legal = np.flatnonzero(mask)
            s = game.apply(s, int(legal[rng.integers(len(legal))]))
    return out


@pytest.mark.parametrize("which", [0, 1])
def test_save_load_round_trip_gives_the_same_probabilities(tmp_path, which):
    student = _students()[which]
    decisions = _decisions(student, 20)
    before = [student.probs(v, m) for v, m in decisions]
    folder = save_student(student, str(tmp_path / "s"), provenance={"seed": 0})
    again = load_student(folder)
    after = [again.probs(v, m) for v, m in decisions]
    np.testing.assert_array_equal(np.array(before), np.array(after))
    meta = json.load(open(os.path.join(folder, "policy.json")))
    assert meta["architecture"]["kind"] == student.kind and meta["provenance"] == {"seed": 0}


@pytest.mark.parametrize("which", [0, 1])
def test_masks_are_respected(which):
    student = _students()[which]
    for view, mask in _decisions(student, 30, seed=1):
        p = student.probs(view, mask)
        assert np.all(p[np.asarray(mask) == 0] == 0.0)
        assert p.sum() == pytest.approx(1.0)
        for sample in (False, True):
            agent = LearnedAgent(student, np.random.default_rng(0), sample=sample)
            assert mask[agent.act(view, mask)] == 1


def test_learned_ids_play_deterministically(tmp_path):
    student = _students()[0]
    folder = save_student(student, str(tmp_path / "s"))
    game = envs.make_game("simple_poker")

    def results(spec, seed):
        rng = np.random.default_rng(seed)
        a = agents.make(spec, game, rng=np.random.default_rng(seed + 1))
        b = agents.make("random", game, rng=np.random.default_rng(seed + 2))
        return [play_game(game, [a, b], game.initial_state(rng))[0] for _ in range(30)]

    for spec in (f"learned:{folder}", f"learned:{folder}?sample", f"learned:{folder}?greedy"):
        assert results(spec, 3) == results(spec, 3)
    with pytest.raises(ValueError, match="allowed: \\?sample, \\?greedy"):
        agents.make(f"learned:{folder}?bogus", game, rng=np.random.default_rng(0))


def test_a_malicious_pickle_is_refused_and_never_runs(tmp_path):
    folder = save_student(_students()[0], str(tmp_path / "s"))
    marker = tmp_path / "ran"
    with open(os.path.join(folder, "weights.pt"), "wb") as f:
        pickle.dump({"body.0.weight": Payload(str(marker))}, f)
    with pytest.raises(ValueError, match="not a plain tensor file"):
        load_student(folder)
    with pytest.raises(ValueError, match="not a plain tensor file"):
        agents.make(f"learned:{folder}", envs.make_game("simple_poker"), rng=np.random.default_rng(0))
    assert not marker.exists()
    # the same object saved through torch's own zip format is refused too
    torch.save({"body.0.weight": Payload(str(marker))}, os.path.join(folder, "weights.pt"))
    with pytest.raises(ValueError, match="not a plain tensor file"):
        load_student(folder)
    assert not marker.exists()


def test_damaged_folders_get_one_clear_line(tmp_path):
    with pytest.raises(ValueError, match="no student at"):
        load_student(str(tmp_path))
    folder = save_student(_students()[0], str(tmp_path / "s"))
    with pytest.raises(ValueError, match="does not play this game"):
        load_student(folder, envs.make_game("primi_composti"))
    (tmp_path / "s" / "policy.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="must be a JSON object"):
        load_student(folder)


def test_unknown_feature_set_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown feature set 'nope'.*toy_test"):
        Student("primi_composti", {}, "action_scorer", [8], features="nope")
