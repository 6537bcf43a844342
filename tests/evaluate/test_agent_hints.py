"""The saved-policy forms read the same in the unknown-agent hint and in `python -m evaluate list`."""

from __future__ import annotations

import pytest

from agents.base import SAVED_POLICY_FORMS
from evaluate.__main__ import main as evaluate_main


def _run(argv, capsys) -> tuple[int, str, str]:
    try:
        code = evaluate_main(argv)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_hint_and_list_name_the_same_forms(capsys):
    code, _, err = _run(["simple_poker", "--agents", "nobody,random", "--games", "1"], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "unknown agent 'nobody'" in err
    code, listing, _ = _run(["list"], capsys)
    assert code == 0
    for form, what in SAVED_POLICY_FORMS:
        assert form in err
        assert f"  {form}: {what}" in listing.splitlines()


@pytest.mark.parametrize("prefix,words", [
    ("ppo:", ["?greedy", "python -m train"]),
    ("learned:", ["?greedy", "?sample", "`python -m train GAME`", "--method distill"]),
])
def test_forms_name_their_flags_and_every_run_that_writes_them(prefix, words):
    form, what = next((f, w) for f, w in SAVED_POLICY_FORMS if f.startswith(prefix))
    for word in words:
        assert word in form + " " + what, word
