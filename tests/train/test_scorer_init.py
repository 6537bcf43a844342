"""Starting a run from a saved action scorer: its weights are shared over the candidates, so a scorer saved with the
game's action count (as a rules-engine agent holds it) starts a run whose env offers fewer candidates."""

from __future__ import annotations

import pytest
import torch

from train.networks import Policy, ScorerPolicy, start_from


def test_a_scorer_starts_a_run_with_another_candidate_count():
    saved = ScorerPolicy(10, 19, 30241, [16, 16], torch.Generator().manual_seed(1))
    fresh = ScorerPolicy(10, 19, 32, [16, 16], torch.Generator().manual_seed(2))
    start_from(fresh, saved, [16, 16])
    for (name, a), b in zip(saved.state_dict().items(), fresh.state_dict().values()):
        assert torch.equal(a, b), name


def test_a_scorer_of_other_features_or_an_mlp_is_refused():
    saved = ScorerPolicy(10, 19, 32, [16, 16], torch.Generator().manual_seed(1))
    with pytest.raises(ValueError, match="init is a ScorerPolicy"):
        start_from(ScorerPolicy(10, 18, 32, [16, 16], torch.Generator()), saved, [16, 16])
    with pytest.raises(ValueError, match="init is a ScorerPolicy"):
        start_from(Policy(618, 32, [16, 16], torch.Generator()), saved, [16, 16])
