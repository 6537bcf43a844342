"""Our batched simple poker against Pgx's kuhn_poker and leduc_holdem: all seats' decisions per CPU-second.

Like for like (docs/training.md, "Against Pgx"): every step is one decision at every one of 1,024 tables by whoever
is to move there (`control="all_seats"`), finished games restart at once, random legal actions, one CPU thread,
one process, alternating rounds. Pgx runs one `jax.jit(jax.vmap(auto_reset(step)))` call a step and, beside it, 100
steps in one `lax.scan` call (XLA forced to one thread before jax is imported; compile time printed apart). Ours
is `SimplePokerVectorEnv(1024, control="all_seats", n=3)` with `copy=False` and `copy=True`, actions from
`rng.integers(0, 2, 1024)` (both actions are legal at every decision; checked each round). Rates are per CPU-second
of this process; ratios are medians of the per-round ratios; CPU/wall is printed for each runner.

    .ci/setup-pgx    # once: .venv-pgx with pgx and CPU jax (never the main venv)
    .venv-pgx/bin/python benchmarks/bench_pgx.py [--rounds 5] [--seconds 1.0] [--tables 1024]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# this checkout's code (not an installed copy's) when run as a script from anywhere
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
# XLA on one thread, before jax is imported (read once, at backend start)
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import statistics  # noqa: E402

import numpy as np  # noqa: E402

SCAN = 100  # steps inside one jitted call in Pgx's scanned variant
PGX_GAMES = ("kuhn_poker", "leduc_holdem")


class PgxRunner:
    """Pgx's `game` at `tables` tables: a jitted random-legal all-seats step (`steps` of them per call), autoreset."""

    def __init__(self, game: str, tables: int, steps: int, seed: int):
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset

        self.jax = jax
        env = pgx.make(game)
        step = jax.vmap(auto_reset(env.step, env.init))

        def one(state, key):
            key, k_act, k_step = jax.random.split(key, 3)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)  # uniform over the legal actions
            action = jax.random.categorical(k_act, logits, axis=-1)
            return step(state, action, jax.random.split(k_step, tables)), key

        def many(state, key):
            return jax.lax.scan(lambda c, _: (one(*c), None), (state, key), None, length=steps)[0]

        key = jax.random.PRNGKey(seed)
        key, k0 = jax.random.split(key)
        self.state = jax.jit(jax.vmap(env.init))(jax.random.split(k0, tables))
        self.key = key
        t0, w0 = time.process_time(), time.perf_counter()
        self.fn = jax.jit(one if steps == 1 else many).lower(self.state, self.key).compile()
        self.compile_cpu, self.compile_wall = time.process_time() - t0, time.perf_counter() - w0
        self.decisions = tables * steps
        self.state_bytes = sum(leaf.nbytes for leaf in jax.tree_util.tree_leaves(self.state)) / tables
        self.obs_shape = tuple(env.observation_shape)
        self.num_actions = env.num_actions

    def run(self, seconds: float) -> float:
        """(decisions per CPU-second, CPU-s per wall-s) over about `seconds` (dispatch is asynchronous: wait for
        the last result). A CPU share above 1 would mean more than one busy thread."""
        n = 0
        t0, w0 = time.process_time(), time.perf_counter()
        while True:
            for _ in range(max(1, 64 // (self.decisions // 1024 or 1))):
                self.state, self.key = self.fn(self.state, self.key)
                n += self.decisions
            self.jax.block_until_ready(self.state)
            if time.process_time() - t0 >= seconds:
                return n / (time.process_time() - t0), (time.process_time() - t0) / (time.perf_counter() - w0)


class OursRunner:
    """Our simple poker vector env (n = 3, all seats) at `tables` tables, random legal actions from numpy."""

    def __init__(self, tables: int, copy: bool, seed: int):
        from envs.simple_poker.vector import SimplePokerVectorEnv

        self.env = SimplePokerVectorEnv(tables, control="all_seats", seed=seed, copy=copy, n=3)
        self.env.reset(seed=seed)
        self.rng = np.random.default_rng(seed)
        self.tables = tables
        self.state_bytes = sum(v.nbytes for v in vars(self.env).values()
                               if isinstance(v, np.ndarray) and v.shape[:1] == (tables,)) / tables
        self.obs_shape = self.env.single_observation_space.shape
        self.num_actions = int(self.env.single_action_space.n)

    def run(self, seconds: float) -> float:
        """(decisions per CPU-second, CPU-s per wall-s) over about `seconds`."""
        if not self.env.action_masks().all():  # the draw below is uniform over the legal actions only if so
            raise AssertionError("simple poker's mask is no longer all ones: draw from the mask instead")
        env, rng, N = self.env, self.rng, self.tables
        n = 0
        t0, w0 = time.process_time(), time.perf_counter()
        while True:
            for _ in range(64):
                env.step(rng.integers(0, 2, N))
                n += N
            if time.process_time() - t0 >= seconds:
                return n / (time.process_time() - t0), (time.process_time() - t0) / (time.perf_counter() - w0)


def _spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):>10,.0f}  {f'[{min(xs):,.0f} – {max(xs):,.0f}]':<26}"


def main(argv: list[str] | None = None) -> None:
    """Alternating rounds of every runner; medians, spreads and ratios printed as a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU-seconds per runner per round")
    parser.add_argument("--tables", type=int, default=1024)
    args = parser.parse_args(argv)

    import importlib.metadata as md

    import jax
    import numba

    numba.set_num_threads(1)
    load0 = os.getloadavg()
    runners: dict[str, object] = {}
    for game in PGX_GAMES:
        runners[f"Pgx {game}, 1 step/call"] = PgxRunner(game, args.tables, 1, seed=0)
        runners[f"Pgx {game}, {SCAN} steps/call (scan)"] = PgxRunner(game, args.tables, SCAN, seed=0)
    runners["ours simple_poker n=3, copy=False"] = OursRunner(args.tables, copy=False, seed=0)
    runners["ours simple_poker n=3, copy=True"] = OursRunner(args.tables, copy=True, seed=0)
    for r in runners.values():  # warm-up (first calls, numba's compiled kernels loaded)
        r.run(0.05)

    rates: dict[str, list[float]] = {k: [] for k in runners}
    shares: dict[str, list[float]] = {k: [] for k in runners}
    for _ in range(args.rounds):
        for name, r in runners.items():
            rate, share = r.run(args.seconds)
            rates[name].append(rate)
            shares[name].append(share)
    load1 = os.getloadavg()

    print(f"pgx {md.version('pgx')}, jax {jax.__version__}, jaxlib {md.version('jaxlib')}, numpy {np.__version__}, "
          f"numba {numba.__version__}; XLA_FLAGS={os.environ['XLA_FLAGS']!r}")
    print(f"{args.tables:,} tables, {args.rounds} alternating rounds of {args.seconds:g} CPU-s each; "
          f"load average (1 min) {load0[0]:.2f} before, {load1[0]:.2f} after on {os.cpu_count()} CPUs")
    print(
        f"\n{'all seats decisions per CPU-second':<44}{'median  [min – max]':<38}CPU/wall  obs    acts  state B/table"
    )
    for name, r in runners.items():
        print(f"{name:<44}{_spread(rates[name]):<38}{statistics.median(shares[name]):>8.2f}  "
              f"{str(r.obs_shape):<6} {r.num_actions:>4}  {r.state_bytes:>8.0f}")
    print("\nratio ours / Pgx (median of per-round ratios)")
    for ours in (k for k in runners if k.startswith("ours")):
        for peer in (k for k in runners if k.startswith("Pgx")):
            ratio = statistics.median(a / b for a, b in zip(rates[ours], rates[peer]))
            print(f"  {ours} / {peer}: {ratio:.2f}")
    print("\nPgx compile time (excluded above), CPU-s / wall-s")
    for name, r in runners.items():
        if isinstance(r, PgxRunner):
            print(f"  {name}: {r.compile_cpu:.2f} / {r.compile_wall:.2f}")


if __name__ == "__main__":
    main()
