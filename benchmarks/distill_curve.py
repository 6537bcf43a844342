"""Plot a distillation curve: each student's paired difference from the baseline against its labelled decisions.

    python -m evaluate lama --option rules=seed2022 --paired lama/third-retuned,learned:runs/c100/student,... \
        --against 'lama/first*3' --games 1000 --json curve.json
    python benchmarks/distill_curve.py --paired curve.json --figure win \
        --students learned:runs/c100/student=13000,... --title "..." --ylabel "win rate minus third-retuned" \
        --out docs/img/lama_seed2022_distill_curve.png

`--paired` is the JSON of `python -m evaluate GAME --paired BASELINE,STUDENT,... --json` (the baseline first:
each comparison is the baseline minus a student, plotted the other way round, student minus baseline, with its
95% interval; `--figure` picks the pooled mean score, the default, or the win rate), or a saved curve
(`docs/data/*_distill_curve.json`) whose `agents` map each student to its difference from the baseline
(`diff`, `diff_low`, `diff_high`, or `python -m evaluate.primi_composti.check`'s `mean_difference`, `ci`). `--students`
names the agents to plot with the number of teacher-labelled decisions each was fitted on (`config.json`'s
curve gives them). A label after a second `=` names the point in the legend-free plot (default: the agent id).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def differences(res: dict[str, Any], figure: str = "score") -> dict[str, tuple[float, float, float]]:
    """Each student's (difference from the baseline, low, high) in a `--paired` file (module docstring)."""
    if "comparisons" in res:
        key, ci = ("diff", "diff_ci95") if figure == "score" else ("win_diff", "win_diff_ci95")
        return {c["b"]: (-c["pooled"][key], -c["pooled"][ci][1], -c["pooled"][ci][0]) for c in res["comparisons"]}
    return {a: (r["diff"], r["diff_low"], r["diff_high"]) if "diff" in r else (r["mean_difference"], *r["ci"])
            for a, r in res["agents"].items()}


def main() -> None:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paired", required=True, help="the comparisons' JSON (module docstring)")
    ap.add_argument("--figure", choices=["score", "win"], default="score",
                    help="of a `python -m evaluate --paired` file: the pooled mean score (default) or win rate")
    ap.add_argument("--students", required=True, help="AGENT=DECISIONS[=LABEL],... in plotting order")
    ap.add_argument("--title", default="")
    ap.add_argument("--ylabel", default="paired difference from the baseline")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.paired, encoding="utf-8") as f:
        res = json.load(f)
    diffs = differences(res, args.figure)
    points = []
    for item in args.students.split(","):
        parts = item.rsplit("=", 2) if item.count("=") >= 2 else item.rsplit("=", 1)
        agent, decisions = parts[0], int(parts[1])
        label = parts[2] if len(parts) > 2 else agent
        if agent not in diffs:
            ap.error(f"{agent!r} is not in {args.paired}; agents: {', '.join(diffs)}")
        points.append((decisions, *diffs[agent], label))
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    xs = [p[0] for p in points]
    ax.errorbar(xs, [p[1] for p in points], yerr=[[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]],
                marker="o", capsize=3)
    for x, y, _, _, label in points:
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlim(min(xs) / 1.5, max(xs) * 2.5)
    ax.set_xlabel("teacher-labelled decisions the student was fitted on")
    ax.set_ylabel(args.ylabel, fontsize=8)
    size = (
        f"{res['comparisons'][0]['deals']} paired deals"
        if "comparisons" in res
        else f"{res.get('games', '')} paired games"
    )
    ax.set_title(args.title or size, fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
