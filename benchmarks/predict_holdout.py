"""Predictions checked out of sample: fit the step-time model on two draft lengths, predict the others, compare.

Two rows of evidence, one table:

1. **Embedded k sweep** (measured here): ``base`` and the speculative configs ``draft`` and ``ngram`` at k = 1..6
   (``draft-k1`` ... ``ngram-k6``, as ``specscope bench --k``) on the embedded engine, single stream (N=1),
   interleaved repeats. For each method the per-drafted-token overhead is fitted on ``--fit-k`` (default 1,2) and
   every other k is predicted from that fit and the acceptance measured at the largest fitted k
   (:func:`specscope.stats.predict_holdout.holdout_errors`, what ``specscope predict RUN --holdout`` prints); the
   error is ``predicted / measured - 1`` of the decode rate (1 / median TPOT). The ``draft`` configs' draft model
   runs k + 1 times per verify step (one pass mirrors the verify batch: :mod:`specscope.stats.predict`); the column
   *error without the pass per step* predicts the same cells with k passes (the model before that term), and a line
   per method sets the step time measured over every k beside the model's split (a diagnostic, never a fit input).
2. **Seed 003's published table** (Qwen3.6-27B NVFP4, one DGX Spark, vLLM 0.26.0, 13 single-stream runs per k):
   per-position acceptance 0.936 / 0.815 / 0.681 / 0.581 / 0.484, 17.61 GB per target step, 0.85 GB per drafted
   token, 273 GB/s, 12.14 tok/s without a draft; fitted on k=1,2 (20.00, 26.48 tok/s) and compared with k=3..5
   (29.61, 33.10, 31.75; k=6 35.58 is shown too, beyond the published per-position rates).

Usage (from the repository root; re-executes itself with ``.venv/bin/python``):

    nice -n 19 python benchmarks/predict_holdout.py            # the sweep: ~8 min on a quiet 2-core machine
    python benchmarks/predict_holdout.py --quick               # k=1..4, 2 repeats, 48 tokens: ~3 min
    python benchmarks/predict_holdout.py --run runs/run-...    # re-analyse a sweep already measured
    python benchmarks/predict_holdout.py --results             # also write its section of benchmarks/RESULTS.md

The embedded engine is one llama.cpp thread per server; all 13 servers are up together and their cells alternate.
"""

from __future__ import annotations

import _venv

_venv.ensure_project_python()

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from datetime import date  # noqa: E402
from pathlib import Path  # noqa: E402

from _results import RESULTS, write_section  # noqa: E402

from specscope.bench import run_bench  # noqa: E402
from specscope.bench.predict import PredictInputs, holdout_on_run  # noqa: E402
from specscope.config import BenchOptions  # noqa: E402
from specscope.errors import SpecscopeError  # noqa: E402
from specscope.kaxis import k_name, parse_k_list, split_k_name  # noqa: E402
from specscope.stats.acceptance import pooled_acceptance  # noqa: E402
from specscope.stats.cells import summarize_run  # noqa: E402
from specscope.stats.groups import group_cells, metric_value  # noqa: E402
from specscope.stats.predict_calibrate import Calibration  # noqa: E402
from specscope.stats.predict_holdout import holdout_errors  # noqa: E402
from specscope.stats.predict_published import predict_published  # noqa: E402
from specscope.stats.predict_run import RunPrediction, draft_fraction  # noqa: E402
from specscope.store import open_run  # noqa: E402

SECTION = "predict_holdout"
TITLE = "Predictions out of sample (benchmarks/predict_holdout.py)"
#: seed 003 (shared/seeds/003): published single-stream decode rates by k (tokens/s) and the model's inputs.
SEED003 = {
    "per_position": (0.936, 0.815, 0.681, 0.581, 0.484),
    "target_bytes": 17.61e9,
    "draft_bytes_per_token": 0.85e9,
    "bandwidth_bytes_s": 273e9,
    "measured_tok_s": 12.14,
    "rates": {1: 20.00, 2: 26.48, 3: 29.61, 4: 33.10, 5: 31.75, 6: 35.58},
}
TARGETS = {"embedded": 0.10, "seed003": 0.06}  # issue 30: |error| within 10 % (sweep), 6 % (seed 003 k=3..5)
#: how to tell what a miss comes from (written under the table)
READING = """How to read a miss (the columns beside the prediction are measured at the held-out k and never enter it):
- *measured range* is the spread of the held-out config's own repeats: a prediction inside it cannot be told from
  the measurement; *fit on k (cells)* says how many usable cells the overhead rests on (one noisy cell carries its
  noise into every prediction of its method).
- *draft passes per step*: llama.cpp's draft model (`draft-simple`) runs k + 1 times per verify step: one pass
  mirrors the verify batch on the draft (`process()` in `common/speculative.cpp`, in the xllamacpp build), then one
  pass for the target's sampled token and one per drafted token but the last (`draft()`). The pass that does not grow
  with k is charged per step at the draft's bytes (draft bytes / effective bandwidth), not fitted; before it was in
  the model, the overhead fitted through the origin on k = 1,2 absorbed it and over-charged every larger k (the
  draft rows came out 12.5-20.7 % too slow). vLLM's MTP head (seed 003) runs k times and has no such pass. The line
  *measured step time over k* under the table checks that split against every k (a diagnostic only).
- *tokens/step assumed (measured)*: the model continues the largest fitted k's per-position acceptance with its last
  conditional rate and assumes u_i does not depend on k; where the two differ the acceptance model is what the row
  misses (a copying workload's acceptance decays slower than geometrically).
- *steps drafting assumed (measured)*: the fraction of verify steps that draft at this k, carried from the one
  measured at the largest fitted k by the match share (:func:`specscope.stats.predict.match_share`: a larger k covers
  a matched stretch in fewer steps, so fewer steps draft); the measured one in brackets.
- The target's verify step grows with the k + 1 tokens it carries on this CPU engine, linearly
  (`benchmarks/verify_cost.py`: 7.0-7.1 ms per added token from 1 to 17 tokens), so the per-drafted-token overhead
  carries it. What the model leaves out: the draft's mirror pass grows less evenly with its batch (the Q4_0 draft:
  4.6, 2.1, 3.8, 2.5 ms per added token between 1, 2, 4, 9 and 17 tokens); prefill and batching (single stream,
  decode only); time the client or the machine adds (cells flagged CLIENT_LIMITED are dropped; on a loaded machine
  the repeats still spread by the percentage shown)."""


def sweep_options(a: argparse.Namespace) -> BenchOptions:
    ks = range(1, a.max_k + 1)
    configs = ("base", *(k_name(m, k) for m in a.methods.split(",") for k in ks))
    return BenchOptions(
        configs=configs,
        workloads=tuple(a.workloads.split(",")),
        levels=(1,),
        repeats=a.repeats,
        max_tokens=a.max_tokens,
        edit_shortest=4,
    )


def repeat_rates(cells: list) -> dict[tuple[str, str], list[float]]:
    """(config, workload) -> the decode rates (tokens/s) of its usable N=1 cells, one per repeat: the same cells and
    figure the fit averages (:func:`specscope.stats.groups.group_cells`, ``decode_tok_s``)."""
    out: dict[tuple[str, str], list[float]] = {}
    for key, by_rep in group_cells(cells).items():
        if key.concurrency == 1:
            vals = [metric_value(c, "decode_tok_s") for c in by_rep.values()]
            out[(key.config, key.workload)] = [v for v in vals if v is not None]
    return out


def drafting_at(cells: list, config: str, workload: str) -> tuple[float | None, float | None, float | None]:
    """What the held-out config really did (shown beside the prediction, never used by it): the fraction of its
    verify steps that drafted, its mean draft length (draft tokens / drafts) and its tokens per verify step
    (generated / (generated - accepted), from the same counters as the fraction)."""
    n1 = [c for c in cells if c.concurrency == 1]
    view = pooled_acceptance(n1).get((config, workload))
    length = view.draft_tokens / view.drafts if view is not None and view.drafts else None
    f = draft_fraction(n1, config, workload)
    tps = 1 + f * (view.accepted_tokens / view.drafts) if f is not None and view is not None and view.drafts else None
    return f, length, tps


def _cells(n: int) -> str:
    return f" ({n} cell{'s' if n != 1 else ''})"


def cell_loads(run: Path) -> tuple[float, float] | None:
    """The range of the 1-minute load average the run's cells recorded (at their start and end)."""
    with open_run(run) as opened:
        loads = [x for c in summarize_run(opened) for x in (c.load_avg_1m or ()) if x is not None]
    return (min(loads), max(loads)) if loads else None


def cells_span_min(run: Path) -> float | None:
    """Minutes from the first cell's start to the last cell's end (wall clock the cells recorded), None without."""
    with open_run(run) as opened:
        cells = summarize_run(opened)
    starts = [c.started_at_s for c in cells if c.started_at_s is not None]
    ends = [c.ended_at_s for c in cells if c.ended_at_s is not None]
    return (max(ends) - min(starts)) / 60 if starts and ends else None


def without_pass(pred: RunPrediction) -> RunPrediction:
    """``pred`` with no draft pass per step (q = 0 for every config): the model before the pass was in it, for the
    table's before / after column on the same cells."""
    models = {cfg: {**m, "draft_passes_per_step": 0.0} for cfg, m in pred.models.items()}
    return dataclasses.replace(pred, models=models)


def step_lines(run: Path, rows: list[dict], pred: RunPrediction, max_k: int) -> list[str]:
    """Per method, the measured step time (tokens per step measured at k / decode rate) against drafted tokens per
    step (drafting fraction x draft length, measured at k) over every k, least squares ``a + b x``: a diagnostic that
    uses the held-out k (the prediction never does), beside the model's own split fitted on the fitted k alone:
    per step T0 + q x D (T0 = target_bytes / effective bandwidth, D = draft_bytes_per_token / effective bandwidth,
    q = draft passes per step) and per drafted token D + c (c the fitted overhead)."""
    with open_run(run) as opened:
        cells = summarize_run(opened)
    reps = repeat_rates(cells)
    bw = pred.effective_bandwidth_bytes_s
    out = []
    for method in dict.fromkeys(split_k_name(r["config"])[0] for r in rows if r["source"] == "embedded"):
        for workload in dict.fromkeys(r["workload"] for r in rows if r["config"].startswith(method + "-k")):
            xs, ts = [], []
            for k in range(1, max_k + 1):
                f, length, tps = drafting_at(cells, k_name(method, k), workload)
                vals = reps.get((k_name(method, k), workload))
                if f is not None and length is not None and tps is not None and vals:
                    xs.append(f * length)
                    ts.append(tps / statistics.fmean(vals))
            if len(xs) < 3:
                continue
            slope, intercept = statistics.linear_regression(xs, ts)
            row = next(r for r in rows if r["source"] == "embedded" and r["config"].startswith(method + "-k"))
            m = pred.models[row["config"]]
            t0_s, d_s = pred.target_bytes / bw, float(m["draft_bytes_per_token"] or 0.0) / bw
            q = float(m.get("draft_passes_per_step") or 0.0)
            out.append(
                f"{method}/{workload}: measured step time over k = 1..{max_k} (diagnostic, every k): "
                f"{1e3 * intercept:.1f} ms per step + {1e3 * slope:.1f} ms per drafted token; the model (fitted on "
                f"k = {row['fit_on'].split(' ')[0]}): {1e3 * t0_s:.1f} + {q:g} x {1e3 * d_s:.1f} = "
                f"{1e3 * (t0_s + q * d_s):.1f} ms per step + {1e3 * d_s:.1f} + {row['overhead_ms']:.1f} = "
                f"{1e3 * d_s + row['overhead_ms']:.1f} ms per drafted token"
            )
    return out


def embedded_rows(run: Path, fit_k: list[int], max_k: int) -> tuple[list[dict], RunPrediction]:
    held = ",".join(str(k) for k in range(1, max_k + 1) if k not in fit_k)
    pred, rows = holdout_on_run(run, PredictInputs(None, None, None), held)
    with open_run(run) as opened:
        cells = summarize_run(opened)
    before = {(r.config, r.workload): r.error for r in holdout_errors(without_pass(pred), cells, parse_k_list(held))}
    reps = repeat_rates(cells)
    out = []
    for r in rows:
        vals = reps.get((r.config, r.workload), [])
        f_here, length_here, tps_here = drafting_at(cells, r.config, r.workload)
        out.append(
            {
                "source": "embedded",
                "config": r.config,
                "workload": r.workload,
                "k": r.k,
                "fit_on": ",".join(map(str, r.fitted_on))
                + _cells(
                    sum(len(reps.get((k_name(split_k_name(r.config)[0], k), r.workload), [])) for k in r.fitted_on)
                ),
                "measured_tok_s": r.measured_tok_s,
                "repeats": len(vals),
                "range_tok_s": (min(vals), max(vals)) if vals else None,
                "predicted_tok_s": r.predicted_tok_s,
                "error": r.error,
                "error_without_pass": before.get((r.config, r.workload)) if r.draft_passes_per_step else None,
                "overhead_ms": r.draft_overhead_s * 1e3,
                "draft_passes": r.draft_passes_per_step,
                "draft_fraction": r.draft_fraction,
                "draft_fraction_here": f_here,
                "draft_length_here": length_here,
                "tokens_per_step": r.tokens_per_step,
                "tokens_per_step_here": tps_here,
            }
        )
    return out, pred


def seed003_rows() -> list[dict]:
    s = SEED003
    rates = s["rates"]
    pred = predict_published(
        s["per_position"],
        target_bytes=s["target_bytes"],
        draft_bytes_per_token=s["draft_bytes_per_token"],
        bandwidth_bytes_s=s["bandwidth_bytes_s"],
        measured_tok_s=s["measured_tok_s"],
        max_k=6,
        calibration=Calibration(
            fit_tok_s={1: rates[1], 2: rates[2]}, compare_tok_s={k: rates[k] for k in (3, 4, 5, 6)}
        ),
    )
    return [
        {
            "source": "seed003",
            "config": "mtp (vLLM, DGX Spark)",
            "workload": "code",
            "k": r.k,
            "fit_on": "1,2",
            "measured_tok_s": r.measured_tok_s,
            "repeats": 13,  # "13 single-stream runs per setting", pooled medians with 95 % intervals
            "range_tok_s": None,
            "predicted_tok_s": r.tok_s,
            "error": r.error,
            "error_without_pass": None,
            "overhead_ms": pred.draft_overhead_s * 1e3,
            "draft_passes": 0.0,  # vLLM's MTP head runs once per drafted token
            "draft_fraction": 1.0,  # vLLM's MTP drafts on every step
            "draft_fraction_here": None,
            "draft_length_here": None,
            "tokens_per_step": r.tokens_per_step,
            "tokens_per_step_here": None,
        }
        for r in pred.rows
        if r.role == "predicted" and r.measured_tok_s is not None
    ]


def spread(r: dict) -> float | None:
    """Half the measured repeats' range as a fraction of their mean (the noise a single row's error rests on)."""
    rng = r.get("range_tok_s")
    return None if not rng or r["repeats"] < 2 else (rng[1] - rng[0]) / 2 / r["measured_tok_s"]


def verdicts(rows: list[dict]) -> list[str]:
    """Per source: rows within the target; rows beyond it whose prediction lies inside the measured repeats' range
    (the measurement cannot tell them apart), and rows beyond both."""
    out = []
    for src, limit in TARGETS.items():
        these = [r for r in rows if r["source"] == src and (src != "seed003" or r["k"] <= 5)]
        if not these:
            continue
        worst = max(abs(r["error"]) for r in these)
        miss = [r for r in these if abs(r["error"]) > limit]
        noisy = [
            r for r in miss if r["range_tok_s"] and r["range_tok_s"][0] <= r["predicted_tok_s"] <= r["range_tok_s"][1]
        ]
        beyond = [r for r in miss if r not in noisy]
        name = lambda r: f"{r['config']}/{r['workload']} k={r['k']}"  # noqa: E731
        line = f"{src}: {len(these) - len(miss)} of {len(these)} rows within {limit:.0%} (largest |error| {worst:.1%})"
        if noisy:
            line += f"; within the measured repeats' range though beyond {limit:.0%}: {', '.join(map(name, noisy))}"
        if beyond:
            line += f"; beyond both: {', '.join(map(name, beyond))}"
        out.append(line)
        spreads = [x for r in these if (x := spread(r)) is not None]
        if spreads:
            out.append(
                f"{src}: the measured rates' own spread across repeats (half the range / mean) is "
                f"{statistics.median(spreads):.0%} median, {max(spreads):.0%} largest"
            )
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:+.1f} %"


def _passes(q: float) -> str:
    """Draft passes per verify step with a k-token draft: ``k``, or ``k + q`` where q passes do not grow with k."""
    return f"k + {q:g}" if q else "k"


def _paren(x: float | None, spec: str) -> str:
    return "" if x is None else f" ({format(x, spec)})"


def table(rows: list[dict]) -> str:
    head = (
        "| source | config | workload | k | fit on k | measured tok/s (repeats: min-max) | predicted tok/s | error "
        "| error without the pass per step | overhead ms/token | draft passes per step "
        "| steps drafting: assumed (measured at this k) | tokens/step: assumed (measured) | draft length at this k |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rng = r["range_tok_s"]
        measured = f"{r['measured_tok_s']:.2f} ({r['repeats']}" + (f": {rng[0]:.2f}-{rng[1]:.2f})" if rng else ")")
        lines.append(
            f"| {r['source']} | {r['config']} | {r['workload']} | {r['k']} | {r['fit_on']} | {measured} | "
            f"{r['predicted_tok_s']:.2f} | {100 * r['error']:+.1f} % | {_pct(r['error_without_pass'])} | "
            f"{r['overhead_ms']:.3f} | "
            f"{_passes(r['draft_passes'])} | "
            f"{r['draft_fraction']:.0%}{_paren(r['draft_fraction_here'], '.0%')} | "
            f"{r['tokens_per_step']:.2f}{_paren(r['tokens_per_step_here'], '.2f')} | "
            f"{'-' if r['draft_length_here'] is None else format(r['draft_length_here'], '.2f')} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path, help="analyse this run folder instead of measuring a sweep")
    ap.add_argument("--quick", action="store_true", help="k=1..4, 2 repeats, 48 tokens (~3 min)")
    ap.add_argument("--methods", default="draft,ngram", help="speculative configs to sweep")
    ap.add_argument(
        "--workloads", default="edit", help="workload packs (n-gram drafting needs the edit pack's repetition)"
    )
    ap.add_argument("--max-k", type=int, default=6)
    ap.add_argument("--fit-k", default="1,2", help="draft lengths the overhead is fitted on")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=128, help="max_tokens per request (tokens)")
    ap.add_argument("--out", type=Path, default=Path("runs"))
    ap.add_argument("--results", action="store_true", help="write the table into benchmarks/RESULTS.md")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    a = ap.parse_args()
    if a.quick:
        a.max_k, a.repeats, a.max_tokens = 4, 2, 48
    fit_k = [int(k) for k in a.fit_k.split(",")]
    t0 = time.perf_counter()
    run = a.run or run_bench(sweep_options(a), out=a.out)
    wall_s = time.perf_counter() - t0
    try:
        embedded, pred = embedded_rows(run, fit_k, a.max_k)
        rows = embedded + seed003_rows()
    except SpecscopeError as exc:  # e.g. every base cell degraded (CLIENT_LIMITED on a loaded machine)
        print(f"error: {run}: {exc.message}; found: {exc.found}; fix: {exc.fix or 'more --repeats'}", file=sys.stderr)
        print("the cells' reasons: specscope report " + str(run), file=sys.stderr)
        sys.exit(2)
    if a.format == "json":
        steps = step_lines(run, rows, pred, a.max_k)
        print(json.dumps({"run": str(run), "rows": rows, "verdicts": verdicts(rows), "steps": steps}, indent=2))
    else:
        steps = step_lines(run, rows, pred, a.max_k)
        print(f"run folder: {run}")
        print(table(rows))
        print("\n".join(verdicts(rows) + steps))
    if a.results:
        errs = [abs(r["error"]) for r in rows if r["source"] == "embedded"]
        loads = cell_loads(run)
        span = cells_span_min(run)
        measured = f"measured in {wall_s / 60:.1f} min" if not a.run else "re-analysed"
        if a.run and span is not None:
            measured = f"its cells spanned {span:.1f} min; re-analysed"
        if loads:
            measured += f"; the cells' 1-minute load average {loads[0]:.1f}-{loads[1]:.1f}"
        body = (
            f"`python benchmarks/predict_holdout.py{' --quick' if a.quick else ''}` on {date.today()} ({measured}; "
            f"`os.cpu_count()` = {os.cpu_count()}; run folder `{run.name}`): embedded engine, configs `base` and "
            f"{a.methods} at k = 1..{a.max_k}, workloads {a.workloads}, N=1, {a.repeats} interleaved repeats, "
            f"{a.max_tokens} tokens per request. Each method's draft overhead is fitted on k = {a.fit_k} and the "
            "other k are predicted (single stream, bandwidth bound: `specscope predict RUN --holdout`); seed 003's "
            "published rates are fitted on k = 1,2 and compared with k = 3..6.\n\n"
            + table(rows)
            + "\n\n"
            + "\n".join(f"- {v}" for v in verdicts(rows) + steps)
            + (f"\n- embedded median |error| {statistics.median(errs):.1%}" if errs else "")
            + "\n\n"
            + READING
        )
        write_section(RESULTS, SECTION, f"## {TITLE}\n\n{body}")


if __name__ == "__main__":
    main()
