"""The agent-id syntax of line-ups: `NAME*K` repeats, `ppo:` paths kept whole, distinct labels."""

from __future__ import annotations

import pytest

from agents import expand_agent_ids, labels_for


def test_expand_and_label():
    assert expand_agent_ids("a,b*3") == ["a", "b", "b", "b"]
    assert expand_agent_ids(["ppo:runs/x*2", " c ", ""]) == ["ppo:runs/x*2", "c"]
    assert labels_for(["a", "b", "b"]) == ["a", "b", "b#2"]
    for bad in ("a*0", "a*x"):
        with pytest.raises(ValueError, match="NAME\\*K"):
            expand_agent_ids(bad)
