"""Plot a distillation curve: each student's paired difference from the baseline against its labelled decisions.

    python benchmarks/distill_curve.py --paired docs/data/lama_seed2022_distill_curve.json \
        --students learned:runs/c100/student=13000,... --title "..." --ylabel "win rate minus third-retuned" \
        --out docs/img/lama_seed2022_distill_curve.png

`--paired` is the JSON of `benchmarks/lama_paired.py` or `benchmarks/the_game_paired.py` (every agent on the
same games, `diff`/`diff_low`/`diff_high` from the first agent) or a file whose `agents` map each student to
`python -m train.distill_primi`'s head-to-head entry (`mean_difference`, `ci`); `--students` names the agents to plot with the
number of teacher-labelled decisions each was fitted on (`config.json`'s curve gives them). A label after a
second `=` names the point in the legend-free plot (default: the agent id).
"""

from __future__ import annotations

import argparse
import json


def main() -> None:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paired", required=True)
    ap.add_argument("--students", required=True, help="AGENT=DECISIONS[=LABEL],... in plotting order")
    ap.add_argument("--title", default="")
    ap.add_argument("--ylabel", default="paired difference from the baseline")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.paired, encoding="utf-8") as f:
        res = json.load(f)
    points = []
    for item in args.students.split(","):
        parts = item.rsplit("=", 2) if item.count("=") >= 2 else item.rsplit("=", 1)
        agent, decisions = parts[0], int(parts[1])
        label = parts[2] if len(parts) > 2 else agent
        if agent not in res["agents"]:
            ap.error(f"{agent!r} is not in {args.paired}; agents: {', '.join(res['agents'])}")
        r = res["agents"][agent]
        low, high = (r["diff_low"], r["diff_high"]) if "diff" in r else r["ci"]
        points.append((decisions, r["diff"] if "diff" in r else r["mean_difference"], low, high, label))
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
    ax.set_title(args.title or f"{res.get('games', '')} paired games", fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
