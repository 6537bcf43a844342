"""Every misuse of `python -m evaluate` and `python -m train` gets one clear line on stderr and exit 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import envs
from evaluate.__main__ import main as evaluate_main
from train.__main__ import main as train_main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tiny self-play run, damaged copies of it, a plain file and a checkpoint that is not one."""
    from train.config import TrainConfig
    from train.ppo import train

    root = tmp_path_factory.mktemp("cli")
    run = root / "run"
    train(TrainConfig(game="simple_poker", options={"n": 3}, self_play=True, timesteps=256, n_envs=1, n_steps=64,
                      batch_size=64, eval_games=0, final_eval_games=0, out=str(run)), progress=False, verbose=False)
    truncated = root / "truncated"
    shutil.copytree(run, truncated)
    data = (run / "model.zip").read_bytes()
    (truncated / "model.zip").write_bytes(data[: len(data) // 2])
    notobject = root / "notobject"
    shutil.copytree(run, notobject)
    (notobject / "config.json").write_text("[1, 2]")
    badsnap = root / "badsnap"
    shutil.copytree(run, badsnap)
    (badsnap / "snapshots.pt").write_bytes(b"PK\x03\x04 not a tensor file")
    badckpt = root / "badckpt"
    badckpt.mkdir()
    (badckpt / "checkpoint.json").write_text('"a string"')
    plain = root / "plain.txt"
    plain.write_text("not json")
    return {"run": run, "truncated": truncated, "notobject": notobject, "badsnap": badsnap, "badckpt": badckpt,
            "file": plain, "tmp": root}


EVALUATE = [
    ([], "required"),
    (["chess"], "unknown or unavailable game"),
    (["simple_poker", "--games", "0"], "--games"),
    (["simple_poker", "--games", "-5"], "--games"),
    (["simple_poker", "--games", str(10**11)], "100,000,000"),
    (["simple_poker", "--games", "abc"], "integer"),
    (["simple_poker", "--games", "1e3"], "integer"),
    (["simple_poker", "--max-turns", "0"], "--max-turns"),
    (["simple_poker", "--max-turns", "-1"], "--max-turns"),
    (["simple_poker", "--seed", "-1"], "--seed"),
    (["simple_poker", "--seating", "random"], "--seating"),
    (["simple_poker", "--option", "n=0"], "n must be an integer"),
    (["simple_poker", "--option", "n"], "key=value"),
    (["simple_poker", "--option", "colour=red"], "allowed options"),
    (["simple_poker", "--option", f"n={10**9}"], "10000"),
    (["simple_poker", "--agents", "nobody,random"], "nobody"),
    (["simple_poker", "--agents", "random"], "seats 2 players"),
    (["simple_poker", "--agents", "random,random,random"], "seats 2 players"),
    (["simple_poker", "--no-such-flag"], "unrecognized arguments"),
    (["simple_poker", "--json", "{file}/x.json", "--games", "100000000"], "--json"),
    (["simple_poker", "--json", "{tmp}"], "is a folder"),
    (["simple_poker", "--csv", "{file}/x.csv"], "--csv"),
    (["simple_poker", "--agents", "ppo:{truncated},random"], "truncated"),
    (["simple_poker", "--agents", "ppo:{notobject},random"], "not a JSON object"),
    (["simple_poker", "--agents", "ppo:{badsnap},random"], "snapshots.pt"),
    (["simple_poker", "--agents", "ppo:{tmp}/missing,random"], "no trained model"),
    (
        ["simple_poker", "--option", "n=5", "--agents", "ppo:{run},random"],
        "was trained on n=3; replace --option n=5 with --option n=3",
    ),
    (["lama", "--agents", "ppo:{run},random*3"], "was trained on simple_poker, not lama"),
    (["simple_poker", "--exact", "--agents", "nobody"], "nobody"),
    (["lama", "--tune-third", "--candidates", "0"], "--candidates"),
    (["lama", "--tune-third", "--search-games", "-1"], "--search-games"),
    (["lama", "--tune-third", "--retest-games", "x"], "--retest-games"),
    (["primi_composti", "--merge-solves", "{tmp}/missing.json"], "missing.json"),
    (["primi_composti", "--merge-solves", "{file}"], "plain.txt"),
    (["primi_composti", "--merge-solves", "{notobject}/config.json"], "not a --solve-deals"),
    (["primi_composti", "--merge-solves", "{run}/config.json"], "not a --solve-deals"),
    (["primi_composti", "--solve-deals", "-2"], "--solve-deals"),
    (["primi_composti", "--reproduce", "--tables", "XX"], "unknown table group"),
    (["the_game", "--reproduce-part", "nothing"], "--reproduce-part"),
]
if "roborally" in envs.available_games():
    EVALUATE += [
        (["roborally", "--record", "{tmp}/race.png"], ".gif"),
        (["roborally", "--boards", "--scale", "2"], "--scale"),
        (["roborally", "--record", "{tmp}/race.gif", "--turns", "0"], "--turns"),
    ]

TRAIN = [
    ([], "give a game"),
    (["chess"], "unknown or unavailable game"),
    (["simple_poker", "--eval-games", "-3"], "--eval-games"),
    (["simple_poker", "--final-eval-games", "-1"], "--final-eval-games"),
    (["simple_poker", "--eval-every", "0"], "--eval-every"),
    (["simple_poker", "--timesteps", "0"], "--timesteps"),
    (["simple_poker", "--timesteps", str(10**11)], "10,000,000,000"),
    (["simple_poker", "--timesteps", "1e5"], "integer"),
    (["simple_poker", "--n-envs", "0"], "--n-envs"),
    (["simple_poker", "--checkpoint-every", "0"], "--checkpoint-every"),
    (["simple_poker", "--seed", "-1"], "--seed"),
    (["simple_poker", "--option", "n=1"], "n must be an integer"),
    (["simple_poker", "--option", "bet=x"], "bet"),
    (["simple_poker", "--out", "{file}/run"], "is a file, not a folder"),
    (["simple_poker", "--out", "{file}"], "not a folder"),
    (["simple_poker", "--out", "{run}"], "--overwrite"),
    (["simple_poker", "--opponents", "nobody", "--out", "{tmp}/new1"], "nobody"),
    (["simple_poker", "--opponents", "random,random", "--out", "{tmp}/new2"], "seats 2 players"),
    (["simple_poker", "--self-play", "--baselines", "nobody", "--out", "{tmp}/new3"], "nobody"),
    (["simple_poker", "--no-such-flag"], "unrecognized arguments"),
    (["--resume", "{tmp}/nothing"], "no run folder"),
    (["--resume", "{run}"], "complete"),
    (["--resume", "{run}", "--timesteps", "5"], "drop --timesteps"),
    (["--resume", "{run}", "--out", "{tmp}/elsewhere"], "drop --out"),
    (["--resume", "{badckpt}"], "not a checkpoint"),
]


def _check(main, argv, expect, files, capsys):
    argv = [a.format(**files) for a in argv]
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    assert status == 2, (argv, status, err)
    assert len(lines) == 1 and "Traceback" not in err, (argv, err)
    assert expect in lines[0], (argv, lines[0])


@pytest.mark.parametrize("argv, expect", EVALUATE, ids=[" ".join(a) for a, _ in EVALUATE])
def test_evaluate_misuse(argv, expect, files, capsys):
    _check(evaluate_main, argv, expect, files, capsys)


@pytest.mark.parametrize("argv, expect", TRAIN, ids=[" ".join(a) for a, _ in TRAIN])
def test_train_misuse(argv, expect, files, capsys):
    _check(train_main, argv, expect, files, capsys)
    for new in ("new1", "new2", "new3"):  # a run refused by validation leaves no folder
        assert not (files["tmp"] / new).exists()


def test_unwritable_json_is_refused_before_the_tournament(files, capsys):
    # 10^8 games would take hours: the refusal must come first.
    _check(evaluate_main, ["lama", "--games", "100000000", "--json", "{file}/out.json"], "--json", files, capsys)


def test_merge_solves_reads_only_json(files, capsys):
    (files["tmp"] / "list.json").write_text(json.dumps([1]))
    _check(evaluate_main, ["primi_composti", "--merge-solves", "{tmp}/list.json"], "not a --solve-deals", files, capsys)


# Every output flag of every command, given a path nothing can be written to: refused (exit 2, one line naming the
# flag, the path and the reason) before any game is played -- the runs asked for would take hours otherwise.
UNWRITABLE = [
    (["-m", "evaluate", "lama", "--games", "100000000", "--json", "{bad}/x.json"], "--json"),
    (["-m", "evaluate", "lama", "--games", "100000000", "--csv", "{bad}/x.csv"], "--csv"),
    (["-m", "evaluate", "lama", "--games", "100000000", "--out", "{bad}/plots"], "--out"),
    (["-m", "evaluate", "simple_poker", "--league", "--games", "100000000", "--out", "{bad}/league"], "--out"),
    (["-m", "evaluate", "play", "roborally", "--png", "{bad}/board.png"], "--png"),
    (["-m", "evaluate.league", "--docs", "{bad}/leaderboard.md"], "--docs"),
    (["-m", "train", "simple_poker", "--timesteps", "1000000000", "--out", "{bad}/run"], "--out"),
]
if "roborally" in envs.available_games():
    UNWRITABLE.append((["-m", "evaluate", "roborally", "--record", "{bad}/race.gif", "--turns", "100000"], "--record"))
if os.path.isdir("/proc"):  # the reported case: permission bits say yes (as root), creating says no
    UNWRITABLE.append((["-m", "evaluate", "lama", "--games", "100000000", "--json", "/proc/nope/x.json"], "--json"))


@pytest.mark.slow
@pytest.mark.parametrize("argv, flag", UNWRITABLE, ids=[" ".join(a[1:3]) + " " + f for a, f in UNWRITABLE])
def test_unwritable_outputs_are_refused_before_any_game(argv, flag, files):
    """`{bad}` is a path under a plain file: no folder can be made there."""
    args = [a.format(bad=files["file"]) for a in argv]
    path = args[args.index(flag) + 1]
    proc = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"},
    )
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{flag} {path!r} cannot be written" in lines[0], lines[0]
    assert proc.stdout.strip() == ""  # refused before anything was played or printed
