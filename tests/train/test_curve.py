"""A run's curve reads at a glance: units on the axes, reference lines, a smoothed return; the console's last
line is a sentence, not a dict."""

from __future__ import annotations

import matplotlib

import envs
from train.curve import LABELS, references_for, summary_line, write_curve

matplotlib.use("Agg")


def test_curve_has_units_references_and_a_band(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    rows = [{"timesteps": float(t), "mean_return": (-1) ** t * 0.1 * t, "exploitability": 0.5 / (t + 1),
             "eval_win_rate": 0.4, "eval_mean_score": -0.1} for t in range(12)]
    game = envs.make_game("simple_poker")
    refs = references_for(game, envs.spec("simple_poker"), "one_seat")
    assert refs["exploitability"] == (0.0, "equilibrium (0)") and refs["eval_win_rate"][0] == 0.5
    saved = {}
    real = plt.Figure.savefig

    def keep(fig, path, **kw):
        saved["fig"] = fig
        return real(fig, path, **kw)

    monkeypatch.setattr(plt.Figure, "savefig", keep)
    write_curve(rows, str(tmp_path), "Simple poker, simple_poker(n=3): MaskablePPO self-play", references=refs)
    assert (tmp_path / "curve.png").stat().st_size > 1000 and (tmp_path / "curve.csv").exists()
    axes = saved["fig"].axes
    assert [a.get_ylabel() for a in axes] == [LABELS[k] for k in sorted(rows[0]) if k != "timesteps"]
    assert axes[-1].get_xlabel() == "learner steps" and "n=3" in axes[0].get_title()
    legends = {t.get_text() for a in axes for t in a.get_legend().get_texts()}
    assert {"equilibrium (0)", "± 1 s.d.", "equal share (1/2): as strong as the opponents"} <= legends


def test_summary_line_is_a_sentence():
    row = {"timesteps": 300000.0, "eval_win_rate": 0.161, "eval_mean_score": -23.5, "mean_return": -30.2}
    line = summary_line("lama", {"reward": "dense"}, row, 400)
    assert line == ("lama(reward=dense) after 300,000 steps: the policy won 16.1% of 400 evaluation games "
                    "(mean score -23.50); its recent training games returned -30.200 on average")
