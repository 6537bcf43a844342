"""`python -m train.cleanrl_ppo ...`, the one-file learner's old command: the same run through `python -m train`,
its flags read as the frame's (`train.reproduce.train_argv`, which reads shipped policies' recorded commands too).
"""

from __future__ import annotations

import shlex
import sys


def main(argv: list[str] | None = None) -> int:
    """`python -m train.cleanrl_ppo ...`: the same run through `python -m train` (said in one line first)."""
    from evaluate.cli import fail
    from train.__main__ import main as train_main
    from train.reproduce import train_argv

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        new = train_argv(argv)
    except ValueError as e:
        return fail(f"{e}; the command is python -m train GAME ... now (python -m train GAME --help)",
                    "python -m train.cleanrl_ppo", 2)
    print(f"python -m train.cleanrl_ppo is python -m train now: python -m train {shlex.join(new)}", file=sys.stderr)
    return train_main(new)


if __name__ == "__main__":
    sys.exit(main())
