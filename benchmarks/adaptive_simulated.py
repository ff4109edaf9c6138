"""The adaptive design against the fixed 6-repeat design on simulated matrices of the seed card's shape.

Seed 000's matrix: 3 configs (base, mtp, dflash) x 3 workloads (prose, code, edit) x 10 levels (1-64) x 6 shuffled
repeats = 540 cells, no A/A control. Each simulated run draws:

* **the speedups** of :data:`EFFECTS` (fraction): the seed card's tables where it gives them (N=1, 2, 4 of every
  workload; N=64 and the losses it names in its text: MTP prose -11.4 % at N=12, -9.5 % at N=16, -7.2 % at N=64;
  MTP code +14.9 % and edit +34.2 % at N=64; DFlash edit +39.4 %, prose -77.0 % at N=64), levels between filled in
  monotonically, and MTP prose's unlisted "wins" at N=6, 8, 24, 32 set to +3 % to +6 % (several within a few %);
* **the noise**: a CV of aggregate tok/s per (config, workload, N) group from a log-normal fitted to the card's
  median 0.42 % and p90 2.41 %, capped at its max 5.20 %; per-cell noise with that CV (Student-t, 5 degrees of
  freedom); a slow drift of the machine shared by every server (a trend of up to 0.05 % per cell plus a random walk
  of 0.1 % per cell);
* **the cell time**: ``N * 512 tokens / (aggregate tok/s)`` (s), from the card's base rates per N.

The fixed design's cells are simulated in the interleaved order (:func:`specscope.bench.order.interleaved_plan`);
the adaptive design (``--target-ci 0.05 --min-repeats 2 --max-repeats 6``) is replayed on the same cells with the
runner's own rule (:func:`specscope.bench.adaptive.next_round`): it takes, round by round, only the cells it would
have asked for. Both are judged by :func:`specscope.stats.judgement.judge` (``--min-effect`` 2 %). Printed: the
share of comparisons where the two verdicts agree and the adaptive design's share of the fixed design's cell-time,
over all simulated runs, and the comparisons that disagreed most often.

    PYTHONPATH=src python benchmarks/adaptive_simulated.py [--runs 40] [--quick] [--seed 0] [--aa]
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter

import numpy as np

from specscope.bench.adaptive import next_round
from specscope.bench.order import interleaved_plan
from specscope.config import BenchOptions
from specscope.records import CellKey
from specscope.stats.judgement import judge
from specscope.stats.summary import CellSummary

LEVELS = (1, 2, 4, 6, 8, 12, 16, 24, 32, 64)
WORKLOADS = ("prose", "code", "edit")
MAX_TOKENS = 512
# base aggregate tok/s per N: the card's 12.6 / 25.1 / 48.4 at N=1, 2, 4 and 353.5 at N=64 (prose; code and edit
# within 2 %), between them per-stream rates falling from 12.6 to 5.5 tok/s
BASE_TOK_S = dict(zip(LEVELS, (12.6, 25.1, 48.4, 70.0, 91.0, 128.0, 160.0, 215.0, 260.0, 353.5), strict=True))
# speedup - 1 per (config, workload) at LEVELS (module docstring)
EFFECTS: dict[tuple[str, str], tuple[float, ...]] = {
    ("mtp", "prose"): (0.323, 0.306, 0.271, 0.060, 0.045, -0.114, -0.095, 0.030, 0.050, -0.072),
    ("mtp", "code"): (0.624, 0.705, 0.671, 0.55, 0.48, 0.38, 0.32, 0.25, 0.20, 0.149),
    ("mtp", "edit"): (0.987, 1.039, 0.974, 0.90, 0.82, 0.70, 0.60, 0.50, 0.44, 0.342),
    ("dflash", "prose"): (0.297, 0.040, -0.08, -0.15, -0.22, -0.35, -0.45, -0.60, -0.68, -0.770),
    ("dflash", "code"): (1.173, 0.973, 0.75, 0.60, 0.45, 0.25, 0.10, -0.04, -0.20, -0.40),
    ("dflash", "edit"): (7.161, 5.510, 4.00, 3.00, 2.40, 1.60, 1.10, 0.75, 0.55, 0.394),
}
CV_MEDIAN, CV_P90, CV_MAX = 0.0042, 0.0241, 0.0520


def _options(aa: bool, adaptive: bool) -> BenchOptions:
    opts = BenchOptions(
        configs=("base", "mtp", "dflash"), workloads=WORKLOADS, levels=LEVELS, repeats=6, max_tokens=MAX_TOKENS, aa=aa
    )
    if adaptive:
        opts = opts.model_copy(update={"target_ci": 0.05, "min_repeats": 2, "max_repeats": 6})
    return opts


def _cell(key: CellKey, tok_s: float, start_s: float, duration_s: float) -> CellSummary:
    return CellSummary(
        key.config, key.workload, key.concurrency, key.repeat, "ok", (), key.concurrency, key.concurrency,
        int(tok_s * duration_s), "usage", duration_s, tok_s, (), None, None, None, float(key.concurrency), None,
        None, (), None, None, None, started_at_s=start_s, ended_at_s=start_s + duration_s,
    )  # fmt: skip


def simulate_run(rng: np.random.Generator, aa: bool) -> list[CellSummary]:
    """One fixed 6-round run of the seed's shape (module docstring), cells in time order."""
    opts = _options(aa, adaptive=False)
    sigma_log = math.log(CV_P90 / CV_MEDIAN) / 1.2816  # log-normal CV: p90 / median = exp(1.2816 sigma)
    cv: dict[tuple[str, str, int], float] = {}
    plan = interleaved_plan(opts)
    slope = rng.uniform(-0.0005, 0.0005)
    walk = np.cumsum(rng.standard_normal(len(plan)) * 0.001)
    out, t = [], 0.0
    for i, k in enumerate(plan):
        g = (k.config, k.workload, k.concurrency)
        if g not in cv:
            cv[g] = min(CV_MAX, CV_MEDIAN * math.exp(sigma_log * rng.standard_normal()))
        server = k.config.removesuffix("-again")
        effect = 0.0 if server == "base" else EFFECTS[(server, k.workload)][LEVELS.index(k.concurrency)]
        noise = rng.standard_t(5) * math.sqrt(3.0 / 5.0) * cv[g]
        tok_s = BASE_TOK_S[k.concurrency] * (1.0 + effect) * math.exp(slope * i + walk[i] + noise)
        duration = k.concurrency * MAX_TOKENS / tok_s
        out.append(_cell(k, tok_s, t, duration))
        t += duration + 1.0
    return out


def replay_adaptive(options: BenchOptions, cells: list[CellSummary]) -> list[CellSummary]:
    """The cells the adaptive design would have measured, taken from a fixed run of ``max_repeats`` rounds."""

    def key(c: CellSummary) -> CellKey:
        return CellKey(c.config, c.workload, c.concurrency, c.repeat)

    by_key = {key(c): c for c in cells}
    used = [c for c in cells if c.repeat < options.min_repeats]
    while True:
        more = [by_key[k] for k in next_round(options, used, {key(c) for c in used}) if k in by_key]
        if not more:
            return used
        used += more


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40, help="simulated matrices")
    ap.add_argument("--quick", action="store_true", help="5 matrices")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--aa", action="store_true", help="add the A/A control (the seed's matrix had none)")
    args = ap.parse_args()
    runs = 5 if args.quick else args.runs
    rng = np.random.default_rng(args.seed)
    adaptive = _options(args.aa, adaptive=True)
    agree = total = 0
    fixed_s = adaptive_s = 0.0
    cells_fixed = cells_adaptive = 0
    differ: Counter[str] = Counter()
    verdicts: Counter[tuple[str, str]] = Counter()
    for _ in range(runs):
        cells = simulate_run(rng, args.aa)
        used = replay_adaptive(adaptive, cells)
        full, part = judge(cells, "base", picks=False), judge(used, "base", picks=False)
        for f in full.comparisons:
            if f.control:
                continue
            a = part.get(f.config, f.workload, f.level)
            total += 1
            verdicts[(f.verdict, a.verdict if a else "missing")] += 1
            if a is not None and a.verdict == f.verdict:
                agree += 1
            else:
                differ[f"{f.config} {f.workload} N={f.level}"] += 1
        fixed_s += sum((c.ended_at_s or 0.0) - (c.started_at_s or 0.0) for c in cells)
        adaptive_s += sum((c.ended_at_s or 0.0) - (c.started_at_s or 0.0) for c in used)
        cells_fixed, cells_adaptive = cells_fixed + len(cells), cells_adaptive + len(used)
    print(f"{runs} simulated runs of {len(cells)} cells (seed {args.seed}, A/A control: {args.aa})")
    print(f"same verdict: {agree} of {total} comparisons ({agree / total:.1%})")
    print(f"cells: adaptive {cells_adaptive} of {cells_fixed} ({cells_adaptive / cells_fixed:.1%})")
    print(f"cell-time: adaptive {adaptive_s:.0f} s of {fixed_s:.0f} s ({adaptive_s / fixed_s:.1%})")
    print("fixed verdict -> adaptive verdict: " + ", ".join(f"{f}->{a} {n}" for (f, a), n in sorted(verdicts.items())))
    print("disagreed most often: " + (", ".join(f"{k} ({n})" for k, n in differ.most_common(8)) or "none"))
    ok = agree / total >= 0.98 and adaptive_s / fixed_s <= 0.40
    print(f"goals (>= 98 % same verdicts, <= 40 % cell-time): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
