"""RoboRally results: races between the robots (`roborally/mc`, `greedy`, `random`), and mc's budget and depth curve.

    python -m evaluate roborally --study docs/data/roborally_results.json [--races 400] [--study-boards race_easy]

A *cell* is one board, one robot count and one pairing A vs B (2 robots: A, B; 4 robots: A, B, A, B), played as a
tournament of the one runner (`evaluate.tournament.run_tournament`: seeded deals replayed in every seat rotation);
docs/roborally.md ("Results") gives the budget and plot commands, the design and what the report gives. The JSON is
written after every `chunk` of deals and a restarted study skips the deals a file holds; files of the study's
former loop (other deals) are refused.
"""
from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

import envs
from evaluate.jsonio import write_figure, write_json
from evaluate.stats import mean_interval, wilson_interval
from evaluate.tournament import run_tournament

GAME = "roborally"
BOARDS = ("race_easy", "race_medium", "race_hard")
PAIRINGS = (("roborally/mc", "roborally/greedy"), ("roborally/mc", "roborally/random"),
            ("roborally/greedy", "roborally/random"))
#: Race settings of the study: the seed's decision problem (no power down, which none of these robots uses; flags
#: repair), the board's 3 lives, and a 60-turn cap (greedy robots finish the shipped races in 4–30 turns).
RACE_OPTIONS = {"rules": "seed", "max_turns": 60}
BUDGETS = (100, 1000, 10000, 20000)
DEPTHS = (1, 2, 3)
#: The deals a study file holds: the tournament runner's (`settings["deals"]`); a file without this mark holds other
#: deals and is refused (`run_cells`).
DEALS = "evaluate.tournament"


def cell_key(board: str, n: int, a: str, b: str) -> str:
    """The cell's key in the study JSON."""
    return f"{board}|{n}|{a}|{b}"


def play_cell(board: str, n: int, a: str, b: str, deals: range, seed: int = 0,
              options: dict | None = None) -> dict:
    """Play the consecutive deal numbers `deals` of one cell (a tournament of `[a, b] * (n // 2)` with seat
    rotation, seeded `seed`); returns raw records (`[deal, rotation, winner, turns, ending]` a race) and each
    agent's `[seconds, turns]` of decisions (see `summarise`)."""
    if deals.step != 1:
        raise ValueError(f"deals must be consecutive, got {deals}")
    if not len(deals):
        return {"races": [], "timing": {}}
    opts = {**RACE_OPTIONS, **(options or {}), "board": board, "num_robots": n}
    game = envs.make_game(GAME, **opts)
    entrants = [a, b] * (n // 2)
    res = run_tournament(GAME, entrants, games=len(deals) * n, seed=seed, options=opts, start_deal=deals.start,
                         records=True, timing=True, progress=False)
    races = []
    for g in res.records:
        # Every turn is exactly `steps_per_turn` sub-steps (robots that cannot act play NOOP).
        turns = g.moves // game.steps_per_turn
        winner = entrants[g.winners[0]] if g.winners else None
        ending = "win" if g.winners else ("max_turns" if turns >= game.config.max_turns else "eliminated")
        races.append([g.deal, g.rotation, winner, turns, ending])
    timing: dict[str, list[float]] = {}
    for e, (seconds, calls) in zip(entrants, res.decision_time):
        s, k = timing.get(e, [0.0, 0.0])
        timing[e] = [s + seconds, k + calls / game.rounds]  # a robot's turn: `rounds` sub-steps, one program
    return {"races": races, "timing": timing}


def summarise(cell: dict, a: str, b: str) -> dict:
    """Win rates with intervals, race lengths, endings and decision times of one cell's raw records."""
    races = cell["races"]
    deals = sorted({r[0] for r in races})
    out: dict[str, Any] = {"races": len(races), "deals": len(deals), "agents": {}}
    by_deal = {d: [r for r in races if r[0] == d] for d in deals}
    for x in (a, b):
        per_deal = [np.mean([r[2] == x for r in by_deal[d]]) for d in deals]
        wins = sum(r[2] == x for r in races)
        m, lo, hi = mean_interval(per_deal) if len(deals) > 1 else (wins / max(1, len(races)), 0.0, 1.0)
        plo, phi = wilson_interval(float(wins), len(races))
        lengths = [r[3] for r in races if r[2] == x]
        secs, k = cell["timing"].get(x, (0.0, 0))
        out["agents"][x] = {
            "wins": int(wins), "win_rate": float(m), "ci95": [max(0.0, min(lo, plo)), min(1.0, max(hi, phi))],
            "turns_to_win_mean": float(np.mean(lengths)) if lengths else None,
            "turns_to_win_median": float(np.median(lengths)) if lengths else None,
            "seconds_per_decision": secs / k if k else None,
        }
    ends = [r[4] for r in races]
    out["endings"] = {e: ends.count(e) for e in ("win", "max_turns", "eliminated")}
    out["mean_turns"] = float(np.mean([r[3] for r in races])) if races else None
    return out


def load(path: str) -> dict:
    """The study JSON at `path` ({} if absent)."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def run_cells(path: str, cells: list[tuple[str, int, str, str]], races: int, chunk: int = 5, seed: int = 0,
              log=print, options: dict | None = None) -> dict:
    """Play every cell up to `races` races (whole deals), appending to and rewriting `path` after every chunk.
    `options`: game options over `RACE_OPTIONS` (e.g. `action_mode="program"` for program scorers), kept in the
    file's settings: a file is played on with its own options only."""
    data = load(path)
    if data and data.get("settings", {}).get("deals") != DEALS:
        raise ValueError(f"{path} holds races of the study's former loop (other deals); write to a new file")
    if data and data["settings"].get("seed") != seed:
        raise ValueError(f"{path} holds deals of seed {data['settings'].get('seed')}, not {seed}")
    options = dict(options or {})
    if data and data["settings"].get("options", {}) != options:
        raise ValueError(f"{path} holds races with options {data['settings'].get('options', {})}, not {options}")
    data.setdefault("settings", {"race_options": RACE_OPTIONS, "seed": seed, "deals": DEALS}
                    | ({"options": options} if options else {}))
    data.setdefault("cells", {})
    for board, n, a, b in cells:
        key = cell_key(board, n, a, b)
        raw = data["cells"].setdefault(key, {"raw": {"races": [], "timing": {}}})["raw"]
        target = -(-races // n)
        done = {r[0] for r in raw["races"]}
        todo = [d for d in range(target) if d not in done]
        for i in range(0, len(todo), chunk):
            for first, last in _spans(todo[i:i + chunk]):
                part = play_cell(board, n, a, b, range(first, last + 1), seed, options)
                raw["races"] += part["races"]
                for e, (s, k) in part["timing"].items():
                    s0, k0 = raw["timing"].get(e, (0.0, 0))
                    raw["timing"][e] = [s0 + s, k0 + k]
            data["cells"][key]["summary"] = summarise(raw, a, b)
            write_json(path, data, indent=None)  # one line: thousands of race records
            sm = data["cells"][key]["summary"]["agents"][a]
            log(f"{key}: {len(raw['races'])} races, {a} {sm['win_rate']:.3f} {sm['ci95']}")
    return data


def _spans(deals: list[int]) -> list[tuple[int, int]]:
    """Sorted deal numbers as runs of consecutive ones, (first, last) each."""
    out: list[tuple[int, int]] = []
    for d in deals:
        if out and d == out[-1][1] + 1:
            out[-1] = (out[-1][0], d)
        else:
            out.append((d, d))
    return out


def study_cells(boards=BOARDS, sizes=(2, 4), pairings=PAIRINGS) -> list[tuple[str, int, str, str]]:
    """The results grid: every board × robot count × pairing, 2-robot cells first."""
    return [(bd, n, a, b) for n in sizes for bd in boards for a, b in pairings]


def budget_cells(board: str = "race_medium", budgets=BUDGETS, depths=DEPTHS) -> list[tuple[str, int, str, str]]:
    """mc (budget B, depth d) against greedy, 2 robots on `board`; the cheap points (small budget) first, so a
    stopped sweep has whole curves at the small budgets."""
    return [(board, 2, f"roborally/mc?budget={bu}&depth={d}", "roborally/greedy") for bu in budgets for d in depths]


def _order(key: str) -> tuple:
    """Sort cells by robots, board (easy to hard), then pairing (as `PAIRINGS`, other agents after)."""
    board, n, a, b = key.split("|")
    pair = PAIRINGS.index((a, b)) if (a, b) in PAIRINGS else len(PAIRINGS)
    return (int(n), BOARDS.index(board) if board in BOARDS else len(BOARDS), board, pair, a)


def _short(agent: str) -> str:
    """`roborally/mc?policy=greedy&depth=2` -> `mc[policy=greedy,depth=2]`."""
    name = agent.split("/", 1)[1]
    if "?" in name:
        head, query = name.split("?", 1)
        name = f"{head}[{query.replace('&', ',')}]"
    return name


def markdown_table(path: str) -> str:
    """The study JSON as a Markdown table: one row per cell (first agent's win rate, the other's, race lengths,
    endings, seconds per decision)."""
    cells = load(path).get("cells", {})
    cells = {k: cells[k] for k in sorted(cells, key=_order)}
    head = ("| board | robots | A vs B | races | A wins (95% CI) | B wins (95% CI) | turns to win A / B (median) "
            "| ended by max_turns / all eliminated | s per decision A / B |")
    lines = [head, "|" + "---|" * 9]
    for key, cell in cells.items():
        if "summary" not in cell:
            continue
        board, n, a, b = key.split("|")
        sm = cell["summary"]
        sa, sb = sm["agents"][a], sm["agents"][b]

        def rate(x):
            return f"{x['win_rate']:.3f} [{x['ci95'][0]:.3f}, {x['ci95'][1]:.3f}]"

        def opt(x, key, spec):
            return "–" if x[key] is None else format(x[key], spec)

        med, sec = "turns_to_win_median", "seconds_per_decision"
        lines.append(f"| {board} | {n} | {_short(a)} vs {_short(b)} | {sm['races']} | {rate(sa)} | {rate(sb)} | "
                     f"{opt(sa, med, '.0f')} / {opt(sb, med, '.0f')} | {sm['endings']['max_turns']} / "
                     f"{sm['endings']['eliminated']} | {opt(sa, sec, '.3f')} / {opt(sb, sec, '.3f')} |")
    return "\n".join(lines)


def plot(results_path: str | None, budget_path: str | None, out: str) -> list[str]:
    """Bar charts of the 2- and 4-robot win rates (`results_path`: one study JSON or several, comma-separated) and
    mc's budget/depth curve against greedy; the paths written."""
    plt = _pyplot()
    os.makedirs(out, exist_ok=True)
    written = []
    paths = [p for p in (results_path or "").split(",") if p and os.path.exists(p)]
    if paths:
        cells = {k: v for p in paths for k, v in load(p).get("cells", {}).items()}
        cells = {k: cells[k] for k in sorted(cells, key=_order)}
        fig, axes = plt.subplots(1, 2, figsize=(13, 6), sharey=True)
        for ax, n in zip(axes, (2, 4)):
            labels, rates, errs = [], [], []
            for key, cell in cells.items():
                board, size, a, b = key.split("|")
                if int(size) != n or "summary" not in cell:
                    continue
                sa = cell["summary"]["agents"][a]
                labels.append(f"{board}: {_short(a)} vs {_short(b)} ({cell['summary']['races']})")
                rates.append(sa["win_rate"])
                errs.append([sa["win_rate"] - sa["ci95"][0], sa["ci95"][1] - sa["win_rate"]])
            if labels:
                ax.bar(range(len(labels)), rates, yerr=np.array(errs).T, capsize=3, color="tab:blue")
                ax.set_xticks(range(len(labels)), labels, fontsize=7, rotation=35, ha="right")
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            seats = "A, B" if n == 2 else "A, B, A, B"
            ax.set_title(f"{n} robots ({seats}): A's win rate (95% CI)")
            ax.set_ylim(0, 1)
        written.append(_save(plt, fig, os.path.join(out, "results_win_rates.png")))
    if budget_path and os.path.exists(budget_path):
        cells = load(budget_path).get("cells", {})
        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        curves: dict[int, list] = {}
        for key, cell in cells.items():
            _, _, a, _ = key.split("|")
            opts = dict(part.split("=") for part in a.split("?", 1)[1].split("&"))
            sa = cell["summary"]["agents"][a]
            curves.setdefault(int(opts["depth"]), []).append((int(opts["budget"]), sa["win_rate"], *sa["ci95"]))
        for d, pts in sorted(curves.items()):
            pts.sort()
            x = [p[0] for p in pts]
            y = [p[1] for p in pts]
            ax.errorbar(x, y, yerr=[[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]], marker="o",
                        capsize=3, label=f"depth {d}")
        ax.set_xscale("log")
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("playouts per decision")
        ax.set_ylabel("mc win rate against greedy (95% CI)")
        ax.set_title("race_medium, 2 robots, playout policy random")
        ax.legend()
        written.append(_save(plt, fig, os.path.join(out, "results_budget.png")))
    return written


def _seat_rate(board: str, ids: list[str], races: int, seed: int, options: dict) -> tuple[float, list[float]]:
    """Win rate (95% CI) of `ids[0]` against `ids[1]`, 2 robots on `board`, seats rotated, `races` races."""
    opts = {**RACE_OPTIONS, **options, "board": board, "num_robots": 2}
    res = run_tournament(GAME, ids, games=races, seed=seed, options=opts, progress=False)
    return res.agents[0].win_rate, list(res.agents[0].ci95)


def run_curve(run: str, boards: list[str], races: int, seed: int, out: str, log=print) -> list[str]:
    """A training run's learning curve on held-apart races: every snapshot (`RUN/snapshots/<steps>/`) and the run's
    end (`RUN/policy`) against greedy, 2 robots a board, seats rotated, `races` races of `seed`, with greedy's and
    mc's levels on the same races drawn; writes `curve.csv`, `curve.png` and `curve.json` to `out`."""
    if not any(os.path.isdir(os.path.join(run, d)) for d in ("snapshots", "policy")):
        raise ValueError(f"{run} holds no snapshots/ and no policy/: not a training run's folder")
    with open(os.path.join(run, "config.json"), encoding="utf-8") as f:
        options = {k: v for k, v in json.load(f)["options"].items() if k not in ("board", "num_robots", "reward")}
    with open(os.path.join(run, "history.csv"), encoding="utf-8") as f:
        rows = [line.split(",") for line in f.read().splitlines()]
    col = {k: i for i, k in enumerate(rows[0])}
    wall = {int(r[col["steps"]]): float(r[col["wall_s"]]) for r in rows[1:]}
    snaps = sorted(os.listdir(os.path.join(run, "snapshots"))) if os.path.isdir(os.path.join(run, "snapshots")) else []
    points = [(int(s), os.path.join(run, "snapshots", s)) for s in snaps if s.isdigit()]
    if os.path.isdir(os.path.join(run, "policy")) and (not points or max(wall) > points[-1][0]):
        points.append((max(wall), os.path.join(run, "policy")))
    levels = {b: {name: _seat_rate(b, [agent, "roborally/greedy"], races, seed, options)
                  for name, agent in (("greedy", "roborally/greedy"), ("mc", "roborally/mc"))} for b in boards}
    table = []
    for steps, path in points:
        for b in boards:
            rate, ci = _seat_rate(b, [f"learned:{path}", "roborally/greedy"], races, seed, options)
            table.append({"steps": steps, "wall_s": wall.get(steps), "board": b, "win_rate": rate, "ci95": ci})
            log(f"{steps} steps, {b}: {rate:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]")
    os.makedirs(out, exist_ok=True)
    data = {"run": run, "seed": seed, "races": races, "options": options, "levels": levels, "points": table}
    write_json(os.path.join(out, "curve.json"), data)
    with open(os.path.join(out, "curve.csv"), "w", encoding="utf-8") as f:
        f.write("steps,wall_s,board,win_rate,ci_low,ci_high\n" + "".join(
            f"{p['steps']},{p['wall_s']},{p['board']},{p['win_rate']},{p['ci95'][0]},{p['ci95'][1]}\n" for p in table))
    plot_curve(data, os.path.join(out, "curve.png"))
    return [os.path.join(out, name) for name in ("curve.csv", "curve.png", "curve.json")]


def plot_curve(data: dict, path: str) -> None:
    """`run_curve`'s points (a panel per board: win rate with its interval against learner steps, the run's
    wall-clock minutes on top) with greedy's and mc's levels as lines; written to `path`."""
    plt = _pyplot()
    boards = list(data["levels"])
    fig, axes = plt.subplots(len(boards), 1, figsize=(7.5, 2.4 * len(boards) + 0.6), sharex=True, squeeze=False)
    for ax, b in zip(axes[:, 0], boards):
        pts = [p for p in data["points"] if p["board"] == b]
        y = np.array([p["win_rate"] for p in pts])
        err = np.array([[p["win_rate"] - p["ci95"][0], p["ci95"][1] - p["win_rate"]] for p in pts]).T
        ax.errorbar([p["steps"] for p in pts], y, yerr=err, marker="o", ms=3, capsize=3, label="measured (95% CI)")
        for j, name in enumerate(("greedy", "mc")):
            level = data["levels"][b][name][0]
            ax.axhline(level, color=f"C{3 + j}", ls="--", lw=1.2, label=f"{name} in the seat ({level:.3f})")
        ax.set_ylabel(f"win rate, {b}", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    axes[-1, 0].set_xlabel("learner steps")
    walls = [(p["steps"], p["wall_s"]) for p in data["points"] if p["wall_s"] is not None and p["board"] == boards[0]]
    if len(walls) >= 2:
        x, minutes = np.array([w[0] for w in walls], float), np.array([w[1] for w in walls], float) / 60
        top = axes[0, 0].secondary_xaxis("top", functions=(lambda v: np.interp(v, x, minutes),
                                                           lambda m: np.interp(m, minutes, x)))
        top.set_xlabel("wall-clock (minutes)", fontsize=8)
    axes[0, 0].set_title(f"{os.path.basename(os.path.normpath(data['run']))} against greedy, 2 robots, "
                         f"{data['races']} races of seed {data['seed']} a point", fontsize=10)
    _save(plt, fig, path)


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (files only)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt: Any, fig: Any, path: str) -> str:
    """Lay out, write (`write_figure`, 110 dpi) and close `fig`; returns `path`."""
    fig.tight_layout()
    write_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["budget_cells", "load", "markdown_table", "play_cell", "plot", "plot_curve", "run_cells", "run_curve",
           "study_cells", "summarise"]
