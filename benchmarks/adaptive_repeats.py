"""Adaptive repeats against the fixed 6-repeat design, measured side by side in one run on the embedded engine.

One fixed run (``--repeats 6``, interleaved configs) is measured; the adaptive design (``--target-ci``,
``--min-repeats 2``, ``--max-repeats 6``) is replayed on the same cells with the runner's own rule
(:func:`specscope.bench.adaptive.next_round`, which stops a comparison once the report's verdict rule decides it):
it starts from rounds 0-1 and takes, round by round, only the cells it would have asked for. Both designs are judged
by the report's judgement (:func:`specscope.stats.judgement.judge`). The matrix has a config that does nothing on a
workload (n-gram on prose: 0 drafts, ``not_engaged``) and the A/A control.
For every comparison the script prints the verdict of each design and the cell time (s,
``ended_at_s - started_at_s`` of the cells used, config, baseline and A/A control) of each, as a Markdown table for
benchmarks/RESULTS.md, then the share of verdicts that agree and the cell-time ratio (goal: <= 0.50).

``--matrix quick`` (the default) is the quick profile's matrix, what ``make bench`` runs (base, ngram, draft and the
A/A control x prose, code, edit x N=1,2), at 6 rounds (144 cells, ~20 min on a quiet 2-core machine);
``--matrix small`` the shorter one (prose, code x N=1: 48 cells); ``--quick`` is ``--matrix small --max-tokens 48``
(a few minutes). The seed card's 540-cell shape is simulated by benchmarks/adaptive_simulated.py.

    PYTHONPATH=src python benchmarks/adaptive_repeats.py [--quick] [--matrix quick|small] [--target-ci 0.05]
        [--max-tokens 96] [--out runs] [--run RUN]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from specscope.bench import run_bench
from specscope.bench.adaptive import next_round
from specscope.config import BenchOptions, profile_options
from specscope.records import CellKey
from specscope.stats.cells import summarize_run
from specscope.stats.judgement import judge
from specscope.stats.server_spec import methods_of
from specscope.stats.summary import CellSummary
from specscope.store import open_run


def _key(c: CellSummary) -> CellKey:
    return CellKey(c.config, c.workload, c.concurrency, c.repeat)


def replay_adaptive(
    options: BenchOptions, cells: list[CellSummary], methods: dict[str, str | None] | None = None
) -> list[CellSummary]:
    """The cells the adaptive design would have measured, taken from a fixed run of ``max_repeats`` rounds."""
    by_key = {_key(c): c for c in cells}
    used = [c for c in cells if c.repeat < options.min_repeats]
    while True:
        more = [by_key[k] for k in next_round(options, used, {_key(c) for c in used}, methods) if k in by_key]
        if not more:
            return used
        used += more


def cell_time_s(cells: list[CellSummary], config: str, baseline: str, workload: str, n: int) -> float:
    """Seconds of measured streams of one comparison's cells (the config's and the baseline's)."""
    return sum(
        (c.ended_at_s or 0.0) - (c.started_at_s or 0.0)
        for c in cells
        if c.config in (config, baseline) and c.workload == workload and c.concurrency == n
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="--matrix small --max-tokens 48: a few minutes")
    ap.add_argument("--matrix", choices=("quick", "small"), default="quick")
    ap.add_argument("--target-ci", type=float, default=0.05)
    ap.add_argument("--out", type=Path, default=Path("runs"))
    ap.add_argument("--run", type=Path, default=None, help="replay an existing fixed run instead of measuring")
    ap.add_argument("--max-tokens", type=int, default=96, help="max_tokens of every request (tokens)")
    args = ap.parse_args()
    if args.quick:
        args.matrix, args.max_tokens = "small", 48
    measure(args)


def measure(args: argparse.Namespace) -> None:
    """Measure (or read) the fixed run, replay the adaptive design on it and print the side-by-side table."""
    # 96 tokens per request, so that a cell lasts ~3-8 s and averages over the other sessions' bursts (at 24 tokens,
    # ~2 s cells at load 4-12 gave A/A bands of +-44-85 % after 2 rounds, measured 2026-12-01)
    if args.matrix == "quick":
        fixed = profile_options("quick", repeats=6, max_tokens=args.max_tokens)
    else:  # 3 configs + the A/A control x 2 workloads x N=1 x 6 rounds
        fixed = BenchOptions(
            configs=("base", "ngram", "draft"),
            workloads=("prose", "code"),
            levels=(1,),
            repeats=6,
            max_tokens=args.max_tokens,
            aa=True,
        )
    if args.run is not None:
        with open_run(args.run) as run:
            fixed = BenchOptions(**run.manifest["options"])
    load_start = os.getloadavg()[0]
    t0 = time.perf_counter()
    run_dir = args.run or run_bench(fixed, out=args.out)
    wall_s = time.perf_counter() - t0
    load_end = os.getloadavg()[0]
    with open_run(run_dir) as run:
        cells = summarize_run(run)
        methods = methods_of(run.server_facts) or None
    adaptive = fixed.model_copy(update={"target_ci": args.target_ci, "min_repeats": 2, "max_repeats": 6})
    used = replay_adaptive(adaptive, cells, methods)
    base = fixed.baseline_config()
    judged = judge(cells, base, min_effect=fixed.min_effect, methods=methods, picks=False)
    replayed = judge(used, base, min_effect=fixed.min_effect, methods=methods, picks=False)
    full = {(s.config, s.workload, s.level): s for s in judged.comparisons}
    part = {(s.config, s.workload, s.level): s for s in replayed.comparisons}
    print(f"run {run_dir} ({wall_s:.0f} s wall, {fixed.max_tokens} tokens per request), target_ci {args.target_ci},")
    if args.run is None:
        print(f"load average (1 min) {load_start:.1f} at the start, {load_end:.1f} at the end")
    print(f"os.cpu_count() = {os.cpu_count()}\n")
    print(
        "| config | workload | N | fixed verdict | adaptive verdict | rounds run | paired rounds | fixed cell-time (s) "
        "| adaptive (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    tot_f = tot_a = 0.0
    same = 0
    for key, f in full.items():
        a = part[key]
        same += a.verdict == f.verdict
        tf = cell_time_s(cells, key[0], base, key[1], key[2])
        ta = cell_time_s(used, key[0], base, key[1], key[2])
        tot_f, tot_a = tot_f + tf, tot_a + ta
        ran = len({c.repeat for c in used if (c.config, c.workload, c.concurrency) == key})
        print(f"| {' | '.join(map(str, key))} | {f.verdict} | {a.verdict} | {ran} | {a.rounds} | {tf:.1f} | {ta:.1f} |")
    fixed_s = sum((c.ended_at_s or 0.0) - (c.started_at_s or 0.0) for c in cells)
    used_s = sum((c.ended_at_s or 0.0) - (c.started_at_s or 0.0) for c in used)
    print(
        f"\nall cells: fixed {fixed_s:.1f} s ({len(cells)} cells), adaptive {used_s:.1f} s ({len(used)} cells), "
        f"ratio {used_s / fixed_s:.2f}; same verdict on {same} of {len(full)} comparisons"
    )


if __name__ == "__main__":
    main()
