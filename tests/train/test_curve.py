"""A run's curve reads at a glance: units on the axes, reference lines, a smoothed return; the console's last
line is a sentence, not a dict."""

from __future__ import annotations

import matplotlib
import pytest

import envs
from train.curve import LABELS, references_for, summary_line, write_curve

matplotlib.use("Agg")


@pytest.fixture
def saved(monkeypatch):
    """The figure of each `savefig` call, as {"fig": the last one}."""
    import matplotlib.pyplot as plt

    kept = {}
    real = plt.Figure.savefig

    def keep(fig, path, **kw):
        kept["fig"] = fig
        return real(fig, path, **kw)

    monkeypatch.setattr(plt.Figure, "savefig", keep)
    return kept


def test_curve_has_units_references_and_a_band(tmp_path, saved):
    rows = [{"timesteps": float(t), "mean_return": (-1) ** t * 0.1 * t, "exploitability": 0.5 / (t + 1),
             "eval_win_rate": 0.4, "eval_mean_score": -0.1} for t in range(12)]
    game = envs.make_game("simple_poker")
    levels = {"simple_poker/nash": {"eval_win_rate": 0.45, "eval_mean_score": 0.05}}
    refs = references_for(game, envs.spec("simple_poker"), "one_seat", levels)
    assert refs["exploitability"] == [(0.0, "equilibrium (0)")] and refs["eval_win_rate"][0][0] == 0.5
    assert refs["eval_win_rate"][1] == (0.45, "simple_poker/nash in the seat (0.450)")
    assert refs["eval_mean_score"] == [(0.0, "break even (0)"), (0.05, "simple_poker/nash in the seat (0.050)")]
    write_curve(rows, str(tmp_path), "Simple poker, simple_poker(n=3): MaskablePPO self-play", references=refs)
    assert (tmp_path / "curve.png").stat().st_size > 1000 and (tmp_path / "curve.csv").exists()
    axes = saved["fig"].axes
    assert [a.get_ylabel() for a in axes] == [LABELS[k] for k in sorted(rows[0]) if k != "timesteps"]
    assert axes[-1].get_xlabel() == "learner steps" and "n=3" in axes[0].get_title()
    legends = {t.get_text() for a in axes for t in a.get_legend().get_texts()}
    assert {"equilibrium (0)", "± 1 s.d.", "equal share (1/2): as strong as the opponents",
            "simple_poker/nash in the seat (0.450)"} <= legends


def test_wall_clock_is_a_second_axis_not_a_panel(tmp_path, saved):
    rows = [{"timesteps": 1000.0 * t, "mean_return": 0.1 * t, "wall_s": 30.0 * t} for t in range(1, 9)]
    write_curve(rows, str(tmp_path), "a run")
    panels = [a for a in saved["fig"].axes if a.get_ylabel()]
    assert [a.get_ylabel() for a in panels] == [LABELS["mean_return"]]
    top = [a for a in panels[0].child_axes if a.get_xlabel() == "wall-clock (minutes)"]
    assert len(top) == 1 and abs(top[0]._functions[0](4000.0) - 2.0) < 1e-9  # 4,000 steps at 120 s
    # beyond the last point (the plot's margin) the clock goes on at the run's rate, not held at 4 minutes
    assert abs(top[0]._functions[0](9000.0) - 4.5) < 1e-9 and abs(top[0]._functions[1](4.5) - 9000.0) < 1e-9
    ticks = [t for t in top[0].get_xticks() if panels[0].get_xlim()[0] <= top[0]._functions[1](t)
             <= panels[0].get_xlim()[1]]
    assert len({round(float(top[0]._functions[1](t))) for t in ticks}) == len(ticks)  # no two ticks at one place
    assert (tmp_path / "curve.csv").read_text().splitlines()[0] == "timesteps,mean_return,wall_s"
    write_curve([{k: v for k, v in r.items() if k != "wall_s"} for r in rows], str(tmp_path), "no clock")
    assert not [a for a in saved["fig"].axes[0].child_axes if a.get_xlabel() == "wall-clock (minutes)"]


def test_summary_line_is_a_sentence():
    row = {"timesteps": 300000.0, "eval_win_rate": 0.161, "eval_mean_score": -23.5, "mean_return": -30.2}
    line = summary_line("lama", {"reward": "dense"}, row, 400)
    assert line == ("lama(reward=dense) after 300,000 steps: the policy won 16.1% of 400 evaluation games "
                    "(mean score -23.50); its recent training games returned -30.200 on average")
